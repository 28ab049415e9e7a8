#pragma once
// One way a record (a plain struct) and its JSON go together, field by
// field: a record names its fields once, in an overload
//
//     template <typename V, RecordOf<Thing> R> void fields(V& v, R& thing) {
//         v("name", thing.name);
//         v("size", thing.size);
//     }
//
// found by argument-dependent lookup, and both directions walk it:
// RecordWriter makes the JSON; RecordReader reads JSON that may come from
// anyone (a file root reads, a guest's answer) back into the record, every
// value checked for its type and range and every field present and known,
// or a UsageError naming the field's whole path ("journal: config.vm.shape:
// cpus: too large"). A field holds text, a path, a whole number, a finite
// number, a switch, a word of a closed set (an enum with a JsonWords
// specialisation, enum_names.h), an optional value (null when unset), a list, a map of
// texts, or another record (also behind a shared_ptr<const>, null when
// there is none).
//
// A field a later contest added to a file an earlier one wrote is named
// with v.absent_when_default("name", thing.name): absent from the JSON
// while it holds its type's default (T{}: "", false, 0, empty), and that
// default when absent, so a file of the earlier shape reads and is written
// back as it was. A field added to a file that has always written every
// field is named with v.kept_when_absent("name", thing.name): always
// written, and when absent (a file of the earlier shape) the record's own
// value kept, whatever it is (a NaN for "not known", not T{}). A versioned
// file's "schema" is checked by take_schema.
//
// A field that is a path on this host is said to be one where it is named,
// once: v.path("workdir", w.workdir), or with how it is made absolute when
// it holds more than a path (a name or a URI instead, paths inside it):
// v.path("history_db", c.history_db, how), how(value) changing it in place.
// Both directions take it as any field; PathsMadeAbsolute
// (sys/record_paths.h) makes every one absolute.
#include <cmath>
#include <concepts>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

// The records a fields() overload is for, const or not.
template <typename R, typename Record>
concept RecordOf = std::same_as<std::remove_const_t<R>, Record>;

class RecordWriter;
class RecordReader;

namespace json_record_detail {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsShared : std::false_type {};
template <typename T>
struct IsShared<std::shared_ptr<const T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {};
template <typename T>
struct IsTextMap : std::false_type {};
template <typename C, typename A>
struct IsTextMap<std::map<std::string, std::string, C, A>> : std::true_type {};

}  // namespace json_record_detail

template <typename T>
concept JsonRecord = requires(RecordWriter& w, const T& record) {
    fields(w, record);
};

// Makes the JSON of a record. Text that is not UTF-8 cannot be written
// as JSON text: a UsageError naming the field, never a changed value.
//
// A file whose text comes from the machine as it is (a kernel's command
// line, a boot entry's path) and that must be written whatever it holds
// (a --boot run's state, between two reboots) takes BadText::replaced
// instead: each invalid byte written as U+FFFD.
enum class BadText { refused, replaced };

class RecordWriter {
  public:
    static constexpr bool reading = false;

    explicit RecordWriter(std::string where, BadText bad_text = BadText::refused)
        : where_(std::move(where)), bad_text_(bad_text) {}

    template <JsonRecord T>
    static nlohmann::json json_of(const T& record, const std::string& where,
                                  BadText bad_text = BadText::refused) {
        RecordWriter w(where, bad_text);
        fields(w, record);
        return std::move(w.out_);
    }

    template <typename T>
    void operator()(const char* name, const T& value) {
        out_[name] = value_json(value, where_ + ": " + name);
    }

    // A field absent while it holds T{} (see above).
    template <typename T>
    void absent_when_default(const char* name, const T& value) {
        if (!(value == T{})) (*this)(name, value);
    }

    // A field always written (see above).
    template <typename T>
    void kept_when_absent(const char* name, const T& value) {
        (*this)(name, value);
    }

    // A path (see above).
    template <typename T, typename... How>
    void path(const char* name, const T& value, How&&...) {
        (*this)(name, value);
    }

