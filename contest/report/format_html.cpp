// One self-contained HTML page of a report or a comparison: the tables, the
// verdicts, the drawings inline as SVG, each run's timeline behind a click,
// the fingerprints and the command lines. No script and nothing fetched: the
// page's own Content-Security-Policy forbids both, so it reads the same
// saved, mailed or opened from a lab's web server.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "contest/report/cell_columns.h"
#include "contest/report/compare_view.h"
#include "contest/report/formats.h"
#include "contest/report/html_page.h"
#include "contest/report/latency_plot.h"
#include "contest/report/latency_tables.h"
#include "contest/report/measure_changes_text.h"
#include "contest/report/outside_text.h"
#include "contest/report/plot_svg.h"
#include "contest/report/report_options.h"
#include "contest/report/run_facts.h"
#include "contest/report/spike_timeline.h"
#include "contest/report/timeline_svg.h"
#include "contest/sys/json_text.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"

namespace contest {

namespace {

std::string cell(const std::string& text, bool number = false) {
    return (number ? "<td class=\"n\">" : "<td>") + escape_html(text) + "</td>";
}

std::string table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right,
                  const std::string& id = "") {
    std::string out = id.empty() ? "<table>\n" : "<table id=\"" + id + "\">\n";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        out += "<tr>";
        for (std::size_t c = 0; c < rows[r].size(); ++c)
            out += r == 0 ? "<th>" + escape_html(rows[r][c]) + "</th>"
                          : cell(rows[r][c], c < right.size() && right[c]);
        out += "</tr>\n";
    }
    return out + "</table>\n";
}

std::string facts_table(const ReportModel& model) {
    std::string out = "<table id=\"facts\">\n<tr><th></th>";
    for (const auto& l : model.labels) out += "<th>" + escape_html(l.label) + "</th>";
    out += "</tr>\n";
    for (const auto& f : run_facts(model)) {
        out += "<tr><th>" + escape_html(f.name) + "</th>";
        if (f.same())
            out += "<td colspan=\"" + std::to_string(f.values.size()) + "\">" +
                   escape_html(f.values.front()) + "</td>";
        else
            for (const auto& v : f.values) out += cell(v);
        out += "</tr>\n";
    }
    return out + "</table>\n";
}

std::string commands(const ReportModel& model) {
    std::string out = "<h2 id=\"commands\">How it was run</h2>\n";
    for (const auto& l : model.labels) {
        const auto words = command_words(l.config);
        out += "<p>" + escape_html(l.label) + ":</p>\n<pre>" +
               (words.empty() ? std::string("not recorded (result files from before contest "
                                            "recorded its command line)")
                              : escape_html(join(words, " "))) +
               "</pre>\n";
    }
    return out;
}

// The classic table with every column, a header row per load.
std::string classic_table(const ReportModel& model) {
    std::string out = "<table id=\"contest-table\">\n<tr>";
    for (const auto& column : cell_columns())
        out += "<th>" + escape_html(std::string(column.text_heading)) + "</th>";
    out += "<th></th></tr>\n";
    const std::size_t span = cell_columns().size() + 1;
    for (const auto& block : model.blocks) {
        out += "<tr class=\"load\"><th colspan=\"" + std::to_string(span) + "\">" +
               escape_html(block.load) + " <small>(Loads in " +
               escape_html(unit_description(block)) + ")</small></th></tr>\n";
        const CellDigits digits{time_decimals(model), loads_decimals(block)};
        for (const auto& c : block.cells) {
            out += "<tr>";
            bool first = true;
            for (const auto& column : cell_columns()) {
                out += cell(column.text(c, digits), !first);
                first = false;
            }
            out += cell(significance_mark(c)) + "</tr>\n";
        }
    }
    return out + "</table>\n";
}

