// contest post (the mail body) and the HTML page: snapshots of both from the
// committed fixtures, the 76-column promise with long labels, the recorded
// command line, the escaping of hostile labels, and the page as headless
// Chromium renders it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "chromium_support.h"
#include "contest/analysis/build_report_model.h"
#include "contest/report/format_post.h"
#include "contest/report/formats.h"
#include "contest/report/outputs.h"
#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;
using namespace contest::test;

using namespace contest::report_test;

namespace {

ReportOptions judged_against(const std::string& baseline, const std::string& format = "text") {
    ReportOptions o;
    o.format = format;
    o.baseline = baseline;
    o.print_warnings = false;
    return o;
}

// Three kernels that differ under cpu_load, with labels of `width` bytes.
std::vector<ResultFile> long_labelled(const std::vector<std::string>& labels) {
    std::mt19937 gen(7);
    std::vector<ResultFile> files;
    double cpu_load = 60;
    for (const auto& label : labels) {
        files.push_back(make_result(label, {{"no_load", normal_sample(gen, 30, 0.2, 5)},
                                            {"cpu_load", normal_sample(gen, cpu_load, 0.3, 5)}}));
        cpu_load += 6;
    }
    return files;
}

}  // namespace

TEST_CASE("snapshot: post", "[post][snapshot]") {
    const std::string post = format_post(fixture_files(), judged_against("6.1.0-hz100"));
    expect_snapshot("post.txt", post);
    check_mail_lines(post);
    CHECK(std::all_of(post.begin(), post.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
    CHECK(post.starts_with("Subject: [contest] 6.1.0-hz100 vs 6.1.0-hz1000, 6.1.0-rt"));
    CHECK(post.find("HZ:\n  6.1.0-hz100: 100\n  6.1.0-hz1000: 1000\n") != std::string::npos);
}

TEST_CASE("snapshot: post of latency runs", "[post][latency][snapshot]") {
    const auto files = latency_fixture();
    const std::string post = format_post(files, judged_against(files.front().label));
    expect_snapshot("latency-post.txt", post);
    check_mail_lines(post);
    CHECK(post.find("cyclic latency (us):") != std::string::npos);
    CHECK(post.find("shortened") == std::string::npos);  // kernel-a and kernel-b fit
}

TEST_CASE("post: labels of 60 characters are shortened, the same everywhere, with a legend",
          "[post]") {
    SECTION("labels that differ from the start: letters") {
        const std::vector<std::string> labels = {std::string(60, 'a'), "b" + std::string(59, 'x'),
                                                 "c" + std::string(59, 'y')};
        const std::string post = format_post(long_labelled(labels), judged_against(labels[0]));
        check_mail_lines(post);
        CHECK(post.find("Labels, shortened in this mail:\n  A = " + labels[0] + "\n  B = " +
                        labels[1] + "\n  C = " + labels[2] + "\n") != std::string::npos);
        CHECK(post.find("\nB against A:\n") != std::string::npos);
        CHECK(post.find("\nC   ") != std::string::npos);  // a table row
        // Each full label is said once, in the legend; everywhere else, its letter.
        const std::vector<std::string> lines = split_lines(post);
        for (const auto& label : labels)
            CHECK(std::count_if(lines.begin(), lines.end(), [&](const std::string& line) {
                      return line.find(label) != std::string::npos;
                  }) == 1);
    }
    SECTION("labels that share a start: shown without it") {
        const std::string start(48, 'k');
        const std::vector<std::string> labels = {start + ",sched=fifo1", start + ",sched=rrrr2"};
        const std::string post = format_post(long_labelled(labels), judged_against(labels[0]));
        check_mail_lines(post);
        CHECK(post.find("  sched=fifo1 = " + labels[0] + "\n") != std::string::npos);
        CHECK(post.find("\nsched=rrrr2 against sched=fifo1:\n") != std::string::npos);
        CHECK(post.find(labels[1] + " ") == std::string::npos);
    }
}

TEST_CASE("post: labels that fit are left as they are", "[post]") {
    const std::string post =
        format_post(long_labelled({"6.1-a", "6.1-b"}), judged_against("6.1-a"));
    CHECK(post.find("shortened") == std::string::npos);
    CHECK(post.find("\n6.1-b against 6.1-a:\n") != std::string::npos);
}

TEST_CASE("post: the recorded command line pastes back into a shell", "[post]") {
    auto files = long_labelled({"base", "new"});
    const std::vector<std::string> words = {"run", "-k", "a label with spaces", "--vary",
                                            "iosched=mq-deadline,bfq", "--config",
                                            "/tmp/" + std::string(90, 'p') + "/x.conf", "$HOME",
                                            // Longer than a line, broken inside: never
                                            // between a backslash and what it escapes.
                                            std::string(150, '$'), "x" + std::string(150, '$'),
                                            "bash's !! and !$ " + std::string(100, '!'), "no_load"};
    for (auto& f : files) f.config["command_line"] = words;
    const std::string post = format_post(files, judged_against("base"));
    check_mail_lines(post);
    const std::size_t at = post.find("How it was run:\n  $ contest ");
    REQUIRE(at != std::string::npos);
    std::string command = post.substr(at + std::string("How it was run:\n  $ contest ").size());
    command = command.substr(0, command.find("\n\n"));
    // The shell joins the lines (a backslash before a line break is dropped)
    // and gives back each word as recorded.
    const std::string printed = shell_output("set -- " + command + "\nprintf '%s\\n' \"$@\"");
    CHECK(printed == join(words, "\n"));
}

TEST_CASE("post: without a recorded command line, says so", "[post]") {
    const std::string post = format_post(fixture_files(), judged_against("6.1.0-hz100"));
    CHECK(post.find("How it was run:\n  not recorded") != std::string::npos);
}

TEST_CASE("post: the kernel facts as kernel_facts records them, and a guest's accelerator",
          "[post]") {
    auto files = long_labelled({"base", "new"});
    for (auto& f : files) {
        f.system["kernel"] = {
            {"config", {{"sha256", f.label == "base" ? "0123456789abcdef" : "fedcba9876543210"}}},
            {"config_hz", "1000"},
            {"preemption",
             {{"config", "full"}, {"dynamic", true}, {"current", {{"value", "lazy"}}}}}};
        f.system["guest"] = {{"accel", "tcg"}};
    }
    const std::string post = format_post(files, judged_against("base"));
    INFO(post);
    CHECK(post.find("\nHZ:" + std::string(14, ' ') + "1000\n") != std::string::npos);
    CHECK(post.find("\nPreemption:" + std::string(6, ' ') + "full (dynamic, now lazy)\n") !=
          std::string::npos);
    CHECK(post.find("\n.config sha256:\n  base: 0123456789ab\n  new: fedcba987654\n") !=
          std::string::npos);
    CHECK(post.find("\nGuest:" + std::string(11, ' ') + "accel=tcg\n") != std::string::npos);
}

namespace {

// The lines of a post of `files`, checked: the mail's header is the Subject
// alone (everything up to the first blank line), and no line anywhere reads
// as a header a result file smuggled in.
std::vector<std::string> post_without_smuggled_headers(const std::vector<ResultFile>& files) {
    const std::string post = format_post(files, judged_against("base"));
    INFO(post);
    check_mail_lines(post);
    const auto lines = split_lines(post);
    const auto blank = std::find(lines.begin(), lines.end(), "");
    REQUIRE(blank != lines.end());
    CHECK(blank - lines.begin() == 1);
    CHECK(lines.front().starts_with("Subject: [contest] base vs new"));
    for (const auto& line : lines)
        for (const char* header : {"Bcc:", "Cc:", "To:", "Reply-To:", "X-Injected:"}) {
            INFO(line);
            CHECK_FALSE(line.starts_with(header));
        }
    return lines;
}

}  // namespace

TEST_CASE("post: a line break in a result file's text adds no mail header", "[post]") {
    // Into the Subject, which names the workload.
    auto files = long_labelled({"base", "new"});
    for (auto& f : files) f.config["workload"] = {{"kind", "kernel\nBcc: x@y"}};
    const auto lines = post_without_smuggled_headers(files);
    // The text is kept, its control characters escaped.
    CHECK(lines.front().find("kernel\\nBcc: x@y") != std::string::npos);

    // And into the body, from every kind of text a file holds.
    files = long_labelled({"base", "new"});
    for (auto& f : files) {
        f.config["workload"] = {{"kind", "kernel"}, {"kernel_config", "c\r\nCc: a@b"}};
        f.config["command_line"] = {"run", "-k", "x\nReply-To: c@d"};
        f.system["hostname"] = "host\nTo: e@f";
        f.system["kernel_release"] = "6.1\nX-Injected: 1";
        f.stopped_because = "done\nX-Injected: 2";
    }
    post_without_smuggled_headers(files);
}

TEST_CASE("contest post: no argument, or an unknown label, is a usage error", "[post][e2e]") {
    ScratchDir dir("post-usage");
    const Outcome none = run_contest_binary({"post"}, dir.path());
    CHECK(none.exit_code == 2);
    CHECK(none.err == "contest: contest post: give the labels or result files to post\n");
    const Outcome unknown = run_contest_binary(
        {"post", "--results", (fs::path(CONTEST_TEST_DATA) / "results" / "kernels").string(),
         "6.1.0-hz100", "no-such-kernel"},
        dir.path());
    CHECK(unknown.exit_code == 2);
    CHECK(
        unknown.err.starts_with("contest: 'no-such-kernel' is neither a result file nor a label"));
    CHECK(unknown.out.empty());
}

TEST_CASE("snapshot: html report and compare", "[html][snapshot]") {
    const std::string page = render_report(fixture_files(), judged_against("6.1.0-hz100", "html"));
    expect_snapshot("report.html", page);
    CHECK(page.starts_with("<!DOCTYPE html>"));
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("href") == std::string::npos);  // nothing fetched, nothing linked
    CHECK(page.find("src=") == std::string::npos);
    const auto files = latency_fixture();
    ReportOptions o = judged_against(files.front().label);
    expect_snapshot("latency-compare.html", format_compare(build_report_model(files, o), "html"));
}

TEST_CASE("html: labels and texts from result files are escaped", "[html]") {
    auto files = long_labelled({"<script>alert(1)</script>", "<img src=x onerror=alert(2)>"});
    files[0].config["command_line"] = {"run", "-k", "</pre><b>x</b>"};
    const std::string page = render_report(files, judged_against(files[0].label, "html"));
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("<img") == std::string::npos);
    CHECK(page.find("<b>x") == std::string::npos);
    CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
}

