// The drive layer's batch (contest/drive/bisection_drive.h): each batch of
// a bisection is its journal's config with the batch's kernels, rounds and
// folder, a struct copied: no word is made or parsed after the start.
#include <catch2/catch.hpp>
#include <filesystem>

#include "contest/cli/run_options.h"
#include "contest/drive/bisection_drive.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"

using namespace contest;
namespace fs = std::filesystem;

TEST_CASE(
    "a bisection's batch is its journal's config with the batch's kernels, rounds and folder, "
    "no word parsed, even a config no words can give",
    "[bisect][journal]") {
    RunJournal journal;
    journal.started_at = "2026-12-07T00:00:00Z";
    journal.config.workload.workload_cmd = "sh -c 'echo --runs=9 --results=/elsewhere'";
    // A config that no words can give (--db goes once): a batch made of
    // words could not be this one.
    journal.config.sinks = {{SinkKind::results_database, "/srv/a.sqlite"},
                            {SinkKind::results_database, "/srv/b.sqlite"}};
    CHECK_THROWS_AS(run_config_of({"--db=/srv/a.sqlite", "--db=/srv/b.sqlite", "no_load"}),
                    UsageError);
    journal.config.command_line = {"run", "--kernel=good=/t@1", "--kernel=bad=/t@2"};
    journal.config.kernels = {{"good", "/t@1"}, {"bad", "/t@2"}};
    journal.config.runs = 7;
    bisect::BatchNeed need;
    need.kernels = {{"good", "/t@1"}, {"bad", "/t@2"}, {"tested", "/t@3"}};
    need.folder = "/srv/bisect/step-1-abc";
    need.rounds = 2;
    const RunJournal batch = drive::batch_journal(journal, need, "/srv/bisect");
    REQUIRE(batch.config.kernels.size() == 3);
    CHECK(batch.config.kernels[2].label == "tested");
    CHECK(batch.config.kernels[2].image == "/t@3");
    CHECK(batch.config.runs == 2);
    CHECK(batch.config.results_dir == "/srv/bisect/step-1-abc");
    REQUIRE(batch.config.sinks.size() == 2);
    CHECK(batch.config.sinks[1].where == "/srv/b.sqlite");
    CHECK_FALSE(batch.boot);
    // Every other field is the journal's: the two journals' texts the same
    // once the batch's own three are put back.
    RunJournal back = batch;
    back.config.kernels = journal.config.kernels;
    back.config.runs = journal.config.runs;
    back.config.results_dir = journal.config.results_dir;
    CHECK(run_journal_text(back) == run_journal_text(journal));
    // Under --boot the batch is a --boot run of the journal's boot options,
    // owned by the bisection (its part's end hands over to it).
    journal.boot = BootRunOptions{};
    journal.boot->boot_max = 9;
    const RunJournal part = drive::batch_journal(journal, need, "/srv/bisect/step-1-abc/..");
    REQUIRE(part.boot);
    CHECK(part.boot->boot_max == 9);
    CHECK(part.boot->owner == "/srv/bisect");
}
