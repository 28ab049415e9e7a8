#include "contest/kbuild/label_options.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "contest/observe/kernel_facts.h"
#include "contest/sys/errors.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;

const std::string kNotSetHead = "# ";
const std::string kNotSetTail = " is not set";

bool is_option_name(const std::string& name) {
    if (!name.starts_with("CONFIG_") || name.size() == 7) return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

std::string shown(const std::string& value) {
    return value.empty() ? "unset" : value;
}

// The items between single '%'s, "%%" read as one '%'.
std::vector<std::string> split_items(const std::string& text) {
    std::vector<std::string> items(1);
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            items.back() += text[i];
        } else if (i + 1 < text.size() && text[i + 1] == '%') {
            items.back() += '%';
            ++i;
        } else {
            items.emplace_back();
        }
    }
    return items;
}

// One option's words: `CONFIG_X=V` or `# CONFIG_X is not set`; nullopt
// for a text that is neither (a file's comment, an inline file name).
// UsageError (after `where`) for one that is an option gone wrong.
std::optional<LabelOption> option_of(const std::string& text, const std::string& where) {
    if (text.starts_with(kNotSetHead + "CONFIG_") && text.ends_with(kNotSetTail)) {
        const std::string name =
            text.substr(kNotSetHead.size(), text.size() - kNotSetHead.size() - kNotSetTail.size());
        if (!is_option_name(name))
            throw UsageError(where + "'" + printable(name) + "' is not a CONFIG_ option name");
        return LabelOption{name, "", ""};
    }
    const auto eq = text.find('=');
    if (text.starts_with("#") || eq == std::string::npos) return std::nullopt;
    LabelOption o{text.substr(0, eq), text.substr(eq + 1), ""};
    if (!is_option_name(o.name))
        throw UsageError(where + "'" + printable(o.name) +
                         "' is not a CONFIG_ option name (CONFIG_X=VALUE)");
    if (o.value.find_first_of("\r\n") != std::string::npos)
        throw UsageError(where + o.name + "'s value has a line break");
    if (o.value.empty())
        throw UsageError(where + o.name + " has no value (CONFIG_X=VALUE, or # " + o.name +
                         " is not set)");
    if (o.value.starts_with("\"") && (o.value.size() < 2 || !o.value.ends_with("\"")))
        throw UsageError(where + o.name + "'s string value has no closing '\"'");
    if (o.value == "n") o.value.clear();  // kconfig reads =n as not set
    return o;
}

// A fragment file's options, each from FILE:LINE.
std::vector<LabelOption> fragment_options(const std::string& file, const std::string& head) {
    const std::string where = head + "the fragment " + printable(file);
    std::error_code ec;
    const auto status = fs::status(file, ec);
    if (!fs::exists(status))
        throw UsageError(where + ": no such file (nor an option: CONFIG_X=VALUE)");
    if (!fs::is_regular_file(status)) throw UsageError(where + " is not a file");
    const auto size = fs::file_size(file, ec);
    if (ec) throw UsageError(where + ": " + ec.message());
    if (size > kMaxFragmentBytes)
        throw UsageError(where + " is " + std::to_string(size) + " bytes, more than a fragment's " +
                         std::to_string(kMaxFragmentBytes) + ": not a config fragment");
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw UsageError(where + " cannot be read");
    if (text.find('\0') != std::string::npos || !is_valid_utf8(text))
        throw UsageError(where + " is binary, not a config fragment");
    std::vector<LabelOption> out;
    int number = 0;
    for (std::string line : split_lines(text)) {
        ++number;
        // kconfig drops a '\r' before the newline; so does the merge.
        if (line.ends_with("\r")) line.pop_back();
        const std::string at = printable(file) + ":" + std::to_string(number);
        if (trim_blanks(line).empty()) continue;
        auto o = option_of(line, head + at + ": ");
        if (!o) {
            if (line.starts_with("#")) continue;
            throw UsageError(head + at + ": '" + printable(line) +
                             "' is no option (CONFIG_X=VALUE, or # CONFIG_X is not set)");
        }
        o->from = at;
        out.push_back(*o);
    }
    if (out.empty()) throw UsageError(where + " is empty: it holds no option");
    return out;
}

// The option a .config line sets, "" for none.
std::string option_set_by(const std::string& line) {
    if (line.starts_with(kNotSetHead + "CONFIG_") && line.ends_with(kNotSetTail))
        return line.substr(kNotSetHead.size(),
                           line.size() - kNotSetHead.size() - kNotSetTail.size());
    if (!line.starts_with("CONFIG_")) return "";
    const auto eq = line.find('=');
    return eq == std::string::npos ? "" : line.substr(0, eq);
}

std::string value_in(const std::string& line) {
    const auto eq = line.find('=');
    if (line.starts_with("#") || eq == std::string::npos) return "";
    const std::string value = line.substr(eq + 1);
    return value == "n" ? "" : value;
}

}  // namespace

