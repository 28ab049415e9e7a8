// libFuzzer: the config-file reader on arbitrary bytes, with options of
// every kind a command declares (text, bounded numbers, a repeatable list,
// a switch, the load options). Any bytes are either stored or refused with
// one UsageError naming the file and line; the message is printable.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace {

struct Targets {
    std::string label, order;
    unsigned runs = 3, jobs = 0;
    double warmup = 3, alpha = 0.05;
    std::uint64_t seed = 0;
    std::vector<std::string> loads;
    bool quiet = false;
};

contest::po::options_description& options(Targets& t) {
    static contest::po::options_description d = [&] {
        contest::po::options_description o;
        o.add_options()("label,k", contest::po::value(&t.label))(
            "runs,n", contest::bounded(&t.runs, 1u, 1000u)->default_value(3))(
            "jobs,j", contest::bounded(&t.jobs, 1u, 4096u))(
            "warmup", contest::bounded(&t.warmup, 0.0, 3600.0))(
            "alpha", contest::bounded(&t.alpha, contest::kMinAlpha, contest::kMaxAlpha))(
            "seed", contest::bounded<std::uint64_t>(&t.seed, 0, UINT64_MAX))(
            "order", contest::po::value(&t.order)->default_value("shuffled"))(
            "load", contest::po::value(&t.loads))("quiet,q", contest::po::bool_switch(&t.quiet))(
            "section.key", contest::po::value<std::string>());
        return o;
    }();
    return d;
}

}  // namespace

using contest::po::variables_map;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // printable() output is always printable, and only grows.
    const std::string shown = contest::printable(text);
    if (!contest::is_printable(shown) || shown.size() < size) std::abort();

    static Targets targets;
    variables_map vm;
    try {
        contest::store_config_text(text, "fuzz.conf", options(targets), vm);
        contest::po::notify(vm);
    } catch (const contest::UsageError& e) {
        const std::string what = e.what();
        if (!what.starts_with("fuzz.conf:") || !contest::is_printable(what)) std::abort();
    }
    return 0;
}