std::string latency_table(const LoadBlock& block) {
    std::vector<std::vector<std::string>> rows = {{"Probe"}};
    for (const auto& h : latency_header()) rows[0].push_back(h);
    rows[0].push_back("");
    for (const auto& row : block.latency) {
        std::vector<std::string> r = {row.probe};
        for (const auto& c : latency_cells(row)) r.push_back(c);
        rows.push_back(std::move(r));
    }
    std::vector<bool> right(rows[0].size(), true);
    right[0] = right[1] = right.back() = false;
    return table(rows, right);
}

std::string changes_table(const LoadMeasureChanges& c) {
    std::string out = "<p><b>" + escape_html(c.load) + ":</b> " +
                      escape_html(measure_changes_count(c)) + "</p>\n";
    if (!c.changed.empty()) {
        std::vector<std::vector<std::string>> rows = {
            {"Measure", "Base", "New", "Change", "p-adj", "Meaning"}};
        for (const auto& m : c.changed)
            rows.push_back({m.measure, four_digits(m.base_mean), four_digits(m.new_mean),
                            signed_percent(m.test.effect_pct), format_p(m.test.p_adjusted),
                            measure_change_line(m)});
        out += table(rows, {false, true, true, true, true, false});
    }
    if (!c.only_base.empty())
        out += html_paragraph("Recorded only on base: " + join(c.only_base, ", "));
    if (!c.only_new.empty())
        out += html_paragraph("Recorded only on new: " + join(c.only_new, ", "));
    return out;
}

std::string verdict_section(const CompareView& view, const ReportModel& model) {
    std::string out =
        "<h3>" + escape_html(view.fresh) + " against " + escape_html(view.base) + "</h3>\n";
    std::vector<std::vector<std::string>> rows = {{"Load", "Base Time", "New Time", "Change",
                                                   "p-adj", "Time", "Ratio base -> new", "p-adj",
                                                   "Ratio"}};
    for (const auto& f : view.loads) {
        if (!f.fresh || !f.fresh->versus) {
            rows.push_back({f.load, "", "", "", "", f.time_finding, "", "", ""});
            continue;
        }
        const auto& v = *f.fresh->versus;
        rows.push_back({f.load, f.base->runs_text() + ": " + mean_and_ci(f.base->time),
                        f.fresh->runs_text() + ": " + mean_and_ci(f.fresh->time), change_text(v),
                        v.time_test ? format_p(v.time_test->p_adjusted) : "-", f.time_finding,
                        ratio_pair(f), v.ratio_test ? format_p(v.ratio_test->p_adjusted) : "-",
                        f.ratio_finding});
    }
    out += table(rows, {false, true, true, true, true, false, true, true, false});
    if (const std::string g = geometric_line(view); !g.empty()) out += html_paragraph(g);
    if (const auto lat = latency_comparison_rows(model, view.base, view.fresh); lat.size() > 1)
        out += "<p>Latency, base -> new:</p>\n" +
               table(lat,
                     {false, false, true, true, true, true, false, true, true, true, true, false});
    out += html_paragraph("Verdict: " + view.verdict, "verdict");
    if (!view.changes.empty()) {
        out += "<h4>What else changed</h4>\n" +
               html_paragraph(measure_changes_heading(view.changes, model));
        for (const auto& c : view.changes) out += changes_table(c);
    }
    return out;
}

// The model of one load alone, for that load's drawings.
ReportModel one_load(const ReportModel& model, const LoadBlock& block) {
    ReportModel m = model;
    m.blocks = {block};
    return m;
}

std::string anchor(const std::string& load) {
    std::string id = "load-";
    for (unsigned char c : load) id += std::isalnum(c) || c == '_' || c == '-' ? char(c) : '_';
    return id;
}

std::string run_details(const Cell& c) {
    std::string out;
    for (const auto& sr : c.runs) {
        const RunRecord& run = sr.run;
        std::string summary = c.label + " run " + std::to_string(run.index) + ": " +
                              fixed(run.wall_s, 1) + " s, " +
                              std::string(run_status_name(run.status));
        if (sr.round) summary += ", round " + std::to_string(sr.round);
        out += "<details><summary>" + escape_html(summary) + "</summary>\n";
        out +=
            run.timeline.is_null()
                ? "<p>no timeline recorded (--timeline-hz 0, or a contest before timelines)</p>\n"
                : inline_svg(timeline_svg(run.timeline, c.label + ": " + run.load + " run " +
                                                            std::to_string(run.index)));
        out += "</details>\n";
    }
    return out;
}

