// The journal file's one owner (sys/journal_file.h): sections kept apart,
// read-lock-modify-write under a lock, the file read as untrusted, and the
// names of earlier contests read.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/bisect/bisect_state.h"
#include "contest/boot/boot_files.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/journal_turns.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;

namespace {

// Two layers' sections in miniature: a count each, in a field of its own.
nlohmann::json count_json(const char* field, unsigned n) {
    return {{field, nlohmann::json{{"count", n}}}};
}
unsigned count_of(const char* field, const nlohmann::json& fields) {
    return fields.contains(field) ? fields.at(field).at("count").get<unsigned>() : 0;
}
const JournalSection<unsigned> kBootCount{
    {kBootRunSection},
    [](const unsigned& n) { return count_json(kBootRunSection, n); },
    [](const nlohmann::json& f, const std::string&) { return count_of(kBootRunSection, f); }};
const JournalSection<unsigned> kBisectCount{
    {kBisectionSection},
    [](const unsigned& n) { return count_json(kBisectionSection, n); },
    [](const nlohmann::json& f, const std::string&) { return count_of(kBisectionSection, f); }};

std::string schema_text() {
    return "\"schema\": " + std::to_string(kRunJournalSchema);
}

}  // namespace

TEST_CASE("the journal: two writers at once, each its own section, lose no change", "[journal]") {
    test::ScratchDir dir("journal-lock");
    const fs::path path = dir / kRunJournalName;
    JournalFile(path).write();
    // Each writer counts in its section, reading its count from the file:
    // a write of the other's made of a read before this one's write would
    // take this one's count back, and the file would end short.
    constexpr unsigned kEach = 150;
    const auto count = [&](const JournalSection<unsigned>& section) {
        for (unsigned i = 0; i < kEach; ++i)
            JournalFile::update(path, "the journal", [&](JournalFile& journal) {
                journal.put(section, journal.get(section) + 1);
            });
    };
    // Two processes, as two contests are (a --boot step and --boot-abort).
    const auto writer = [&](const JournalSection<unsigned>& section) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            try {
                count(section);
            } catch (...) {
                ::_exit(1);
            }
            ::_exit(0);
        }
        return pid;
    };
    const pid_t boot = writer(kBootCount);
    const pid_t bisect = writer(kBisectCount);
    int boot_status = -1, bisect_status = -1;
    REQUIRE(::waitpid(boot, &boot_status, 0) == boot);
    REQUIRE(::waitpid(bisect, &bisect_status, 0) == bisect);
    CHECK(boot_status == 0);
    CHECK(bisect_status == 0);
    const JournalFile after = JournalFile::read(path, "the journal");
    CHECK(after.get(kBootCount) == kEach);
    CHECK(after.get(kBisectCount) == kEach);
    // The lock is the folder's: nothing beside the journal is left.
    CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);
}

TEST_CASE(
    "the journal: a section put replaces its fields alone, and a change that throws writes nothing",
    "[journal]") {
    test::ScratchDir dir("journal-sections");
    const fs::path path = dir / kRunJournalName;
    JournalFile made(path);
    made.put(kBootCount, 3);
    made.put(kBisectCount, 4);
    made.write();
    JournalFile::update(path, "the journal",
                        [](JournalFile& journal) { journal.put(kBootCount, 5); });
    const JournalFile read = JournalFile::read(path, "the journal");
    CHECK(read.get(kBootCount) == 5);
    CHECK(read.get(kBisectCount) == 4);
    const std::string before = test::slurp(path);
    CHECK_THROWS_AS(JournalFile::update(path, "the journal",
                                        [](JournalFile& journal) {
                                            journal.put(kBootCount, 6);
                                            throw UsageError("no");
                                        }),
                    UsageError);
    CHECK(test::slurp(path) == before);
    // Absent: refused, or made when asked.
    CHECK_THROWS_AS(JournalFile::update(dir / "none", "the journal", [](JournalFile&) {}),
                    UsageError);
    JournalFile::update(
        dir / "made", "the journal", [](JournalFile& journal) { journal.put(kBisectCount, 1); },
        JournalFile::IfAbsent::made);
    CHECK(JournalFile::read(dir / "made", "the journal").get(kBisectCount) == 1);
    // A claim: made once, then refused without a change.
    JournalFile claim(dir / "claim");
    CHECK(claim.create());
    claim.put(kBootCount, 9);
    CHECK_FALSE(claim.create());
    CHECK_FALSE(JournalFile::read(dir / "claim", "the journal").has(kBootCount));
}

