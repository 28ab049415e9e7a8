// libFuzzer: a label's config options as a bisection's state keeps them
// (in a results folder others may write) and the merge over a
// config. Input: option lines, a NUL, then the config's text. Options either
// read or are refused with a UsageError; read ones give the same options
// back through their spec's tail, and the merged config holds every one of
// them as asked.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "contest/kbuild/label_options.h"
#include "contest/sys/errors.h"

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    for (char c : text) {
        if (c == '\n') {
            lines.push_back(line);
            line.clear();
        } else {
            line += c;
        }
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace contest::kbuild;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = text.find('\0');
    const std::string option_text = text.substr(0, nul);
    const std::string config = nul == std::string::npos ? "" : text.substr(nul + 1);
    LabelOptions options;
    try {
        options = label_options_of_lines(lines_of(option_text), "fuzz: ");
    } catch (const contest::UsageError&) {
        return 0;
    }
    if (!options.empty()) {
        const LabelOptions again = read_label_options(options.spec_tail().substr(1), "again: ");
        if (again.lines() != options.lines()) std::abort();
    }
    const std::string merged = merge_label_options(config, options);
    if (!options_not_kept(options, merged).empty()) std::abort();
    return 0;
}
