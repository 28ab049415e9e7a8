// The history's trend page (contest/report/trend_page.h; docs/history.md,
// "Trend page"): a chart per series grouped by machine and measure, a
// change marked at its kernel, hostile names as text, an empty database
// said; and `contest history page` end to end, as headless Chromium
// renders it.
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "chromium_support.h"
#include "contest/report/trend_page.h"
#include "contest/sys/text.h"
#include "history_support.h"

using namespace contest;
using namespace contest::test;
namespace fs = std::filesystem;

namespace {

// A series of `kernels` kernels k1, k2, ... of three runs each, the runs
// from kernel `step` (from 0) on 30% slower, and a change there.
TrendSeries stepped_series(const std::string& machine, const std::string& measure,
                           std::size_t kernels, std::size_t step) {
    TrendSeries s;
    s.name = "m1/w1/io_load/" + measure;
    s.machine = machine;
    s.workload = "kernel-defconfig -j4";
    s.load = "io_load";
    s.measure = measure;
    s.order = "version order";
    for (std::size_t i = 0; i < kernels; ++i) {
        const double level = i < step ? 100 : 130;
        s.points.push_back({"k" + std::to_string(i + 1),
                            {"label" + std::to_string(i + 1)},
                            {level - 1, level, level + 1.5}});
    }
    ChangePoint c;
    c.index = step;
    c.change = 0.3;
    c.low = 0.28;
    c.high = 0.32;
    c.p = 1e-6;
    c.before = step;
    c.after = kernels - step;
    s.changes = {c};
    return s;
}

// A page of these series, from "h.sqlite".
TrendPage page_of(std::vector<TrendSeries> series) {
    TrendPage page;
    page.database = "h.sqlite";
    page.series = std::move(series);
    return page;
}

// The text of the <figure> whose data-series is `name`.
std::string figure_of(const std::string& page, const std::string& name) {
    const std::size_t at = page.find("data-series=\"" + name + "\"");
    if (at == std::string::npos) return "";
    return page.substr(at, page.find("</figure>", at) - at);
}

}  // namespace

TEST_CASE("history page: a chart per series, by machine and then measure", "[history][page]") {
    TrendPage page;
    page.database = "results/history.sqlite";
    page.series = {stepped_series("m1: alpha", "wall_s", 8, 4),
                   stepped_series("m1: alpha", "user_s", 8, 4),
                   stepped_series("m2: beta", "wall_s", 8, 4)};
    page.series[2].name = "m2/w1/io_load/wall_s";
    const std::string html = trend_page_html(page);
    CHECK(test::count_of(html, "<svg") == 3);
    CHECK(test::count_of(html, "<figure") == 3);
    // A section per machine, a heading per measure in it.
    const std::size_t alpha = html.find("<h2>m1: alpha</h2>");
    const std::size_t beta = html.find("<h2>m2: beta</h2>");
    REQUIRE(alpha != std::string::npos);
    REQUIRE(beta != std::string::npos);
    // Time open, every other measure folded under its machine.
    const std::size_t user = html.find("<details class=\"measure\" data-measure=\"user_s\">");
    CHECK(alpha < user);
    CHECK(user < beta);
    CHECK(html.find("<h3>user_s</h3>") == std::string::npos);
    CHECK(test::count_of(html, "<h3>wall_s</h3>") == 2);
    // Every run a dot, with its hover.
    CHECK(test::count_of(figure_of(html, "m2/w1/io_load/wall_s"), "<circle") == 24);
    // Nothing runs, nothing is fetched: the page's own policy says so.
    CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find(" src=") == std::string::npos);
    CHECK(html.find(" href=\"http") == std::string::npos);
}