TEST_CASE("the journal is read as untrusted: no link, no FIFO, bounded, its schema, its fields",
          "[journal]") {
    test::ScratchDir dir("journal-untrusted");
    JournalFile(dir / "good").write();
    const auto refusal = [&](const fs::path& path) -> std::string {
        try {
            JournalFile::read(path, "the journal");
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()).find('\n') == std::string::npos);
            return e.what();
        }
        return "read";
    };
    CHECK(refusal(dir / "good") == "read");
    fs::create_symlink(dir / "good", dir / "link");
    CHECK_THAT(refusal(dir / "link"), Catch::Contains("a symbolic link, not followed"));
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
    CHECK_THAT(refusal(dir / "fifo"), Catch::Contains("not a regular file"));
    test::put_file(dir / "big", "{" + schema_text() + ", \"started_at\": \"" +
                                    std::string(kMaxRunJournalBytes, 'x') + "\"}");
    CHECK_THAT(refusal(dir / "big"), Catch::Contains("too large"));
    test::put_file(dir / "newer", "{\"schema\": " + std::to_string(kRunJournalSchema + 1) + "}");
    CHECK_THAT(refusal(dir / "newer"), Catch::Contains("is newer than this contest's"));
    test::put_file(dir / "foreign", "{" + schema_text() + ", \"planted\": 1}");
    CHECK(refusal(dir / "foreign") ==
          (dir / "foreign").string() + ": planted: a field this contest does not know");
    test::put_file(dir / "text", "not json");
    CHECK(refusal(dir / "text") == (dir / "text").string() + ": not JSON");
    CHECK_THAT(refusal(dir / "absent"), Catch::Contains("the journal"));
}

TEST_CASE("the journal: a folder's of an earlier contest (.run-journal.json) is read and kept",
          "[journal]") {
    test::ScratchDir dir("journal-old-name");
    // None there: today's name.
    CHECK(folder_journal_path(dir.path()) == dir / ".run-journal");
    CHECK_FALSE(has_folder_journal(dir.path()));
    // An earlier contest's bisection: read, and written under its own name.
    bisect::BisectState s;
    s.tree = "/t";
    test::put_file(dir / ".run-journal.json",
                   "{" + schema_text() + ", \"bisection\": " + bisect::bisect_state_text(s) + "}");
    CHECK(has_folder_journal(dir.path()));
    CHECK(folder_journal_path(dir.path()) == dir / ".run-journal.json");
    CHECK(bisect::has_bisect_state(dir.path()));
    CHECK(bisect::read_bisect_state(dir.path()).tree == "/t");
    s.tree = "/u";
    bisect::write_bisect_state(dir.path(), s);
    CHECK_FALSE(fs::exists(dir / ".run-journal"));
    CHECK(bisect::read_bisect_state(dir.path()).tree == "/u");
    // A --boot run's results folder of an earlier contest: its state there.
    CHECK(boot_state_path(dir.path()) == fs::canonical(dir.path()) / ".run-journal.json");
    CHECK(boot_lock_path(boot_state_path(dir.path())).filename() == ".run-journal.lock");
    CHECK(boot_lock_path(dir / ".run-journal").filename() == ".run-journal.lock");
    // Both there: today's.
    JournalFile(dir / ".run-journal").write();
    CHECK(folder_journal_path(dir.path()) == dir / ".run-journal");
}
