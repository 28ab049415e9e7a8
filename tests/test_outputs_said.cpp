// The texts a person reads of the bisection, the track, the history's
// triage and hosts and a --boot run's status, rendered through the outputs table
// (report/outputs.h): each use offered by text alone, and each renderer given a model of its own
// (as the bisection's layer, the track's and the history's command fill it)
// says what that model holds.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "contest/report/outputs.h"
#include "contest/sys/errors.h"

using namespace contest;

TEST_CASE(
    "the bisection's, the track's and the history's triage and hosts' texts are uses "
    "of the outputs table, in text alone",
    "[outputs]") {
    for (OutputUse use :
         {OutputUse::bisection, OutputUse::track_status, OutputUse::track_mail,
          OutputUse::history_triage, OutputUse::history_hosts, OutputUse::boot_status}) {
        CHECK(output_names(use) == "text");
        CHECK(find_output("text", use).offered_by(use));
        CHECK_THROWS_AS(find_output("json", use), UsageError);
        CHECK(output_option(use).empty());  // no option chooses its format
    }
    CHECK_THROWS_WITH(find_output("html", OutputUse::track_status),
                      Catch::Contains("for contest report (track --status: text)"));
    const std::string where = offered_where(find_output("text", OutputUse::bisection));
    for (const char* use :
         {"contest bisect", "contest track --status", "contest track's mails",
          "contest history triage", "contest history hosts", "contest run --boot-status"})
        CHECK_THAT(where, Catch::Contains(use));
}

namespace {

BisectionAnswer answer() {
    BisectionAnswer a;
    a.good = "aaaaaaaaaaaa";
    a.bad = "bbbbbbbbbbbb";
    a.measure = "time:process_load";
    a.ends_state = EndsState::differ;
    a.ends_why = "they differ";
    BisectionAnswerStep bad{.commit = "cccccccccccc",
                            .subject = "sched: \x1b[31mred",
                            .state = StepClass::like_bad,
                            .sureness = 0.9996,
                            .over_halfway = 0.97,
                            .rounds = 4,
                            .position = 0.93,
                            .why = "",
                            .cache_hit = false,
                            .build_s = 200,
                            .guests_s = 100,
                            .boots_s = 12,
                            .seconds = 321};
    BisectionAnswerStep skipped = bad;
    skipped.commit = "dddddddddddd";
    skipped.state = StepClass::unknown;
    skipped.why = "does not build";
    skipped.build_s = 0;
    skipped.guests_s = 0;
    skipped.cache_hit = true;
    a.steps = {bad, skipped};
    a.finished = true;
    a.first_bad = std::string(40, 'c');
    a.first_bad_subject = "sched: the culprit";
    a.first_bad_author = "A U Thor <a@example.org>";
    a.sureness = 0.991;
    a.ends_min_rounds = 3;
    a.ends_max_rounds = 12;
    a.ends_level = 0.01;
    a.ends_false_differ = 0.048;
    a.seconds = 4000;
    return a;
}

}  // namespace

TEST_CASE("the bisection's answer, or its batch started across reboots, rendered from its model",
          "[outputs][bisect]") {
    const auto text = find_output("text", OutputUse::bisection).bisection;
    CHECK(text(answer()) ==
          "contest bisect: aaaaaaaaaaaa (good) .. bbbbbbbbbbbb (bad) on time:process_load\n"
          "ends: they differ\n"
          "step 1: cccccccccccc sched: \\e[31mred: like bad (99.96% sure over the other end, "
          "97.0% over halfway, 4 rounds, at 0.93 of the way from good to bad), 321.0 s (build "
          "200.0 s; guests 100.0 s, of it booting 12.0 s)\n"
          "step 2: dddddddddddd sched: \\e[31mred: cannot tell, skipped: does not build, "
          "321.0 s (built before: the cache's)\n"
          "first bad commit: " +
              std::string(40, 'c') +
              " sched: the culprit (A U Thor <a@example.org>)\n"
              "how sure: 99.1% that every step is right, if the ends differ; the ends' test (a "
              "look after each of rounds 3 to 12 at p < 0.01) says they differ when they do not "
              "4.8% of the time: at least 94.3% in all\n"
              "the whole bisection took 4000.0 s\n");
    BisectionAnswer under_way = answer();
    under_way.finished = false;
    under_way.across_reboots = true;
    under_way.steps.resize(1);
    CHECK_THAT(text(under_way),
               Catch::EndsWith("under way: 1 step taken so far, across reboots of this machine\n"));
    BisectionAnswer part = answer();
    part.part = BisectionPartStarted{1, "/r/b/batch-2", "/r/b"};
    CHECK(text(part) ==
          "contest bisect: 1 round started in /r/b/batch-2: this machine reboots through their "
          "turns, and the bisection goes on by itself after them (contest run --boot-status "
          "--results /r/b/batch-2; contest post /r/b for where it stands)\n");
}

