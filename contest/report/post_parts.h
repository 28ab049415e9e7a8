#pragma once
// What every shape of `contest post` shares (format_post.h): the files with
// their text made printable, the labels shortened the same way everywhere
// when a shape's columns need it (with the legend that says so), the Subject
// line, the machine and kernel facts, the command line that made the runs,
// and the mail's lines broken at kPostColumns.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "contest/analysis/report_model.h"
#include "contest/report/compare_view.h"
#include "contest/report/report_options.h"
#include "contest/result/result_file.h"

namespace contest {

inline constexpr std::size_t kPostColumns = 76;

// How the labels read in the post: as they are, or shortened, with the
// legend that says what each short name stands for.
struct PostNames {
    std::map<std::string, std::string> shown;  // full label -> as the post shows it
    bool shortened = false;
};

// The model of a post, its labels renamed as the post shows them.
struct PostModel {
    ReportModel model;
    PostNames names;
};

// The model of `files` (their text made printable first: a line break in a
// workload's kind would otherwise end the Subject and start a header of its
// own), with the labels as they are where `fits` holds, else without the
// start they share, else A, B, C... Warnings are left in the model, never
// printed. Throws UsageError as build_report_model does.
PostModel post_model(const std::vector<ResultFile>& files, const ReportOptions& options,
                     const std::function<bool(const ReportModel&)>& fits);

// The longest line of `text`, in terminal cells.
std::size_t widest_line(const std::string& text);

// "Subject: [contest] BASE vs NEW, WORKLOAD, N loads: VERDICT", as much of
// it as fits in kPostColumns.
std::string post_subject(const ReportModel& model, const std::vector<CompareView>& views);
// Every label but the baseline judged against it, in label order.
std::vector<CompareView> views_against_baseline(const ReportModel& model);
// "CPU: ...\nMemory: ...\n": the facts, one a line, a fact that differs
// between labels said label by label.
std::string post_facts(const ReportModel& model);
// "\nLabels, shortened in this mail:\n  A = ...\n"; "" when none was.
std::string post_legend(const PostNames& names, const ReportModel& model);
// "\nWarnings:\n  ...\n": the model's warnings; "" without any.
std::string post_warnings(const ReportModel& model);
// "\nHow it was run:\n  $ contest run ... \\\n": pasteable back into a shell.
std::string post_command(const ReportModel& model);
// "  $ contest ... \\\n    ...\n": words already quoted for a shell, broken
// into lines that paste back into one.
std::string post_command_lines(const std::vector<std::string>& words);
// "\n-- \ncontest VERSION\n".
std::string post_signature();

// `body` as the mail's lines: every line broken into kPostColumns terminal
// cells, prose at words (continuations indented two more), a table's row
// (columns lined up by runs of spaces) after the last column that fits, or
// with `rows_whole` left as wide as it is (a comparison on a terminal, whose
// labels are not shortened); control characters escaped; with `ascii`, the
// shared formatters' "±" written "+-".
std::string post_lines(std::string body, bool ascii, bool rows_whole = false);

}  // namespace contest
