#include "contest/boot/boot_entry.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "contest/sys/text.h"
#include "contest/sys/text_file.h"
#include "contest/vm/kernel_image.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// A word of grub's script, or a brace that opens or closes a block, or the
// end of a command (a newline or ';').
struct GrubToken {
    enum class Kind { word, open, close, end } kind = Kind::word;
    std::string text;
    bool expands = false;  // holds a $ outside single quotes: grub expands it
};

// grub.cfg as grub's lexer reads it, as far as a menu needs: blanks part
// words, quotes keep them (single quotes literally; double quotes and a
// backslash outside quotes escape a character), '#' at a word's start is a
// comment, a newline or ';' ends a command, an unquoted { or } word a block.
std::vector<GrubToken> grub_tokens(const std::string& text) {
    std::vector<GrubToken> tokens;
    GrubToken word;
    bool in_word = false, quoted = false;
    auto flush = [&] {
        if (!in_word) return;
        if (!quoted && (word.text == "{" || word.text == "}"))
            word.kind = word.text == "{" ? GrubToken::Kind::open : GrubToken::Kind::close;
        tokens.push_back(std::move(word));
        word = {};
        in_word = quoted = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\') {
            if (i + 1 < text.size() && text[i + 1] != '\n') word.text += text[i + 1];
            in_word = true;
            ++i;
        } else if (c == '\'') {
            const auto close = text.find('\'', i + 1);
            const auto end = close == std::string::npos ? text.size() : close;
            word.text += text.substr(i + 1, end - i - 1);
            in_word = quoted = true;
            i = end;
        } else if (c == '"') {
            in_word = quoted = true;
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\' && i + 1 < text.size() &&
                    std::string_view("$\"\\\n").find(text[i + 1]) != std::string_view::npos) {
                    if (text[++i] != '\n') word.text += text[i];
                    continue;
                }
                if (text[i] == '$') word.expands = true;
                word.text += text[i];
            }
        } else if (c == '#' && !in_word) {
            while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            flush();
        } else if (c == '\n' || c == ';') {
            flush();
            tokens.push_back({GrubToken::Kind::end, "", false});
        } else {
            if (c == '$') word.expands = true;
            word.text += c;
            in_word = true;
        }
    }
    flush();
    return tokens;
}

// The id a menuentry or submenu line gives itself: --id ID, --id=ID, or
// Debian's $menuentry_id_option ID (grub sets that variable to "--id").
std::string grub_id(const std::vector<GrubToken>& words) {
    for (std::size_t i = 2; i < words.size(); ++i) {
        const std::string& w = words[i].text;
        if (w.starts_with("--id=")) return w.substr(5);
        if ((w == "--id" || w == "$menuentry_id_option") && i + 1 < words.size())
            return words[i + 1].text;
    }
    return "";
}

bool all_digits(const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A loader path (grub's may start with a device, "(hd0,gpt2)/vmlinuz")
// under a folder: never an absolute path that would leave it.
fs::path under(const fs::path& folder, std::string path) {
    if (path.starts_with('(')) {
        const auto close = path.find(')');
        path = close == std::string::npos ? "" : path.substr(close + 1);
    }
    while (path.starts_with('/')) path.erase(0, 1);
    return folder / path;
}

// The release of the kernel at one of `candidates` (its bzImage header's),
// else of its name (vmlinuz-RELEASE), else `fallback`; "" when none says.
std::string release_of(const std::vector<fs::path>& candidates, const std::string& image,
                       const std::string& fallback = "") {
    std::error_code ec;
    for (const auto& file : candidates)
        if (fs::is_regular_file(file, ec)) {
            const std::string version = bzimage_version(file);
            if (!version.empty()) return version.substr(0, version.find(' '));
        }
    if (!fallback.empty()) return fallback;
    const std::string name = fs::path(image).filename().string();
    for (const char* prefix : {"vmlinuz-", "vmlinux-"})
        if (name.starts_with(prefix) && name.size() > std::string(prefix).size())
            return name.substr(std::string(prefix).size());
    return "";
}

}  // namespace

std::vector<GrubMenuEntry> grub_menu(const std::string& cfg) {
    std::vector<GrubMenuEntry> entries;
    // The blocks open around a point of the file: a submenu or menuentry
    // (with its step of the menu), or another (a function's body).
    struct Block {
        enum class Kind { menu, submenu, entry, other } kind;
        std::vector<GrubMenuStep> path;  // the menu's steps down to this block
        std::size_t children = 0;        // entries and submenus in it so far
        std::size_t entry = 0;           // an entry's place in `entries`
    };
    std::vector<Block> open = {{Block::Kind::menu, {}, 0, 0}};
    auto container = [&]() -> Block& {
        for (auto it = open.rbegin(); it != open.rend(); ++it)
            if (it->kind == Block::Kind::menu || it->kind == Block::Kind::submenu) return *it;
        return open.front();
    };
    auto innermost_entry = [&]() -> GrubMenuEntry* {
        for (auto it = open.rbegin(); it != open.rend(); ++it) {
            if (it->kind == Block::Kind::entry) return &entries[it->entry];
            if (it->kind == Block::Kind::submenu) return nullptr;
        }
        return nullptr;
    };
    std::vector<GrubToken> words;
    for (const GrubToken& t : grub_tokens(cfg)) {
        if (t.kind == GrubToken::Kind::word) {
            words.push_back(t);
            continue;
        }
        if (t.kind == GrubToken::Kind::open) {
            const std::string command = words.empty() ? "" : words.front().text;
            if ((command == "menuentry" || command == "submenu") && words.size() >= 2) {
                Block& parent = container();
                std::vector<GrubMenuStep> path = parent.path;
                path.push_back({words[1].text, grub_id(words), parent.children++});
                Block block{command == "submenu" ? Block::Kind::submenu : Block::Kind::entry, path,
                            0, 0};
                if (block.kind == Block::Kind::entry) {
                    block.entry = entries.size();
                    entries.push_back({path, "", {}});
                }
                open.push_back(std::move(block));
            } else {
                open.push_back({Block::Kind::other, container().path, 0, 0});
            }
            words.clear();
            continue;
        }
        // The end of a command, or of a block (which ends the command before it).
        if (!words.empty()) {
            const std::string& command = words.front().text;
            GrubMenuEntry* entry = innermost_entry();
            if (entry && entry->linux_image.empty() && words.size() >= 2 &&
                (command == "linux" || command == "linuxefi" || command == "linux16")) {
                entry->linux_image = words[1].text;
                for (std::size_t i = 2; i < words.size(); ++i) {
                    // A variable grub expands at boot: the line is not what boots.
                    if (words[i].expands) entry->args_expand = true;
                    entry->linux_args.push_back(words[i].text);
                }
            }
            words.clear();
        }
        if (t.kind == GrubToken::Kind::close && open.size() > 1) open.pop_back();
    }
    return entries;
}

bool grub_entry_named(const GrubMenuEntry& entry, const std::string& name) {
    std::vector<std::string> steps;
    for (std::size_t from = 0;;) {
        const auto gt = name.find('>', from);
        steps.push_back(name.substr(from, gt == std::string::npos ? std::string::npos : gt - from));
        if (gt == std::string::npos) break;
        from = gt + 1;
    }
    if (steps.size() != entry.path.size()) return false;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const GrubMenuStep& step = entry.path[i];
        const bool named =
            steps[i] == step.title || (!step.id.empty() && steps[i] == step.id) ||
            (all_digits(steps[i]) && steps[i].size() < 10 && std::stoul(steps[i]) == step.index);
        if (!named) return false;
    }
    return true;
}