TEST_CASE("the track's status rendered from its model", "[outputs][track]") {
    TrackStatus s;
    s.tree = "/srv/linux";
    s.branch = "master";
    s.from = "aaaaaaaaaaaa";
    s.every = "tag";
    s.head = true;
    s.measure = "time:process_load";
    s.holder = 4242;
    s.points = {{"v6.1", "aaaaaaaaaaaa", "stored", 600.0, 1, ""},
                {"v6.2", "bbbbbbbbbbbb", "failed", std::nullopt, 3, "does not build"},
                {"v6.3", "cccccccccccc", "pending", std::nullopt, 0, ""}};
    s.stored = 1;
    s.failed = 1;
    s.to_do = 1;
    s.owed = 1;
    s.stored_seconds = 600;
    TrackStatusChange c;
    c.series = "m1/w1/process_load/wall_s";
    c.change = 0.123;
    c.before = "aaaaaaaaaaaa";
    c.after = "cccccccccccc";
    c.status = "bisecting";
    c.bisecting = true;
    c.bisect_folder = "changes/001/bisect";
    TrackStatusChange mailed = c;
    mailed.status = "mailed";
    mailed.bisecting = false;
    mailed.first_bad = "ffffffffffff";
    mailed.first_bad_subject = "mm: a subject";
    mailed.mail = "track-f.mail";
    s.changes = {c, mailed};
    s.mails = 1;
    CHECK(find_output("text", OutputUse::track_status).track_status(s) ==
          "track of /srv/linux master from aaaaaaaaaaaa, every tag and its head, on "
          "time:process_load\n"
          "taken now by pid 4242\n"
          "points: 3, 1 stored, 1 failed, 1 to do (1 measured, owed to the database: the next "
          "start stores them) (about 600.0 s left at 600.0 s a point)\n"
          "  1. v6.1 aaaaaaaaaaaa: stored, 600.0 s\n"
          "  2. v6.2 bbbbbbbbbbbb: failed, 3 runs started: does not build\n"
          "  3. v6.3 cccccccccccc: pending\n"
          "changes: 2\n"
          "  m1/w1/process_load/wall_s +12.3% between aaaaaaaaaaaa and cccccccccccc: bisecting "
          "(its state: changes/001/bisect, contest post shows it)\n"
          "  m1/w1/process_load/wall_s +12.3% between aaaaaaaaaaaa and cccccccccccc: mailed, "
          "first bad commit ffffffffffff mm: a subject, mail track-f.mail\n"
          "mails: 1\n");
}

