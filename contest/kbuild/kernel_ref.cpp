#include "contest/kbuild/kernel_ref.h"

#include <algorithm>

#include "contest/kbuild/git.h"
#include "contest/sys/errors.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;

bool exists(const std::string& path) {
    std::error_code ec;
    return !path.empty() && fs::exists(path, ec);
}

bool is_folder(const std::string& path) {
    std::error_code ec;
    return !path.empty() && fs::is_directory(path, ec);
}

// A cover letter (`git format-patch --cover-letter`'s 0000-cover-letter.patch)
// holds no change: git am would stop at it.
bool is_cover_letter(const fs::path& file) {
    return file.filename().string().starts_with("0000-");
}

// TREE@REF[+PATCH][%OPTIONS] cut at its marks: TREE the first text before
// an '@' that is a folder; OPTIONS what follows the first '%' after it;
// PATCH what follows the first '+' whose rest names a file or folder.
// nullopt when no text before an '@' is a folder.
struct SpecParts {
    std::string tree, ref, patch;
    std::optional<std::string> options;  // after the '%', when there is one
};

std::optional<SpecParts> split_spec(const std::string& spec) {
    std::size_t at = spec.find('@');
    while (at != std::string::npos && !is_folder(spec.substr(0, at))) at = spec.find('@', at + 1);
    if (at == std::string::npos) return std::nullopt;
    SpecParts p;
    p.tree = spec.substr(0, at);
    std::string rest = spec.substr(at + 1);
    if (const auto percent = rest.find('%'); percent != std::string::npos) {
        p.options = rest.substr(percent + 1);
        rest.resize(percent);
    }
    p.ref = rest;
    for (std::size_t plus = rest.find('+'); plus != std::string::npos;
         plus = rest.find('+', plus + 1))
        if (exists(rest.substr(plus + 1))) {
            p.ref = rest.substr(0, plus);
            p.patch = rest.substr(plus + 1);
            break;
        }
    return p;
}

}  // namespace

bool looks_like_kernel_ref(const std::string& spec) {
    return spec.find('@') != std::string::npos && !exists(spec);
}

std::string absolute_kernel_spec(const std::string& spec) {
    const auto absolute = [](const std::string& path) {
        return fs::absolute(path).lexically_normal().string();
    };
    if (exists(spec)) return absolute(spec);
    const std::optional<SpecParts> p = split_spec(spec);
    if (!p) return spec;  // a package's name, or nothing there
    return absolute(p->tree) + "@" + p->ref + (p->patch.empty() ? "" : "+" + absolute(p->patch)) +
           (p->options ? "%" + absolute_fragment_paths(*p->options) : "");
}

std::vector<fs::path> patch_files(const fs::path& patch) {
    std::error_code ec;
    if (!fs::is_directory(patch, ec)) return {patch};
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(patch, ec)) {
        const std::string name = e.path().filename().string();
        if (name.starts_with(".") || !e.is_regular_file(ec) || is_cover_letter(e.path())) continue;
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

KernelRef read_kernel_ref(const std::string& spec, const std::string& option,
                          const fs::path& scratch) {
    const std::string head = option + "=" + printable(spec) + ": ";
    KernelRef r;
    r.spec = spec;
    const std::optional<SpecParts> parts = split_spec(spec);
    if (!parts)
        throw UsageError(head + "no such file or folder, and no folder before an '@' (TREE@REF)");
    if (parts->options) r.options = read_label_options(*parts->options, head);
    const GitResult top = run_git(parts->tree, {"rev-parse", "--show-toplevel"}, scratch);
    if (!top.ok)
        throw UsageError(head + printable(parts->tree) + " is not a git work tree (" +
                         top.first_error_line() + ")");
    r.tree = fs::path(trim_blanks(top.out));
    const std::string& patch = parts->patch;
    r.ref = parts->ref;
    if (r.ref.empty()) throw UsageError(head + "no REF after the '@' (TREE@REF)");
    const GitResult commit = run_git(
        r.tree, {"rev-parse", "--verify", "--quiet", "--end-of-options", r.ref + "^{commit}"},
        scratch);
    if (!commit.ok || trim_blanks(commit.out).empty()) {
        std::string why = head + printable(r.ref) + " is no commit in " + r.tree.string();
        if (const auto plus = r.ref.find('+'); plus != std::string::npos)
            why += " (and " + printable(r.ref.substr(plus + 1)) +
                   " after its '+' is no patch file or folder)";
        throw UsageError(why);
    }
    r.commit = trim_blanks(commit.out);
    const std::string facts = git_output(r.tree, {"log", "-1", "--format=%cD%n%s", r.commit},
                                         scratch, head + "reading commit " + r.commit);
    const auto newline = facts.find('\n');
    r.commit_date = facts.substr(0, newline);
    r.subject = newline == std::string::npos ? "" : facts.substr(newline + 1);
    if (!patch.empty()) {
        const std::vector<fs::path> files = patch_files(fs::absolute(patch));
        if (files.empty())
            throw UsageError(head + "the patch folder " + printable(patch) +
                             " holds no patch file");
        for (const auto& file : files) {
            const auto sha = file_sha256_hex(file);
            if (!sha) throw UsageError(head + "cannot read the patch " + printable(file.string()));
            r.patches.push_back({file, *sha});
        }
    }
    return r;
}

}  // namespace contest::kbuild
