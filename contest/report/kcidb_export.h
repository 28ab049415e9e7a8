#pragma once
// `contest export`: result files as one submission to KernelCI's common
// results database, KCIDB, in kcidb-io's schema v4.4 (the first v4 with a
// test's `number`; tests/data/kcidb/v4-schema.json writes down what of it
// contest emits, docs/kcidb.md says what each field means).
//
// Per label: a checkout (the label's kernel: its tree and commit where the
// label's config.kernel records them, else its release), a build of it (the
// architecture, the compiler that built the kernel and its .config, as the
// fingerprint recorded them) and, per load, tests whose paths name what they
// measure: contest.<load>.time_s, .ratio, .loads, .cpu_pct, .load_cpu_pct,
// contest.<load>.<probe>.p50_us, .p90_us, .p99_us, .p99_9_us, .max_us,
// .missed_pct, and the measures that changed beyond noise against the
// baseline (contest.<load>.<measure>). Each test's `number` is the model's
// figure (a mean over the runs, a pooled percentile), its spread and runs
// under `misc`, the machine under `environment`.
//
// Status, only with a baseline the user named and only on a test of record
// that was judged: FAIL where the label is worse than the baseline beyond
// noise (by the test's effect), PASS where it is better beyond noise or
// where nothing differs and the test could see a change of target_mde_pct,
// DONE where it could not (why under misc.against.no_verdict); no status
// anywhere else. A --boot label's turns that did not boot are a test
// contest.boot, FAIL, and its build is then not said valid.
//
// Ids are the origin and a hash of the label's result files' content (and,
// for a judged test, of the baseline's and the judging options): the same
// files export the same ids, whenever and wherever exported.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"
#include "contest/result/result_file.h"

namespace contest {

inline constexpr int kKcidbMajor = 4;
inline constexpr int kKcidbMinor = 4;

// KCIDB's origin rule: lowercase letters, digits and '_', not empty; a
// UsageError naming --origin and the rule otherwise.
void check_kcidb_origin(const std::string& origin);

struct KcidbOptions {
    std::string origin;
    bool judged = false;  // a baseline was named: statuses where a verdict was reached
    // A PASS needs the test to have been able to see a change this large,
    // in % (points for a percentage): --target-mde, as `contest run`'s.
    double target_mde_pct = 5;
};

// The submission of `files`, whose model (the same files) is `model`.
nlohmann::ordered_json kcidb_submission(const std::vector<ResultFile>& files,
                                        const ReportModel& model, const KcidbOptions& options);

}  // namespace contest