TEST_CASE("the track's mail rendered from its model", "[outputs][track]") {
    TrackMail m;
    m.tree = "/srv/linux";
    m.branch = "master";
    m.every = "7";
    m.from = "aaaaaaaaaaaa";
    m.measure = "loads:process_load";
    m.load = "process_load";
    m.row = "loads";
    m.change = -0.733;
    m.confirmed = TrackMailConfirmed{10, 4, 1.07, -0.733};
    m.confirm_why = "the ends differ";
    m.series = "m1/w1/process_load/load_units_per_s";
    m.series_change = -0.7;
    m.p = 1e-5;
    m.before = "v6.1";
    m.after = "v6.2";
    m.ends_rounds = 5;
    m.shift = -3;
    m.group = {"#2 another change"};
    m.bisection = answer();
    m.command = {"contest", "track", "/srv/linux", "--", "-w", "a b"};
    const std::string mail = find_output("text", OutputUse::track_mail).track_mail(m);
    // The mail up to its signature: folded to the post's columns, the
    // terminal's escape in a subject made printable, the words quoted.
    CHECK(mail.substr(0, mail.find("\n-- \n")) ==
          "Subject: [contest] track: cccccccccccc sched: the culprit:\n"
          "  loads:process_load -73.3%\n"
          "MIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=utf-8\n"
          "Content-Transfer-Encoding: 8bit\n"
          "\n"
          "contest track noticed a -73.3% change of loads:process_load (its\n"
          "  confirmation's figure) due to commit:\n"
          "\n"
          "commit: cccccccccccccccccccccccccccccccccccccccc\n"
          "  (\"sched: the culprit\")\n"
          "author: A U Thor <a@example.org>\n"
          "in: /srv/linux master, tracked every 7 commits from aaaaaaaaaaaa\n"
          "\n"
          "The change of loads:process_load, each figure named:\n"
          "- the confirmation's, the figure of record: -73.3% (4 -> 1.07, each the mean\n"
          "  of the 10 interleaved rounds of the two measured again together); its\n"
          "  test: the ends differ\n"
          "- the series': the series m1/w1/process_load/load_units_per_s moved -70.0%\n"
          "  (p <0.0001) between v6.1 and v6.2, the points around it\n"
          "- the bisection's ends' (its own measuring, below): bad - good = -3 over 5\n"
          "  rounds\n"
          "\n"
          "Its alert (the database's changes between the same two kernels):\n"
          "  #2 another change\n"
          "\n"
          "The bisection between them:\n"
          "contest bisect: aaaaaaaaaaaa (good) .. bbbbbbbbbbbb (bad) on\n"
          "  time:process_load\n"
          "ends: they differ\n"
          "step 1: cccccccccccc sched: \\e[31mred: like bad (99.96% sure over the other\n"
          "  end, 97.0% over halfway, 4 rounds, at 0.93 of the way from good to bad),\n"
          "  321.0 s (build 200.0 s; guests 100.0 s, of it booting 12.0 s)\n"
          "step 2: dddddddddddd sched: \\e[31mred: cannot tell, skipped: does not build,\n"
          "  321.0 s (built before: the cache's)\n"
          "first bad commit: cccccccccccccccccccccccccccccccccccccccc sched: the\n"
          "  culprit (A U Thor <a@example.org>)\n"
          "how sure: 99.1% that every step is right, if the ends differ; the ends' test\n"
          "  (a look after each of rounds 3 to 12 at p < 0.01) says they differ when\n"
          "  they do not 4.8% of the time: at least 94.3% in all\n"
          "the whole bisection took 4000.0 s\n"
          "\n"
          "How the track runs:\n"
          "  $ contest track /srv/linux -- -w \"a b\"\n");
    // A neighbour's change: found at another pair's split.
    m.neighbour = true;
    m.split_before = "v6.0";
    m.split_after = "v6.1";
    std::string unfolded = find_output("text", OutputUse::track_mail).track_mail(m);
    for (auto at = unfolded.find("\n  "); at != std::string::npos; at = unfolded.find("\n  "))
        unfolded.replace(at, 3, " ");
    CHECK_THAT(unfolded, Catch::Contains("moved -70.0% (p <0.0001) at the split between v6.0 and "
                                         "v6.1, whose confirmation could not tell them apart (one "
                                         "of them measured on another day's footing); the change "
                                         "lies between the next pair, v6.1 and v6.2\n"));
}

