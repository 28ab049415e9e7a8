#pragma once
// Every path field of a record made absolute, as its fields() names them
// (v.path, sys/json_record.h): the record's own table of fields says once
// which field is a path, and this one walk makes them all absolute, the
// records inside it too (a list of them, an optional one); a record behind
// a shared_ptr<const> is another's, and left as it is.
#include <filesystem>
#include <optional>
#include <string>
#include <type_traits>

#include "contest/sys/json_record.h"

namespace contest {

// A path made absolute and normal (as this process's folder sees it); an
// empty one, or one unset, left so.
struct AbsolutePath {
    template <typename T>
    void operator()(T& value) const {
        if constexpr (json_record_detail::IsOptional<T>::value) {
            if (value) (*this)(*value);
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!value.empty())
                value = std::filesystem::absolute(value).lexically_normal().string();
        } else {
            static_assert(std::is_same_v<T, std::filesystem::path>);
            if (!value.empty()) value = std::filesystem::absolute(value).lexically_normal();
        }
    }
};

class PathsMadeAbsolute {
  public:
    static constexpr bool reading = false;

    template <typename R>
    static void of(R& record) {
        PathsMadeAbsolute v;
        fields(v, record);
    }

    template <typename T>
    void operator()(const char*, T& value) {
        inside(value);
    }
    template <typename T>
    void absent_when_default(const char*, T& value) {
        inside(value);
    }
    template <typename T>
    void kept_when_absent(const char*, T& value) {
        inside(value);
    }
    template <typename T, typename How = AbsolutePath>
    void path(const char*, T& value, How how = {}) {
        how(value);
    }

  private:
    // The paths of a record a field holds (and of each a list holds).
    template <typename T>
    void inside(T& value) {
        using namespace json_record_detail;
        if constexpr (IsOptional<T>::value) {
            if (value) inside(*value);
        } else if constexpr (IsVector<T>::value) {
            for (auto& item : value) inside(item);
        } else if constexpr (requires(PathsMadeAbsolute & v, T & r) { fields(v, r); }) {
            fields(*this, value);
        }
    }
};

}  // namespace contest
