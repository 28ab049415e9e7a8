#include "contest/boot/boot_options.h"

#include <string>
#include <vector>

#include "contest/sys/json_record.h"

namespace contest {

// The record of the options, each field named once (sys/json_record.h).
template <typename V, RecordOf<BootRunOptions> R>
void fields(V& v, R& b) {
    v("method", b.method);
    v("boot_max", b.boot_max);
    v("stop_on_failure", b.stop_on_failure);
    v("keep_built", b.keep_built);
    v("root", b.root);
    v.absent_when_default("owner", b.owner);
    if constexpr (V::reading) {
        // An earlier contest wrote a `then` here, always empty in a journal.
        std::vector<std::string> then;
        v.absent_when_default("then", then);
        if (!then.empty()) v.refuse("then", "not empty (a journal's boot options start nothing)");
        if (!b.root.is_absolute()) v.refuse("root", "not an absolute path");
        if (!b.owner.empty() && !b.owner.is_absolute()) v.refuse("owner", "not an absolute path");
    }
}

namespace {

// The section as a record of its one field, so that its codec names the
// field as the run's codec named it when it was the run's ("boot: root").
struct BootOptionsField {
    std::optional<BootRunOptions> boot;
};

template <typename V, RecordOf<BootOptionsField> R>
void fields(V& v, R& f) {
    v(kBootOptionsField, f.boot);
}

nlohmann::json boot_options_json(const std::optional<BootRunOptions>& options) {
    return RecordWriter::json_of(BootOptionsField{options}, "the run's journal");
}

std::optional<BootRunOptions> boot_options_from_json(const nlohmann::json& fields,
                                                     const std::string& where) {
    // Absent: a journal of no run's section (a --boot run's boot facts alone).
    if (!fields.contains(kBootOptionsField)) return std::nullopt;
    BootOptionsField f;
    RecordReader::read(fields, where, f);
    return f.boot;
}

}  // namespace

const JournalSection<std::optional<BootRunOptions>> kBootOptionsSection{
    {kBootOptionsField}, boot_options_json, boot_options_from_json};

}  // namespace contest
