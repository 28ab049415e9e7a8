// The outputs table (contest/report/outputs.h): every output contest
// renders, by name, with the commands that offer it; the commands' checks,
// --help, the manual and the completion read their names from it.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "contest/latency/probe_choice.h"
#include "contest/report/outputs.h"
#include "contest/sys/errors.h"
#include "test_helpers.h"

using namespace contest;

TEST_CASE(
    "the outputs table: each output once, offered somewhere, and found by the uses that "
    "offer it",
    "[outputs]") {
    std::set<std::string_view> names;
    for (const Output& o : outputs()) {
        INFO(o.name);
        CHECK(names.insert(o.name).second);
        CHECK_FALSE(o.what.empty());
        bool offered = false;
        for (OutputUse use :
             {OutputUse::report, OutputUse::compare, OutputUse::post, OutputUse::export_,
              OutputUse::run_summary, OutputUse::latency, OutputUse::trend, OutputUse::history_list,
              OutputUse::history_show, OutputUse::history_changes, OutputUse::history_triage,
              OutputUse::history_hosts, OutputUse::bisection, OutputUse::track_status,
              OutputUse::track_mail, OutputUse::boot_status, OutputUse::loads_list,
              OutputUse::load_work})
            if (o.offered_by(use)) {
                offered = true;
                CHECK(&find_output(std::string(o.name), use) == &o);
                CHECK(output_names(use).find(o.name) != std::string::npos);
                CHECK(outputs_help(use).find(std::string(o.name) + ": " + std::string(o.what)) !=
                      std::string::npos);
            } else {
                CHECK_THROWS_AS(find_output(std::string(o.name), use), UsageError);
            }
        CHECK(offered);
    }
    CHECK(output_names(OutputUse::post) == "contest, lkp or normalized");
    CHECK(output_names(OutputUse::export_) == "kcidb");
    CHECK(output_names(OutputUse::report) == "text, markdown, csv, json or html");
    CHECK(output_names(OutputUse::latency) == "text or json");
    CHECK(output_names(OutputUse::trend) == "html");
    CHECK(output_names(OutputUse::history_list) == "text");
    CHECK(output_names(OutputUse::history_show) == "text");
    CHECK(output_names(OutputUse::history_changes) == "text");
}

TEST_CASE("contest history's list, show and changes are rendered through the outputs table",
          "[outputs][history]") {
    // The list: its columns padded by terminal cells (the machine's name is
    // in the last column, the series' two-byte 'é' one cell).
    HistorySeriesList list{"h.sqlite", {{"m1/wé/io_load/wall_s", 3, 12, "m1", "wé"}}, 2};
    CHECK(find_output("text", OutputUse::history_list).history_list(list) ==
          "series                                   kernels  runs  machine, workload\n"
          "m1/wé/io_load/wall_s                           3    12  m1, wé\n"
          "2 series of other measures (the load's work, latency, ...): --all-measures lists "
          "them, --measure M one measure's\n");
    CHECK(find_output("text", OutputUse::history_list).history_list({"h.sqlite", {}, 0}) ==
          "no series in h.sqlite\n");
    CHECK_THROWS_AS(find_output("json", OutputUse::history_list), UsageError);

    HistorySeriesPoints show{"m1/w1/io_load/wall_s",
                             "m1",
                             "w1",
                             " kernels",
                             "version order",
                             {{"6.1 @0123456789ab", {1, 2, 4}, {"a", "b"}}}};
    CHECK(find_output("text", OutputUse::history_show).history_show(show) ==
          "m1/w1/io_load/wall_s: m1, w1; 1 kernels in version order\n"
          "kernel                            runs       median          min          max  labels\n"
          "6.1 @0123456789ab                    3            2            1            4  a,b\n");

    HistoryChanges changes;
    changes.series = 4;
    changes.alpha = 0.2;
    changes.min_segment = 3;
    changes.min_change = 0.03;
    changes.points_word = " kernels";
    CHECK(find_output("text", OutputUse::history_changes).history_changes(changes) ==
          "no change in 4 series (alpha 0.2, at least 3 kernels a side, at least 3%)\n");
    HistoryAlertChange c;
    c.id = 7;
    c.status = "invalid";
    c.triaged = true;
    c.series = "m1/w1/io_load/wall_s";
    c.change.change = 0.1;
    c.change.low = 0.05;
    c.change.high = 0.15;
    c.change.p = 0.001;
    c.change.before = 5;
    c.change.after = 6;
    c.points = 11;
    c.order = "commit order";
    c.before = "6.1 @aaa";
    c.after = "6.2 @bbb";
    c.by = "ann@lab";
    c.at = "2026-01-02T03:04:05Z";
    c.note = "a noisy host";
    changes.found = 2;
    changes.shown = 1;
    changes.only = "invalid";
    changes.alerts = {
        {"invalid", "6.1 @aaa", "6.2 @bbb", 1, 1, 1, {c}, {{"contest", "compare", "a b", "c"}}}};
    const std::string text =
        find_output("text", OutputUse::history_changes).history_changes(changes);
    CHECK_THAT(text, Catch::StartsWith(
                         "alert 1, invalid: 6.1 @aaa to 6.2 @bbb, 1 change (1 measure, 1 load, "
                         "1 host)\n  #7 [invalid] m1/w1/io_load/wall_s: +10"));
    CHECK_THAT(text, Catch::Contains(" over 11 kernels (commit order), between 6.1 @aaa (the last "
                                     "of 5) and 6.2 @bbb (the first of 6)\n"
                                     "    invalid by ann@lab 2026-01-02T03:04:05Z: a noisy host\n"
                                     "    contest compare \"a b\" c\n"));
    CHECK_THAT(text, Catch::EndsWith("1 of 2 change(s) in 1 alert(s), those invalid; contest "
                                     "history triage ID --status STATE sets one's state\n"));
}