TEST_CASE("contest history's triage and hosts rendered from their models", "[outputs][history]") {
    HistoryTriage t;
    t.id = 7;
    t.status = "fixed";
    t.series = "m1/w1/io_load/wall_s";
    t.machine = "vm (2 CPUs)";
    t.moved = -0.17;
    t.before = "6.1 @aaa";
    t.after = "6.2 @bbb";
    t.settings = {{"2026-01-01T00:00:00Z", "untriaged", "ann@lab", 0, "", "found"},
                  {"2026-01-02T00:00:00Z", "downstream", "bob", 3, "https://bugs/1", "\x1b[31m"}};
    const auto triage = find_output("text", OutputUse::history_triage).history_triage;
    CHECK(triage(t) ==
          "#7 fixed m1/w1/io_load/wall_s (vm (2 CPUs)): -17.0% between 6.1 @aaa and 6.2 @bbb\n"
          "  2026-01-01T00:00:00Z untriaged by ann@lab: found\n"
          "  2026-01-02T00:00:00Z downstream by bob (downstream of #3) https://bugs/1: "
          "\\e[31m\n");
    t.set = true;
    t.by = "bob";
    t.at = "2026-01-03T00:00:00Z";
    CHECK(triage(t) ==
          "#7 m1/w1/io_load/wall_s between 6.1 @aaa and 6.2 @bbb: fixed (by bob, "
          "2026-01-03T00:00:00Z)\n");

    HistoryHosts h;
    h.database = "h.sqlite";
    h.results = "results";
    const auto hosts = find_output("text", OutputUse::history_hosts).history_hosts;
    CHECK(hosts(h) == "no host in h.sqlite\nthis machine's results owes nothing to h.sqlite\n");
    HistoryHostRow row;
    row.name = "vm (2 CPUs)";
    row.last_started_at = "2026-12-01T12:14:09Z";
    row.files = 2;
    row.runs = 12;
    row.failed_runs = 1;
    row.last_kernel = "6.1";
    row.last_label = "rt";
    row.series = 118;
    row.loads = {"a", "b", "c", "d"};
    row.trees = {"t1", "t2", "t3"};
    row.last_failure = "timed out";
    h.hosts = {row};
    h.owed = 2;
    CHECK(hosts(h) ==
          "last run started     files   runs failed  host\n"
          "2026-12-01T12:14:09Z     2     12      1  vm (2 CPUs)\n"
          "    last kernel 6.1 (rt); 118 series; loads a, b, c and 1 more; labels -; trees t1, "
          "t2 and 1 more\n"
          "    its last failed run: timed out\n"
          "this machine's results owes 2 save(s) (contest history sync brings them in) to "
          "h.sqlite\n");
}

TEST_CASE("where a --boot run stands rendered from its model", "[outputs][boot]") {
    const auto text = find_output("text", OutputUse::boot_status).boot_status;
    BootStatus s;
    s.results = "/r/results";
    CHECK(text(s) == "no boot run in /r/results\n");
    s.found = true;
    s.started_at = "2026-12-02T12:00:00Z";
    s.phase = "running";
    s.note = "waiting\x1b";
    s.method = "kexec";
    s.taken = 1;
    s.failed = 1;
    s.boots_asked = 2;
    s.boot_max = 6;
    s.start_release = "6.1.0-57-amd64";
    s.start_cmdline = "root=/dev/sda1 ro";
    s.labels = {{"a", "/boot/vmlinuz-x", "panic=10"}, {"b", "/boot/vmlinuz-y", ""}};
    s.turns = {{1, "b", "done"}, {1, "a", "boot_failed"}, {2, "a", "pending"}};
    s.boots = {{"2026-12-02T12:01:00Z", "b", "6.2", 123.456789, "measured"}};
    s.step = 4242;
    s.unit = "/etc/systemd/system/contest-boot.service";
    CHECK(text(s) ==
          "boot run 2026-12-02T12:00:00Z: running (waiting\\e)\n"
          "  method kexec, 3 turns: 1 taken, 1 failed, 1 to go; 2 boots asked of at "
          "most 6\n"
          "  started in 6.1.0-57-amd64 (root=/dev/sda1 ro)\n"
          "  a: /boot/vmlinuz-x  cmdline: panic=10\n"
          "  b: /boot/vmlinuz-y\n"
          "  round 1  b  done\n"
          "  round 1  a  boot_failed\n"
          "  round 2  a  pending\n"
          "  boot 2026-12-02T12:01:00Z  expected b  got 6.2  up 123.457 s  measured\n"
          "  a step under way: pid 4242\n"
          "  unit /etc/systemd/system/contest-boot.service\n");
    s.unit.clear();
    s.other_unit = "/r/other/.run-journal";
    CHECK_THAT(text(s), Catch::EndsWith("  the machine's unit is another run's "
                                        "(/r/other/.run-journal)\n"));
}
