#include "contest/run/plan/place_life.h"

#include "contest/sys/errors.h"

namespace contest {

std::optional<LifeAsked> verb_options_asked(std::string_view option, bool status, bool abort,
                                            const std::filesystem::path& continue_journal) {
    const std::string o(option);
    if (status + abort + !continue_journal.empty() > 1)
        throw UsageError("--" + o + "-status, --" + o + "-abort and --" + o +
                         "-continue go one at a time");
    if (status) return LifeAsked{LifeVerb::status, {}};
    if (abort) return LifeAsked{LifeVerb::abort, {}};
    if (!continue_journal.empty()) return LifeAsked{LifeVerb::advance, continue_journal};
    return std::nullopt;
}

}  // namespace contest
