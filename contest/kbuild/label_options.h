#pragma once
// A label's own config options: TREE@REF[+PATCH]%ITEM%ITEM..., laid over
// the run's one config for that label alone, so that two labels of one
// commit can differ in exactly CONFIG_HZ or the preemption model. An ITEM
// is an option (`CONFIG_HZ_1000=y`, `# CONFIG_X is not set`, `CONFIG_X=n`
// alike) or a fragment file of such lines (blank lines and other `#` lines
// skipped); `%%` is a literal '%' (a value or a path with one).
//
// They are merged as the kernel's scripts/kconfig/merge_config.sh merges a
// fragment: each option's lines in the config removed and the option's own
// appended (so it wins, and what it overrode is said), then the tree's
// `make olddefconfig`; an option olddefconfig dropped or changed (a
// dependency not met) is then named. Every item is checked when the spec
// is read: bad input is one line, before anything is built.
#include <string>
#include <vector>

#include "contest/kbuild/kernel_config.h"

namespace contest::kbuild {

// A fragment file larger than this is refused: a whole distribution
// .config is a quarter of it.
inline constexpr std::size_t kMaxFragmentBytes = 1 << 20;

struct LabelOption {
    std::string name;   // CONFIG_X
    std::string value;  // "" for not set (`# CONFIG_X is not set`, `=n`)
    std::string from;   // where it was given: "inline", "FILE:LINE"
    // Its line in a .config: CONFIG_X=V, or # CONFIG_X is not set.
    std::string line() const;
};

struct LabelOptions {
    std::vector<LabelOption> options;  // in the order given, each name once
    bool empty() const { return options.empty(); }
    // The options as a fragment's text, a line each: what the cache key
    // and the record hold (so a fragment file's comments change nothing).
    std::string text() const;
    // The options inline, as a spec's tail: "%CONFIG_X=y%# CONFIG_Y is not set"
    // ('%' doubled), which read_label_options reads back the same.
    std::string spec_tail() const;
    std::vector<std::string> lines() const;
};

// The items after a spec's first '%'. `head` starts each message
// ("--kernel A=SPEC: "). UsageError, one line: an option name that is not
// CONFIG_..., an empty value or item, a value with a line break, a fragment
// file that is missing, empty, binary or larger than kMaxFragmentBytes, one
// option given twice with two values.
LabelOptions read_label_options(const std::string& items, const std::string& head);

// The items after a spec's first '%' with each fragment file's path made
// absolute (the items read_label_options reads as files), the rest as
// given: a run's journal keeps a spec so, to be read from any folder.
std::string absolute_fragment_paths(const std::string& items);

// Options given as .config lines (a bisection's state keeps them so), each
// read as read_label_options reads an inline one; UsageError for a line
// that is no option (a file's name among them is one: none is read).
LabelOptions label_options_of_lines(const std::vector<std::string>& lines, const std::string& head);

// What a label's build is keyed and recorded by: the run's config's hash
// when it has no options of its own (its key as before labels had any),
// else the hash of that and the options' text.
std::string label_config_sha256(const ConfigChoice& config, const LabelOptions& options);

// merge_config.sh's merge: config with each option's lines removed and the
// option's line appended. `overridden`, when given, gets each option whose
// earlier value differed (its value in config, "" unset, against the new).
std::string merge_label_options(const std::string& config, const LabelOptions& options,
                                std::vector<ConfigChange>* overridden = nullptr);

// The options the .config olddefconfig made does not hold as asked:
// "CONFIG_X=y (now unset)", one each.
std::vector<std::string> options_not_kept(const LabelOptions& options,
                                          const std::string& dot_config);

}  // namespace contest::kbuild