TEST_CASE("html: a run's timeline is one click away, a run without one says so", "[html]") {
    auto files = fixture_files();
    std::ifstream in(fs::path(CONTEST_TEST_DATA) / "timeline-fixture.json");
    REQUIRE(in.good());
    files.front().runs.front().timeline = nlohmann::json::parse(in);
    const std::string page = render_report(files, judged_against("6.1.0-hz100", "html"));
    const RunRecord& run = files.front().runs.front();
    const std::string summary = "<details><summary>6.1.0-hz100 run " + std::to_string(run.index) +
                                ": " + fixed(run.wall_s, 1) + " s, ok</summary>\n";
    const std::size_t at = page.find(summary);
    REQUIRE(at != std::string::npos);
    CHECK(page.substr(at + summary.size()).starts_with("<svg"));
    CHECK(page.find("<p>no timeline recorded") != std::string::npos);  // the fixtures' other runs
}

TEST_CASE(
    "html: headless Chromium renders the page without a console error, a drawing per load, "
    "a hostile label as text",
    "[html][e2e]") {
    ScratchDir dir("html");
    require_console_seen(dir);

    // The fixtures, one label made hostile.
    const std::string hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    fs::create_directories(dir / "results");
    for (const auto& entry :
         fs::recursive_directory_iterator(fs::path(CONTEST_TEST_DATA) / "results" / "kernels")) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream in(entry.path());
        nlohmann::json j = nlohmann::json::parse(in);
        if (j["label"] == "6.1.0-rt") j["label"] = hostile;
        std::ofstream(dir / "results" /
                      (j["label"] == hostile ? "hostile.json" : entry.path().filename().string()))
            << j.dump();
    }
    const Outcome o =
        run_contest_binary({"report", "--format", "html", (dir / "results").string()}, dir.path());
    REQUIRE(o.exit_code == 0);
    std::ofstream(dir / "page.html") << o.out;

    const Rendered page = render_in_chromium(dir / "page.html", dir);
    INFO(join(page.console, "\n"));
    CHECK(page.console.empty());
    for (const char* id : {"id=\"facts\"", "id=\"contest-table\"", "id=\"verdicts\""})
        CHECK(page.dom.find(id) != std::string::npos);
    for (const char* load : {"no_load", "cacherun", "process_load", "cpu_load"}) {
        const std::size_t at = page.dom.find("<section id=\"load-" + std::string(load) + "\"");
        REQUIRE(at != std::string::npos);
        const std::string section = page.dom.substr(at, page.dom.find("</section>", at) - at);
        CHECK(section.find("<svg") != std::string::npos);
    }
    // The label is text: escaped in the DOM, no element made of it.
    CHECK(page.dom.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(page.dom.find("<script") == std::string::npos);
    CHECK(page.dom.find("<img") == std::string::npos);
}