TEST_CASE("history page: a change is marked between its kernels, with its change",
          "[history][page]") {
    TrendPage page = page_of(
        {stepped_series("m1: alpha", "wall_s", 9, 5), stepped_series("m1: alpha", "user_s", 9, 5)});
    page.series[1].changes.clear();
    const std::string html = trend_page_html(page);
    const std::string moved = figure_of(html, "m1/w1/io_load/wall_s");
    CHECK(test::count_of(moved, "class=\"change-mark\"") == 1);
    CHECK(moved.find("data-index=\"5\" data-change-after=\"k5\" data-change=\"+30.0%\"") !=
          std::string::npos);
    CHECK(moved.find("between k5 (the last of 5) and k6 (the first of 4)") != std::string::npos);
    CHECK(moved.find("+30.0% (95%: +28.0% to +32.0%), p &lt;0.0001") != std::string::npos);
    // The stepped line: two levels, the second 30% above the first.
    CHECK(moved.find("class=\"steps\"") != std::string::npos);
    const std::string quiet = figure_of(html, "m1/w1/io_load/user_s");
    CHECK(quiet.find("class=\"change-mark\"") == std::string::npos);
    CHECK(quiet.find("No change.") != std::string::npos);
    // Folded and without a change: its kernels' medians and bands, no dot a
    // run (the bulk of a page's bytes); the one with a change keeps them.
    CHECK(test::count_of(quiet, "<circle") == 0);
    CHECK(quiet.find("class=\"medians\"") != std::string::npos);
    CHECK(test::count_of(moved, "<circle") == 27);
}

TEST_CASE("history page: it opens on the alerts, each change's id and state linked to its chart",
          "[history][page][triage]") {
    TrendPage page = page_of(
        {stepped_series("m1: alpha", "user_s", 9, 5), stepped_series("m1: alpha", "wall_s", 9, 5)});
    page.series[0].change_states = {"#4 invalid"};
    page.series[1].change_states = {"#3 untriaged"};
    TrendAlert alert;
    alert.state = "untriaged";
    alert.before = "k5";
    alert.after = "k6";
    alert.changes = {{3, "untriaged", "m1/w1/io_load/wall_s", "alpha", 0.3, ""},
                     {4, "invalid", "m1/w1/io_load/user_s", "alpha", 0.1, "invalid by ann@lab"}};
    page.alerts = {alert};
    const std::string html = trend_page_html(page);
    const std::size_t changes = html.find("<section id=\"changes\">");
    REQUIRE(changes != std::string::npos);
    CHECK(changes < html.find("<figure"));
    // The most moved first, each row linked to its chart (series-2: wall_s,
    // the second of page.series, drawn first as Time).
    const std::size_t three = html.find("data-change=\"3\" data-state=\"untriaged\"");
    const std::size_t four = html.find("data-change=\"4\" data-state=\"invalid\"");
    REQUIRE(three != std::string::npos);
    REQUIRE(four != std::string::npos);
    CHECK(three < four);
    CHECK(html.find("<a href=\"#series-2\">m1/w1/io_load/wall_s</a>") != std::string::npos);
    CHECK(html.find("id=\"series-2\"") < html.find("id=\"series-1\""));
    CHECK_THAT(figure_of(html, "m1/w1/io_load/user_s"), Catch::Contains("#4 invalid: +30.0%"));
    CHECK(html.find("invalid by ann@lab") != std::string::npos);
}

TEST_CASE("history page: names from the database are text, in elements and attributes",
          "[history][page]") {
    const std::string hostile = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>&amp;\xff";
    TrendSeries s = stepped_series(hostile, hostile, 8, 4);
    s.name = s.workload = s.load = s.order = hostile;
    for (auto& p : s.points) {
        p.kernel = hostile + p.kernel;
        p.labels.push_back(hostile);
    }
    TrendPage page;
    page.database = hostile;
    page.series = {s, stepped_series("m2: " + hostile, "wall_s", 8, 4)};
    const std::string html = trend_page_html(page);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("<img") == std::string::npos);
    CHECK(is_valid_utf8(html));
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img") != std::string::npos);
    CHECK(html.find("&amp;amp;") != std::string::npos);
    // In an attribute too: the change names its kernel there.
    CHECK(html.find("data-change-after=\"&lt;script&gt;") != std::string::npos);
    CHECK(html.find("data-series=\"&lt;script&gt;") != std::string::npos);
}

TEST_CASE("history page: an empty database says so and draws nothing", "[history][page]") {
    TrendPage page;
    page.database = "results/history.sqlite";
    const std::string html = trend_page_html(page);
    CHECK(html.find("No series in results/history.sqlite") != std::string::npos);
    CHECK(html.find("<svg") == std::string::npos);
    CHECK(html.ends_with("</html>\n"));
}

