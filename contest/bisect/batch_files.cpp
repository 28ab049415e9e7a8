#include "contest/bisect/batch_files.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/journal_turns.h"

namespace contest::bisect {

namespace fs = std::filesystem;

namespace {

// The files of `labels` in `folder`, one folder a label.
std::vector<ResultFile> label_files(const fs::path& folder,
                                    const std::vector<std::string>& labels) {
    std::vector<fs::path> folders;
    std::error_code ec;
    for (const auto& label : labels)
        if (fs::is_directory(folder / label, ec)) folders.push_back(folder / label);
    std::vector<std::string> refused;
    return folders.empty() ? std::vector<ResultFile>{} : read_result_paths(folders, refused);
}

}  // namespace

fs::path part_folder(const fs::path& batch, unsigned n) {
    return batch / ("part-" + std::to_string(n));
}

std::vector<ResultFile> merged_parts(const std::vector<std::vector<ResultFile>>& parts,
                                     unsigned& rounds) {
    std::vector<ResultFile> merged;
    int offset = 0;
    for (const auto& files : parts) {
        int last = 0;
        for (const auto& f : files) {
            auto into = std::find_if(merged.begin(), merged.end(),
                                     [&](const ResultFile& m) { return m.label == f.label; });
            if (into == merged.end()) {
                into = merged.insert(merged.end(), f);
                into->runs.clear();
            }
            for (RunRecord r : f.runs) {
                last = std::max(last, r.round);
                r.round += offset;
                into->runs.push_back(std::move(r));
            }
            into->finished_at = f.finished_at;
            into->complete = into->complete && f.complete;
        }
        offset += last;
    }
    rounds = static_cast<unsigned>(offset);
    return merged;
}

std::optional<fs::path> interrupted_run(const fs::path& batch) {
    std::vector<fs::path> journals;
    std::error_code ec;
    for (const auto& label : fs::directory_iterator(batch, ec)) {
        if (!label.is_directory(ec) || label.is_symlink(ec)) continue;
        for (const auto& e : fs::directory_iterator(label.path(), ec))
            if (e.path().extension() == kJournalExtension && e.is_regular_file(ec) &&
                !e.is_symlink(ec))
                journals.push_back(e.path());
    }
    if (journals.size() != 1) return std::nullopt;
    // Its plan and files read by their sections' readers (a field of another
    // type is no run to take on), a turn of it not taken (one started and
    // cut short among them).
    std::vector<fs::path> results;
    try {
        const JournalFile journal = JournalFile::read(journals.front(), "the batch's run journal");
        results = journal.get(kResultsSection).files;
        if (results.empty()) return std::nullopt;
        const JournalTurns turns = journal_turns_of(journal, results.size());
        if (turns.first_not_taken() == turns.list.size()) return std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;  // not one this contest takes on: the batch again
    }
    bool one_to_continue = false;
    const fs::path folder = fs::absolute(batch).lexically_normal();
    for (const auto& result : results) {
        const fs::path file = fs::absolute(result).lexically_normal();
        const fs::path rel = file.lexically_relative(folder);
        if (rel.empty() || *rel.begin() == "..") return std::nullopt;
        if (!fs::is_regular_file(fs::symlink_status(file, ec))) continue;
        try {
            if (read_result_file(file).complete) return std::nullopt;
        } catch (const std::exception&) {
            return std::nullopt;
        }
        one_to_continue = true;
    }
    if (!one_to_continue) return std::nullopt;
    return journals.front();
}

BatchFiles read_batch(const fs::path& batch, const std::vector<std::string>& labels) {
    BatchFiles out;
    // A part's folder without its run's state is a start that was refused or
    // cut before it wrote one (its build logs, at most): no part, and the
    // next start goes into it.
    for (unsigned n = 1;; ++n) {
        const fs::path part = part_folder(batch, n);
        if (!has_folder_journal(part)) break;
        out.parts.push_back(label_files(part, labels));
    }
    if (!out.parts.empty()) {
        out.files = merged_parts(out.parts, out.rounds);
        return out;
    }
    out.files = label_files(batch, labels);
    std::set<int> rounds;
    for (const auto& f : out.files)
        for (const auto& r : f.runs) rounds.insert(r.round);
    out.rounds = static_cast<unsigned>(rounds.size());
    return out;
}

}  // namespace contest::bisect
