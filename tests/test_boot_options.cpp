// How a --boot bisection's batches boot (boot/boot_options.h): the boot
// layer's `boot` section of the journal, which a journal of an earlier
// contest held in the run's section, under the same name.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "contest/bisect/bisect_state.h"
#include "contest/boot/boot_options.h"
#include "contest/drive/bisection_journal.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// tests/data/bisect-boot-journal.json: the journal of a `contest bisect
// --boot` folder, written by contest at 0df4c06 (drive::bisection_journal
// and bisect::write_bisect_state, the boot options then a field of the
// run's section), its two folders (/tmp's, the user's cache) then renamed
// /srv/... by hand.
std::string earlier_bisection_journal() {
    return test::slurp(fs::path(CONTEST_TEST_DATA) / "bisect-boot-journal.json");
}

}  // namespace

TEST_CASE(
    "a --boot bisection's journal an earlier contest wrote, its boot options in the run's "
    "section, reads as it did and is written back to the same bytes",
    "[boot][journal][bisect]") {
    const std::string text = earlier_bisection_journal();
    const JournalFile file = JournalFile::from_text(text, "journal");
    REQUIRE(file.has(kBootOptionsSection));
    const RunJournal journal = run_journal_of(file);
    REQUIRE(journal.boot);
    CHECK(journal.boot->method == BootMethod::grub);
    CHECK(journal.boot->boot_max == 40);
    CHECK(journal.boot->keep_built);
    CHECK_FALSE(journal.boot->stop_on_failure);
    CHECK(journal.boot->root == "/");
    CHECK(journal.boot->owner.empty());
    CHECK(journal.config.place == RunPlace::boot);
    CHECK(file.get(bisect::kBisectionStateSection).place == "boot");
    // The run's section no longer holds the field: the boot layer's does.
    CHECK_FALSE(kRunSection.to_json(journal).contains(kBootOptionsField));
    // Written back by this contest, the run's sections put over the file
    // (the bisection's kept): the same bytes, so an earlier contest's
    // bisection goes on under this one and this one's reads as it did.
    JournalFile back = file;
    put_run_journal(back, journal);
    CHECK(back.text() == text);

    // The bisection's own reader (its folder's journal, checked as a start
    // checks one) takes it too.
    test::ScratchDir dir("boot-options");
    test::put_file(dir / kRunJournalName, text);
    const RunJournal read = drive::read_bisection_journal(dir.path());
    REQUIRE(read.boot);
    CHECK(read.boot->boot_max == 40);
}

TEST_CASE(
    "the boot section: null in the journal of a run of no boot options, absent read as none, and "
    "its fields checked",
    "[boot][journal]") {
    nlohmann::json j = nlohmann::json::parse(earlier_bisection_journal());
    j.erase("bisection");
    const auto read = [&](const nlohmann::json& journal) {
        return run_journal_from_text(journal.dump(), "journal");
    };
    // Null: a bisection in guests (and every run's journal an earlier
    // contest wrote), written back as null.
    j["boot"] = nullptr;
    const RunJournal guests = read(j);
    CHECK_FALSE(guests.boot);
    CHECK(nlohmann::json::parse(run_journal_text(guests)).at("boot").is_null());
    // Absent: none.
    j.erase("boot");
    CHECK_FALSE(read(j).boot);
    // Its fields checked, named where the run's section named them.
    j["boot"] = {{"method", "grub"},
                 {"boot_max", 0},
                 {"stop_on_failure", false},
                 {"keep_built", false},
                 {"root", "relative"}};
    CHECK_THROWS_WITH(read(j), "journal: boot: root: not an absolute path");
    j["boot"]["root"] = "/";
    j["boot"]["method"] = "lilo";
    CHECK_THROWS_WITH(read(j), Catch::Contains("journal: boot: method:"));
    j["boot"]["method"] = "kexec";
    j["boot"]["then"] = {"bisect", "--continue", "/srv/bisect"};
    CHECK_THROWS_WITH(read(j), Catch::Contains("journal: boot: then: not empty"));
    j["boot"].erase("then");
    j["boot"]["owner"] = "/srv/bisect";
    CHECK(read(j).boot->owner == "/srv/bisect");
}