EntryLookup grub_entry_kernel(const std::string& root, const std::string& name) {
    const fs::path cfg_path = fs::path(root) / "boot/grub/grub.cfg";
    const auto cfg = read_text_file(cfg_path.string());
    if (!cfg) return {std::nullopt, "no " + cfg_path.string()};
    const std::vector<GrubMenuEntry> menu = grub_menu(*cfg);
    const GrubMenuEntry* found = nullptr;
    for (const auto& entry : menu)
        if (grub_entry_named(entry, name)) {
            found = &entry;  // grub boots the first of its name
            break;
        }
    if (!found) {
        std::string why = "no grub entry '" + printable(name) + "' in " + cfg_path.string();
        for (const auto& entry : menu)
            if (entry.path.size() > 1 && entry.path.back().title == name)
                return {std::nullopt, why + " (an entry of that title is in submenu '" +
                                          printable(entry.path.front().title) + "': give '" +
                                          printable(entry.path.front().title + ">" + name) + "')"};
        return {std::nullopt, why};
    }
    if (found->linux_image.empty())
        return {std::nullopt, "grub entry '" + printable(name) +
                                  "' has no linux line: contest cannot tell which kernel it boots"};
    EntryKernel k;
    k.image = found->linux_image;
    // The image's path is on grub's root: the machine's /, or /boot on a
    // partition of its own.
    k.release =
        release_of({under(root, k.image), under(fs::path(root) / "boot", k.image)}, k.image);
    if (k.release.empty())
        return {std::nullopt, "grub entry '" + printable(name) + "': cannot tell the release of " +
                                  printable(k.image) +
                                  " (no bzImage there under the root or its boot/, and not "
                                  "named vmlinuz-RELEASE)"};
    if (!found->args_expand) k.cmdline = join(found->linux_args, " ");
    return {k, ""};
}

EntryLookup loader_entry_kernel(const std::string& root, const std::string& name) {
    std::error_code ec;
    for (const char* esp_name : {"boot", "efi", "boot/efi"}) {
        const fs::path esp = fs::path(root) / esp_name;
        const fs::path entries = esp / "loader/entries";
        for (const fs::path& file : {entries / name, entries / (name + ".conf")}) {
            if (name.empty() || name.find('/') != std::string::npos ||
                !fs::is_regular_file(file, ec))
                continue;
            const auto text = read_text_file(file.string());
            if (!text) continue;
            std::string image, version;
            std::vector<std::string> options;
            for (const auto& raw : split_lines(*text)) {
                const std::string line = trim_blanks(raw);
                if (line.empty() || line.starts_with('#')) continue;
                const auto blank = line.find_first_of(" \t");
                const std::string key = line.substr(0, blank);
                const std::string value =
                    blank == std::string::npos ? "" : trim_blanks(line.substr(blank));
                if (key == "linux") image = value;
                if (key == "version") version = value;
                if (key == "options" && !value.empty()) options.push_back(value);
            }
            if (image.empty())
                return {std::nullopt, "systemd-boot entry " + file.string() +
                                          " has no linux line (a unified kernel image or "
                                          "another EFI program): contest cannot tell which "
                                          "kernel it boots"};
            EntryKernel k;
            k.image = image;
            k.release = release_of({under(esp, image)}, image, version);
            if (k.release.empty())
                return {std::nullopt, "systemd-boot entry " + file.string() +
                                          ": cannot tell the release of " + printable(image) +
                                          " (no bzImage there, no version line, and not named "
                                          "vmlinuz-RELEASE)"};
            k.cmdline = join(options, " ");
            return {k, ""};
        }
    }
    return {std::nullopt, "no systemd-boot entry '" + printable(name) + "' under loader/entries/"};
}

}  // namespace contest
