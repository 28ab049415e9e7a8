#include "contest/sys/journal_file.h"

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_record.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"

namespace contest {

namespace fs = std::filesystem;

namespace {

// The longest a change waits for another's to end: a change is a read and
// a write of a few kilobytes, so a lock held this long is a contest stopped
// (SIGSTOP, a debugger) while it held it.
constexpr auto kLockWait = std::chrono::seconds(60);

bool is_journal_field(const std::string& name) {
    return std::any_of(std::begin(kJournalFields), std::end(kJournalFields),
                       [&](const char* f) { return name == f; });
}

// The folder of the journal at path, locked (flock) while this lives: the
// folder, not the file, since each write replaces the file (a lock on the
// file replaced would guard nothing) and a lock file beside each journal
// would be one more file in every results folder. Close-on-exec: nothing
// contest starts keeps it.
class FolderLock {
  public:
    explicit FolderLock(const fs::path& journal) {
        const fs::path folder = journal.has_parent_path() ? journal.parent_path() : fs::path(".");
        fd_ = UniqueFd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (fd_.get() < 0)
            throw EnvironmentError("the journal " + printable(journal.string()) +
                                   ": cannot open its folder to lock it: " + std::strerror(errno));
        const auto deadline = std::chrono::steady_clock::now() + kLockWait;
        while (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
            // A file system that locks no folder (NFS emulates flock by
            // byte-range locks, which need a file open for writing): the
            // change goes on unguarded, as every change did before the lock.
            if (errno == EBADF || errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL) return;
            if (errno != EWOULDBLOCK && errno != EINTR)
                throw EnvironmentError("the journal " + printable(journal.string()) +
                                       ": cannot lock its folder: " + std::strerror(errno));
            if (std::chrono::steady_clock::now() > deadline)
                throw EnvironmentError("the journal " + printable(journal.string()) +
                                       ": its folder stayed locked by another contest for 60 s");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    // The lock goes with the descriptor.

  private:
    UniqueFd fd_;
};

}  // namespace

fs::path folder_journal_path(const fs::path& folder) {
    const fs::path named = folder / kRunJournalName;
    const fs::path old = folder / kOldFolderJournalName;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(named, ec)) && fs::exists(fs::symlink_status(old, ec)))
        return old;
    return named;
}

bool has_folder_journal(const fs::path& folder) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(folder_journal_path(folder), ec));
}

nlohmann::json journal_section_json_from_text(const std::string& text, const std::string& where) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw UsageError(where + ": not JSON");
    return j;
}

JournalFile::JournalFile(fs::path path) : JournalFile(std::move(path), nlohmann::json::object()) {}

JournalFile::JournalFile(fs::path path, nlohmann::json fields)
    : path_(std::move(path)), where_(printable(path_.string())), fields_(std::move(fields)) {}

JournalFile JournalFile::from_text(const std::string& text, const std::string& where) {
    nlohmann::json j = journal_section_json_from_text(text, where);
    take_schema(j, kRunJournalSchema, where);
    for (const auto& [name, value] : j.items())
        if (!is_journal_field(name))
            throw UsageError(where + ": " + printable(name) +
                             ": a field this contest does not know");
    JournalFile journal({}, std::move(j));
    journal.where_ = where;
    return journal;
}

JournalFile JournalFile::read(const fs::path& path_in, const std::string& what) {
    const fs::path path = path_in.lexically_normal();
    const std::string where = printable(path.string());
    const RegularFileRead got =
        read_regular_file_at(AT_FDCWD, path.c_str(), kMaxRunJournalBytes, false);
    // A path that names something else (a FIFO, a device, a link, a folder,
    // nothing) is what was typed; a file that cannot be read is the machine.
    using R = RegularFileRead::Refusal;
    const bool named_wrong =
        got.refusal == R::symlink || got.refusal == R::not_regular || got.refusal == R::too_large ||
        (got.refusal == R::cannot_open && (got.error == ENOENT || got.error == ENOTDIR ||
                                           got.error == EISDIR || got.error == ELOOP));
    if (named_wrong) throw UsageError(what + " " + where + ": " + got.why());
    if (got.refusal != R::none) throw EnvironmentError(what + " " + where + ": " + got.why());
    JournalFile journal = from_text(got.text, where);
    journal.path_ = path;
    return journal;
}

void JournalFile::update(const fs::path& path_in, const std::string& what,
                         const std::function<void(JournalFile&)>& change, IfAbsent absent) {
    const fs::path path = path_in.lexically_normal();
    const FolderLock lock(path);
    std::error_code ec;
    JournalFile journal = absent == IfAbsent::made && !fs::exists(fs::symlink_status(path, ec))
                              ? JournalFile(path)
                              : read(path, what);
    change(journal);
    journal.write();
}

bool JournalFile::holds_any(const std::vector<const char*>& fields) const {
    return std::any_of(fields.begin(), fields.end(),
                       [&](const char* f) { return fields_.contains(f); });
}

nlohmann::json JournalFile::fields_of(const std::vector<const char*>& fields) const {
    nlohmann::json out = nlohmann::json::object();
    for (const char* f : fields)
        if (const auto it = fields_.find(f); it != fields_.end()) out[f] = *it;
    return out;
}

void JournalFile::replace_fields(const std::vector<const char*>& fields,
                                 const nlohmann::json& value) {
    for (const auto& item : value.items()) {
        const std::string& name = item.key();
        if (std::none_of(fields.begin(), fields.end(), [&](const char* f) { return name == f; }))
            throw std::logic_error("a journal section wrote '" + name + "', no field of its own");
    }
    for (const char* f : fields) fields_.erase(f);
    for (const auto& [name, v] : value.items()) fields_[name] = v;
}

std::string JournalFile::text() const {
    nlohmann::json j = fields_;
    j["schema"] = kRunJournalSchema;
    return j.dump(2) + "\n";
}

void JournalFile::write() const {
    write_file_atomically(path_, text());
}

bool JournalFile::create() const {
    return create_file_atomically(path_, text());
}

}  // namespace contest