TEST_CASE("contest latency's window and the trend page are rendered through the outputs table",
          "[outputs][latency]") {
    LatencyWindowModel w;
    w.probe.options =
        latency::make_probe_options(latency::parse_probe("cyclic"), latency::ProbeSettings{});
    w.probe.window_s = 2;
    w.load = LatencyWindowModel::Load{"cpu_load", 97.5, std::nullopt};
    const std::string text = find_output("text", OutputUse::latency).latency(w);
    CHECK_THAT(text, Catch::StartsWith("cyclic: next to cpu_load (its CPU 97.5%)\n"
                                       "cyclic: sched other, method clock_ns, period 1000000 ns, "
                                       "window 2.00 s\n"));
    CHECK_THAT(text, Catch::Contains("\ncyclic: samples               0\n"));
    CHECK_THAT(text, Catch::Contains("\ncyclic: mean                  -\n"));
    CHECK_THAT(text, Catch::Contains("\ncyclic:     latency_ns      count\n"));
    const auto json = nlohmann::json::parse(find_output("json", OutputUse::latency).latency(w));
    CHECK(json.at("probe") == "cyclic");
    CHECK(json.at("load").at("name") == "cpu_load");
    CHECK_FALSE(json.contains("why"));
    CHECK_THROWS_WITH(find_output("html", OutputUse::latency),
                      Catch::Contains("(latency: text or json)"));

    TrendPage page;
    page.database = "history.sqlite";
    const std::string html = find_output("html", OutputUse::trend).trend(page);
    CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
    CHECK(html == trend_page_html(page));
    CHECK_THROWS_AS(find_output("text", OutputUse::trend), UsageError);
}

TEST_CASE("the manual, the completion and the commands' help list the outputs from the table",
          "[outputs][e2e]") {
    test::ScratchDir dir("outputs-help");
    const auto man = test::run_contest_binary({"help", "man"}, dir.path(), dir.path());
    REQUIRE(man.exit_code == 0);
    const auto completion =
        test::run_contest_binary({"help", "bash-completion"}, dir.path(), dir.path());
    REQUIRE(completion.exit_code == 0);
    const auto post = test::run_contest_binary({"post", "--help"}, dir.path(), dir.path());
    const auto exported = test::run_contest_binary({"export", "--help"}, dir.path(), dir.path());
    for (const Output& o : outputs()) {
        INFO(o.name);
        std::string in_roff;  // a '-' is "\-" there
        for (char c : o.name) in_roff += c == '-' ? std::string("\\-") : std::string(1, c);
        CHECK(man.out.find(".B " + in_roff + "\n") != std::string::npos);
        if (o.post) CHECK(post.out.find(std::string(o.name) + ": ") != std::string::npos);
        if (o.exported) CHECK(exported.out.find(std::string(o.name) + ": ") != std::string::npos);
    }
    CHECK(completion.out.find("report) values='" + output_names(OutputUse::report, " ", " ")) !=
          std::string::npos);
    CHECK(completion.out.find("--style) COMPREPLY=($(compgen -W '" +
                              output_names(OutputUse::post, " ", " ")) != std::string::npos);
}
