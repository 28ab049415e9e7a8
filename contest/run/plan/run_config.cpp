#include "contest/run/plan/run_config.h"

namespace contest {

std::string RunConfig::append_of(const std::string& of) const {
    std::string words;
    for (const auto& append : boot_appends)
        if (append.label == of) words += (words.empty() ? "" : " ") + append.image;
    return words;
}

}  // namespace contest
