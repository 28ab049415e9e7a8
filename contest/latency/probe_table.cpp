#include "contest/latency/probe_table.h"

#include <stdexcept>

namespace contest::latency {

// Each probe's file defines its entry; this is the one place that lists them.
extern const ProbeInfo kCyclicProbe, kAudioProbe, kVideoProbe, kExecProbe;

namespace {

// The reports' order; the first is the default probe. Adding a probe: its
// file (with its entry) and one line here (and its name above).
const ProbeInfo* const kProbes[] = {
    &kCyclicProbe,
    &kAudioProbe,
    &kVideoProbe,
    &kExecProbe,
};

}  // namespace

std::span<const ProbeInfo* const> probe_table() {
    return kProbes;
}

const ProbeInfo* find_probe(std::string_view name) {
    for (const ProbeInfo* p : kProbes)
        if (p->name == name) return p;
    return nullptr;
}

std::string probe_names(std::string_view separator) {
    std::string out;
    for (const ProbeInfo* p : kProbes) {
        if (!out.empty()) out += separator;
        out += p->name;
    }
    return out;
}

std::size_t probe_order(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kProbes); ++i)
        if (kProbes[i]->name == name) return i;
    return std::size(kProbes);
}

std::string own_option_help(std::string_view option) {
    for (const ProbeInfo* p : kProbes)
        for (const ProbeOwnOption& o : p->options)
            if (o.name == option) return std::string(p->name) + ": " + std::string(o.help);
    throw std::logic_error("no probe owns --" + std::string(option));
}

}  // namespace contest::latency