std::string LabelOption::line() const {
    return value.empty() ? kNotSetHead + name + kNotSetTail : name + "=" + value;
}

std::vector<std::string> LabelOptions::lines() const {
    std::vector<std::string> out;
    for (const auto& o : options) out.push_back(o.line());
    return out;
}

std::string LabelOptions::text() const {
    std::string out;
    for (const auto& o : options) out += o.line() + "\n";
    return out;
}

std::string LabelOptions::spec_tail() const {
    std::string out;
    for (const auto& o : options) {
        out += '%';
        for (char c : o.line()) out += c == '%' ? std::string("%%") : std::string(1, c);
    }
    return out;
}

namespace {

// Options in the order given, each name once: the same option again with
// its value changes nothing, with another value is refused.
class GivenOptions {
  public:
    explicit GivenOptions(const std::string& head) : head_(head) {}
    void add(LabelOption o) {
        const auto [it, fresh] = given_.emplace(o.name, out_.options.size());
        if (fresh) {
            out_.options.push_back(std::move(o));
            return;
        }
        const LabelOption& before = out_.options[it->second];
        if (before.value != o.value)
            throw UsageError(head_ + o.name + " is given twice with two values: " +
                             printable(shown(before.value)) + " (" + before.from + ") and " +
                             printable(shown(o.value)) + " (" + o.from + ")");
    }
    LabelOptions options() && { return std::move(out_); }

  private:
    const std::string& head_;
    LabelOptions out_;
    std::map<std::string, std::size_t> given_;  // name -> its place in out_
};

// An item that names a fragment file: one that exists, unless it reads as
// an option. A file first, so that a path with '=' in it is one.
bool is_fragment_file(const std::string& item) {
    std::error_code ec;
    return !item.empty() && !item.starts_with("CONFIG_") && !item.starts_with(kNotSetHead) &&
           fs::exists(item, ec);
}

}  // namespace

LabelOptions read_label_options(const std::string& items, const std::string& head) {
    GivenOptions given(head);
    for (const std::string& item : split_items(items)) {
        if (item.empty()) throw UsageError(head + "an empty option after a '%'");
        const bool file = is_fragment_file(item);
        if (auto o = file ? std::optional<LabelOption>() : option_of(item, head)) {
            o->from = "inline";
            given.add(*o);
            continue;
        }
        for (auto& o : fragment_options(item, head)) given.add(std::move(o));
    }
    return std::move(given).options();
}

std::string absolute_fragment_paths(const std::string& items) {
    std::string out;
    bool first = true;
    for (std::string item : split_items(items)) {
        if (is_fragment_file(item)) item = fs::absolute(item).lexically_normal().string();
        if (!first) out += '%';
        first = false;
        for (char c : item) out += c == '%' ? std::string("%%") : std::string(1, c);
    }
    return out;
}

LabelOptions label_options_of_lines(const std::vector<std::string>& lines,
                                    const std::string& head) {
    // (A state's lines are read as the spec's were: one option twice with
    // two values is refused here too, not passed on to a build.)
    GivenOptions given(head);
    for (const auto& line : lines) {
        auto o = option_of(line, head);
        if (!o) throw UsageError(head + "'" + printable(line) + "' is no option line");
        o->from = "inline";
        given.add(*o);
    }
    return std::move(given).options();
}

std::string label_config_sha256(const ConfigChoice& config, const LabelOptions& options) {
    if (options.empty()) return config.sha256();
    return sha256_hex(config.sha256() + "\nlabel options\n" + options.text());
}

std::string merge_label_options(const std::string& config, const LabelOptions& options,
                                std::vector<ConfigChange>* overridden) {
    std::map<std::string, std::string> given, before;
    for (const auto& o : options.options) given[o.name] = o.value;
    std::string out;
    for (const auto& line : split_lines(config)) {
        const std::string name = option_set_by(line);
        if (!name.empty() && given.contains(name)) {
            before[name] = value_in(line);  // kconfig reads the last
            continue;
        }
        out += line + "\n";
    }
    for (const auto& o : options.options) {
        out += o.line() + "\n";
        if (const auto it = before.find(o.name);
            overridden && it != before.end() && it->second != o.value)
            overridden->push_back({o.name, it->second, o.value});
    }
    return out;
}

std::vector<std::string> options_not_kept(const LabelOptions& options,
                                          const std::string& dot_config) {
    const auto config = parse_kernel_config(dot_config);
    std::vector<std::string> out;
    for (const auto& o : options.options) {
        const auto it = config.find(o.name);
        const std::string now = it == config.end() || it->second == "n" ? "" : it->second;
        if (now != o.value) out.push_back(o.line() + " (now " + shown(now) + ")");
    }
    return out;
}

}  // namespace contest::kbuild