TEST_CASE("history page: a series of one kernel, of equal runs, of hundreds of kernels",
          "[history][page]") {
    TrendPage page;
    TrendSeries one = stepped_series("m", "wall_s", 1, 1);
    one.changes.clear();
    one.points[0].values = {5, 5, 5};
    TrendSeries many = stepped_series("m", "user_s", 400, 200);
    page.series = {one, many};
    const std::string html = trend_page_html(page);
    CHECK(test::count_of(html, "<svg") == 2);
    CHECK_FALSE(std::regex_search(html, std::regex("[\" (]-?(nan|inf)")));
    // Not every one of 400 kernels is named under the axis.
    const std::string long_one = figure_of(html, "m1/w1/io_load/user_s");
    CHECK(test::count_of(long_one, "rotate(-40)") < 200);
    CHECK(test::count_of(long_one, "<circle") == 1200);
}

TEST_CASE(
    "history page end to end: a chart per series, the planted step marked at its kernel, a "
    "hostile kernel and label as text, in headless Chromium",
    "[history][page][e2e]") {
    ScratchDir dir("history-page");
    const std::string hostile_release = "6.1.3<script>alert(1)</script>";
    const std::string hostile_label = "<img src=x onerror=alert(2)>";
    for (int i = 1; i <= 8; ++i) {
        const std::string k = "k" + std::to_string(i);
        put_example_as(dir / "results" / k / "r.json", i == 2 ? hostile_label : k,
                       i == 3 ? hostile_release : "6.1." + std::to_string(i), i <= 4 ? 1.0 : 1.3);
    }
    Outcome o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    REQUIRE(o.out.find("imported 8 file(s)") != std::string::npos);
    o = run_contest_binary({"history", "--all-measures"}, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    const std::size_t series = split_lines(o.out).size() - 1;  // less the heading
    REQUIRE(series > 5);

    // The default: history.html here, and one line saying so.
    o = run_contest_binary({"history", "page"}, dir.path(), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(o.out == "the trend page of " + std::to_string(series) +
                       " series (7 change(s)) written to history.html\n");
    REQUIRE(fs::exists(dir / "history.html"));

    require_console_seen(dir);
    const Rendered page = render_in_chromium(dir / "history.html", dir);
    INFO(join(page.console, "\n"));
    CHECK(page.console.empty());
    CHECK(test::count_of(page.dom, "<svg") == series);
    CHECK(test::count_of(page.dom, "<figure") == series);
    // Time moved 30% from 6.1.5 on under each of the example's five loads,
    // and with it the work rate of the two loads that count their work
    // (-23.1%): each marked after 6.1.4, and nothing else.
    CHECK(test::count_of(page.dom, "class=\"change-mark\"") == 7);
    CHECK(test::count_of(page.dom, "data-change-after=\"6.1.4\"") == 7);
    // Each marked in its chart and listed in the changes the page opens on.
    CHECK(test::count_of(page.dom, ">-23.1%<") == 4);
    CHECK(test::count_of(page.dom, "class=\"change-row\"") == 7);
    CHECK(page.dom.find("<section id=\"changes\">") < page.dom.find("<figure"));
    for (const char* load : {"no_load", "cacherun", "process_load", "io_load", "mem_load"}) {
        INFO(load);
        const std::string figure = figure_of(page.dom, "m1/w1/" + std::string(load) + "/wall_s");
        REQUIRE_FALSE(figure.empty());
        CHECK(test::count_of(figure, "data-change-after=\"6.1.4\"") == 1);
        CHECK(figure.find("data-index=\"4\"") != std::string::npos);
        CHECK(figure.find("+30.0%") != std::string::npos);
    }
    // The hostile kernel and label are text: escaped in the DOM, no element made of them.
    CHECK(page.dom.find("6.1.3&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(page.dom.find("&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
    CHECK(page.dom.find("<script") == std::string::npos);
    CHECK(page.dom.find("<img") == std::string::npos);

    // --out and --measure; a series named; a word that is not one.
    o = run_contest_binary({"history", "page", "--out", "io.html", "m1/w1/io_load/wall_s"},
                           dir.path(), dir.path());
    CHECK(o.out == "the trend page of 1 series (1 change(s)) written to io.html\n");
    CHECK(test::count_of(slurp(dir / "io.html"), "<svg") == 1);
    o = run_contest_binary({"history", "page", "--measure", "wall_s", "--out", "t.html"},
                           dir.path(), dir.path());
    CHECK(o.out == "the trend page of 5 series (5 change(s)) written to t.html\n");
    o = run_contest_binary({"history", "page", "io_load"}, dir.path(), dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("contest history page: 'io_load' is not a series") != std::string::npos);
    CHECK(leftover_processes().empty());
}