std::string load_section(const ReportModel& model, const LoadBlock& block) {
    std::string out = "<section id=\"" + escape_html(anchor(block.load)) +
                      "\" class=\"load\">\n<h3>" + escape_html(block.load) + "</h3>\n";
    const ReportModel alone = one_load(model, block);
    out += inline_svg(plot_svg(alone));
    if (!block.latency.empty()) {
        out += latency_table(block);
        out += inline_svg(latency_plot_svg(alone));
    }
    out += "<p>Each run, its timeline a click away:</p>\n";
    for (const auto& c : block.cells) out += run_details(c);
    return out + "</section>\n";
}

std::string fingerprints(const ReportModel& model) {
    std::string out = "<h2 id=\"fingerprint\">Fingerprint</h2>\n";
    for (const auto& l : model.labels) {
        out +=
            "<details><summary>" + escape_html(l.label) +
            ": the machine and the run's config, as " + "recorded in " +
            escape_html(join(l.files, ", ")) + "</summary>\n<pre>" +
            escape_html(json_text(nlohmann::json{{"system", l.system}, {"config", l.config}}, 2)) +
            "</pre>\n</details>\n";
    }
    return out;
}

std::string page(const ReportModel& model) {
    std::vector<std::string> others;
    for (const auto& l : model.labels)
        if (l.label != model.baseline) others.push_back(l.label);
    const std::string title =
        "contest: " + model.baseline + (others.empty() ? "" : " vs " + join(others, ", "));
    std::string out = html_page_head(title);
    out += html_paragraph("contest " + std::string(kVersion) + "; baseline " + model.baseline +
                          "; p-values adjusted: " + correction_summary(model) + ", alpha " +
                          six_digits(model.alpha));
    for (const auto& w : model.warnings) out += html_paragraph("Warning: " + w, "warning");
    out += "<h2 id=\"machine\">Machine and kernels</h2>\n" + facts_table(model);
    out += commands(model);
    out += "<h2 id=\"table\">The contest table</h2>\n" + classic_table(model);
    for (const auto& note : model.notes) out += html_paragraph(note);
    if (const auto legend = significance_legend(model); !legend.empty())
        out += html_paragraph(legend);
    if (model.has_latency()) out += html_paragraph(latency_legend(model));
    for (const auto& line : latency_why_lines(model)) out += html_paragraph("why: " + line);
    for (const auto& spike : worst_spikes(model)) out += inline_svg(spike_timeline_svg(spike));
    if (const auto rows = outside_rows(model, "", true); !outside_text(model, rows, true).empty()) {
        std::vector<std::vector<std::string>> cells = {
            {"Load", "Label", "Test", "Change [95% CI]", "p-adj", "Finding", "Fit"}};
        for (const auto& r : rows) cells.push_back(outside_cells(r, model));
        out += "<h2 id=\"outside\">Net of outside work</h2>\n" +
               html_paragraph(outside_heading(model)) +
               table(cells, {false, false, false, true, true, false, false});
    }
    if (!others.empty()) {
        out += "<h2 id=\"verdicts\">Verdicts</h2>\n";
        for (const auto& other : others)
            out += verdict_section(compare_view(model, model.baseline, other), model);
    }
    out += "<h2 id=\"tests\">Every test</h2>\n" +
           table(test_rows(model), {false, false, false, false, true, true, true, true, false});
    out += "<h2 id=\"loads\">Load by load</h2>\n";
    for (const auto& block : model.blocks) out += load_section(model, block);
    out += fingerprints(model);
    return out + kHtmlPageEnd;
}

}  // namespace

std::string format_html(const ReportModel& model, const ReportOptions&) {
    return page(model);
}

std::string compare_html(const ReportModel& model) {
    return page(model);
}

}  // namespace contest