  private:
    template <typename T>
    nlohmann::json value_json(const T& v, const std::string& at) const {
        using namespace json_record_detail;
        if constexpr (std::is_same_v<T, std::string>) {
            if (is_valid_utf8(v)) return v;
            if (bad_text_ == BadText::replaced) return valid_utf8(v);
            throw UsageError(at + ": '" + printable(v) + "' is not UTF-8");
        } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
            return value_json(v.string(), at);
        } else if constexpr (std::is_enum_v<T>) {
            return std::string(name_in(JsonWords<T>::names, v));
        } else if constexpr (std::is_arithmetic_v<T>) {
            return v;
        } else if constexpr (IsOptional<T>::value || IsShared<T>::value) {
            return v ? value_json(*v, at) : nlohmann::json(nullptr);
        } else if constexpr (IsTextMap<T>::value) {
            nlohmann::json out = nlohmann::json::object();
            for (const auto& [key, text] : v)
                out[value_json(key, at).template get<std::string>()] =
                    value_json(text, at + "." + key);
            return out;
        } else if constexpr (IsVector<T>::value) {
            nlohmann::json out = nlohmann::json::array();
            for (std::size_t i = 0; i < v.size(); ++i)
                out.push_back(value_json(v[i], at + "[" + std::to_string(i) + "]"));
            return out;
        } else {
            return json_of(v, at, bad_text_);
        }
    }

    std::string where_;
    BadText bad_text_;
    nlohmann::json out_ = nlohmann::json::object();
};

// Reads a record from JSON anyone may have written: every field the
// record names must be there, with a value of its type; a field it does
// not name is refused too (a record from a newer contest is refused by its
// version before it gets here).
class RecordReader {
  public:
    static constexpr bool reading = true;

    RecordReader(const nlohmann::json& in, std::string where) : in_(in), where_(std::move(where)) {
        if (!in_.is_object()) throw UsageError(where_ + ": not an object");
    }

    template <JsonRecord T>
    static void read(const nlohmann::json& in, const std::string& where, T& record) {
        RecordReader r(in, where);
        fields(r, record);
        r.check_all_known();
    }

    template <typename T>
    void operator()(const char* name, T& value) {
        const auto it = in_.find(name);
        if (it == in_.end()) refuse(name, "missing");
        names_.push_back(name);
        read_value(*it, where_ + ": " + name, value);
    }

    // A field that may be absent: T{} then (see above).
    template <typename T>
    void absent_when_default(const char* name, T& value) {
        if (in_.contains(name))
            (*this)(name, value);
        else
            value = T{};
    }

    // A field that may be absent: the record's value kept then (see above).
    template <typename T>
    void kept_when_absent(const char* name, T& value) {
        if (in_.contains(name)) (*this)(name, value);
    }

    // A path (see above).
    template <typename T, typename... How>
    void path(const char* name, T& value, How&&...) {
        (*this)(name, value);
    }

    // A refusal of field `name` of this record, for a fields() overload's
    // own check.
    [[noreturn]] void refuse(const std::string& name, const std::string& why) const {
        throw UsageError(where_ + ": " + name + ": " + why);
    }

  private:
    template <typename T>
    static void read_value(const nlohmann::json& v, const std::string& at, T& out) {
        using namespace json_record_detail;
        auto bad = [&](const std::string& why) { throw UsageError(at + ": " + why); };
        if constexpr (std::is_same_v<T, std::string>) {
            if (!v.is_string()) bad("not a string");
            out = v.get<std::string>();
        } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
            std::string text;
            read_value(v, at, text);
            if (text.find('\0') != std::string::npos) bad("a path with a NUL byte");
            out = text;
        } else if constexpr (std::is_same_v<T, bool>) {
            if (!v.is_boolean()) bad("not true or false");
            out = v.get<bool>();
        } else if constexpr (std::is_floating_point_v<T>) {
            if (!v.is_number()) bad("not a number");
            const double d = v.get<double>();
            if (!std::isfinite(d)) bad("not a finite number");
            out = static_cast<T>(d);
        } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
            if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
                bad("not a whole number >= 0");
            const auto n = v.get<std::uint64_t>();
            if (n > std::numeric_limits<T>::max()) bad("too large");
            out = static_cast<T>(n);
        } else if constexpr (std::is_integral_v<T>) {
            if (!v.is_number_integer()) bad("not a whole number");
            if (v.is_number_unsigned() &&
                v.get<std::uint64_t>() >
                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                bad("too large");
            const auto n = v.get<std::int64_t>();
            if (n > std::numeric_limits<T>::max() || n < std::numeric_limits<T>::min())
                bad("out of range");
            out = static_cast<T>(n);
        } else if constexpr (std::is_enum_v<T>) {
            std::string word;
            read_value(v, at, word);
            const auto value = value_in(JsonWords<T>::names, word);
            if (!value) bad("'" + printable(word) + "' is no " + JsonWords<T>::what);
            out = *value;
        } else if constexpr (IsOptional<T>::value) {
            if (v.is_null()) {
                out.reset();
            } else {
                typename T::value_type inner{};
                read_value(v, at, inner);
                out = std::move(inner);
            }
        } else if constexpr (IsShared<T>::value) {
            if (v.is_null()) {
                out.reset();
            } else {
                auto inner = std::make_shared<std::remove_const_t<typename T::element_type>>();
                read_value(v, at, *inner);
                out = std::move(inner);
            }
        } else if constexpr (IsTextMap<T>::value) {
            if (!v.is_object()) bad("not an object");
            out.clear();
            for (const auto& [key, text] : v.items()) {
                std::string value;
                read_value(text, at + "." + printable(key), value);
                out.emplace(key, std::move(value));
            }
        } else if constexpr (IsVector<T>::value) {
            if (!v.is_array()) bad("not a list");
            out.clear();
            for (std::size_t i = 0; i < v.size(); ++i)
                read_value(v[i], at + "[" + std::to_string(i) + "]", out.emplace_back());
        } else {
            read(v, at, out);
        }
    }

    void check_all_known() const {
        if (names_.size() == in_.size()) return;
        for (const auto& [key, value] : in_.items()) {
            (void)value;
            bool known = false;
            for (const char* name : names_) known = known || key == name;
            if (!known)
                throw UsageError(where_ + ": " + printable(key) +
                                 ": a field this contest does not know");
        }
    }

    const nlohmann::json& in_;
    std::string where_;
    std::vector<const char*> names_;  // the fields read
};

// The schema of a versioned file (its JSON's "schema", a whole number)
// checked against `known`, this contest's, and taken out of it for the
// record's reader. A file of an earlier or a later contest is refused in
// one line naming both schemas (UsageError: "WHERE: schema: 3 is newer
// than this contest's 2 ...").
inline void take_schema(nlohmann::json& j, int known, const std::string& where) {
    if (!j.is_object()) throw UsageError(where + ": not an object");
    const auto it = j.find("schema");
    if (it == j.end()) throw UsageError(where + ": schema: missing");
    if (!it->is_number_integer() ||
        (it->is_number_unsigned() &&
         it->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) ||
        it->get<std::int64_t>() < std::numeric_limits<int>::min())
        throw UsageError(where + ": schema: not a whole number");
    const auto schema = it->get<std::int64_t>();
    if (schema > known)
        throw UsageError(where + ": schema: " + std::to_string(schema) +
                         " is newer than this contest's " + std::to_string(known) +
                         " (written by a later contest; take it on with that one)");
    if (schema < known)
        throw UsageError(where + ": schema: " + std::to_string(schema) +
                         " is older than this contest's " + std::to_string(known) +
                         " (written by an earlier contest; take it on with that one)");
    j.erase(it);
}

}  // namespace contest
