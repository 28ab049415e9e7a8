#include "contest/report/kcidb_export.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "contest/analysis/measure_changes.h"
#include "contest/analysis/measures.h"
#include "contest/analysis/multiple_comparisons.h"
#include "contest/report/compare_view.h"
#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_fields.h"
#include "contest/sys/number_text.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

using ojson = nlohmann::ordered_json;

// KCIDB's own patterns (kcidb-io v3.0 on, unchanged in v4.4).
const std::regex kOrigin("^[a-z0-9_]+$");
const std::regex kCommitHash("^[0-9a-f]{40}$");
const std::regex kRepositoryUrl("^(https|git)://.*$");
const std::regex kArchitecture("^[a-z0-9_]+$");

// An id: the origin, then a digest of what the object is made of.
std::string object_id(const std::string& origin, const std::string& made_of) {
    return origin + ":" + sha256_hex(made_of).substr(0, 32);
}

const nlohmann::json& object_at(const nlohmann::json& j, const char* key) {
    static const nlohmann::json none = nlohmann::json::object();
    return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : none;
}

ojson as_ordered(const nlohmann::json& j) {
    return ojson::parse(j.dump());
}

// A figure for `misc`: six significant digits, null where undefined.
ojson misc_number(double value) {
    return as_ordered(json_number(value));
}

ojson summary_misc(const stats::Summary& s) {
    return {{"runs", s.n},
            {"mean", misc_number(s.mean)},
            {"median", misc_number(s.median)},
            {"sd", misc_number(s.sd)},
            {"cv_pct", misc_number(s.n >= 2 ? s.cv * 100 : std::nan(""))},
            {"ci95_half", misc_number(s.ci95_half)},
            {"min", misc_number(s.min)},
            {"max", misc_number(s.max)}};
}

// What each label's objects are made of: its result files' content, in a
// fixed order, so that the same files give the same ids.
std::map<std::string, std::string> label_keys(const std::vector<ResultFile>& files) {
    std::map<std::string, std::vector<std::string>> digests;
    for (const auto& f : files) digests[f.label].push_back(sha256_hex(to_json(f).dump()));
    std::map<std::string, std::string> keys;
    for (auto& [label, list] : digests) {
        std::sort(list.begin(), list.end());
        keys[label] = sha256_hex(label + "\n" + join(list, "\n"));
    }
    return keys;
}

// What contest built the label's kernel from, as kbuild recorded it
// (build_record.h): under --kernel in config.kernel.build, under --boot in
// config.boot.build; an empty object for a kernel contest did not build.
const nlohmann::json& build_record_of(const LabelInfo& l) {
    const nlohmann::json& guest = object_at(object_at(l.config, "kernel"), "build");
    return guest.empty() ? object_at(object_at(l.config, "boot"), "build") : guest;
}

ojson checkout_of(const LabelInfo& l, const std::string& key, const std::string& origin) {
    const nlohmann::json& kernel = object_at(l.config, "kernel");
    const nlohmann::json& build = build_record_of(l);
    const std::string release = string_at(l.system, "kernel_release");
    ojson c = {{"id", object_id(origin, "checkout\n" + key)}, {"origin", origin}};
    // A label built from a git ref: its commit as kbuild recorded it (the
    // tree's commit the patches, if any, went on), or as an older or a
    // hand-made file has it in config.kernel; KCIDB takes only a full hash
    // and a remote URL (kbuild's tree is a local folder).
    if (const std::string tree = string_at(kernel, "tree_name"); !tree.empty())
        c["tree_name"] = tree;
    for (const std::string& url : {string_at(kernel, "repository"), string_at(build, "tree")})
        if (std::regex_match(url, kRepositoryUrl) && !c.contains("git_repository_url"))
            c["git_repository_url"] = url;
    for (const std::string& commit : {string_at(build, "commit"), string_at(kernel, "commit")})
        if (std::regex_match(commit, kCommitHash) && !c.contains("git_commit_hash"))
            c["git_commit_hash"] = commit;
    if (const std::string branch = string_at(kernel, "branch"); !branch.empty())
        c["git_repository_branch"] = branch;
    const std::string described = string_at(kernel, "describe");
    if (!described.empty() || !release.empty())
        c["git_commit_name"] = described.empty() ? release : described;
    c["comment"] = "contest label " + l.label + (release.empty() ? "" : ": kernel " + release);
    ojson misc = {{"label", l.label}};
    if (!release.empty()) misc["kernel_release"] = release;
    if (const std::string v = string_at(l.system, "kernel_version"); !v.empty())
        misc["kernel_version"] = v;
    if (const std::string image = string_at(kernel, "image"); !image.empty())
        misc["kernel_image"] = image;
    // The ref it was given and the patches put on it: the commit alone is
    // not the source of a patched kernel.
    if (const std::string ref = string_at(build, "ref"); !ref.empty()) misc["build_ref"] = ref;
    if (const std::string subject = string_at(build, "subject"); !subject.empty())
        misc["build_subject"] = subject;
    if (build.contains("patches") && build["patches"].is_array() && !build["patches"].empty())
        misc["build_patches"] = as_ordered(build["patches"]);
    c["misc"] = misc;
    return c;
}

// A --boot label's boots: the turns whose runs were recorded boot_failed,
// and why; whether any of its runs ran in its kernel.
struct Boots {
    bool any_booted = false;
    std::set<int> failed_rounds;
    std::vector<std::string> why;  // each reason once, in the order met
};

std::map<std::string, Boots> boots_of(const std::vector<ResultFile>& files) {
    std::map<std::string, Boots> out;
    for (const auto& f : files)
        for (const auto& r : f.runs) {
            Boots& b = out[f.label];
            if (r.status != RunStatus::boot_failed) {
                b.any_booted = true;
                continue;
            }
            b.failed_rounds.insert(r.round);
            if (std::find(b.why.begin(), b.why.end(), r.reason) == b.why.end())
                b.why.push_back(r.reason);
        }
    return out;
}

ojson build_of(const LabelInfo& l, const Boots& boots, const std::string& key,
               const std::string& checkout_id, const std::string& origin) {
    const nlohmann::json& kernel = object_at(l.system, "kernel");
    const nlohmann::json& config = object_at(kernel, "config");
    ojson b = {{"checkout_id", checkout_id},
               {"id", object_id(origin, "build\n" + key)},
               {"origin", origin}};
    if (const std::string arch = string_at(l.system, "machine");
        std::regex_match(arch, kArchitecture))
        b["architecture"] = arch;
    if (const std::string compiler = string_at(kernel, "compiler"); !compiler.empty())
        b["compiler"] = compiler;
    const std::string source = string_at(config, "source");
    if (!source.empty()) b["config_name"] = std::filesystem::path(source).filename().string();
    b["comment"] = "the kernel label " + l.label + "'s runs ran under";
    ojson misc = ojson::object();
    // Valid: it booted and ran the runs. One that never booted is left
    // unsaid (contest cannot tell a bad build from a bad boot); its boots
    // are a failed test of their own (boot_test_of).
    if (boots.any_booted || boots.failed_rounds.empty())
        b["valid"] = true;
    else
        misc["never_booted"] = join(boots.why, "; ");
    if (const std::string sha = string_at(config, "sha256"); !sha.empty())
        misc["config_sha256"] = sha;
    if (!source.empty()) misc["config_source"] = source;
    if (kernel.contains("preemption")) misc["preemption"] = as_ordered(kernel["preemption"]);
    if (kernel.contains("config_hz")) misc["config_hz"] = as_ordered(kernel["config_hz"]);
    if (!misc.empty()) b["misc"] = misc;
    return b;
}

// contest.boot: a --boot label's turns whose kernel did not boot, FAIL.
ojson boot_test_of(const LabelInfo& l, const Boots& boots, const std::string& key,
                   const std::string& build_id, const std::string& origin) {
    const std::size_t failed = boots.failed_rounds.size();
    return {{"build_id", build_id},
            {"id", object_id(origin, "test\n" + key + "\ncontest.boot")},
            {"origin", origin},
            {"path", "contest.boot"},
            {"comment", "the turns of --boot in which label " + l.label + "'s kernel did not boot"},
            {"number", {{"value", failed}, {"unit", failed == 1 ? "boot" : "boots"}}},
            {"status", "FAIL"},
            {"misc", {{"label", l.label}, {"why", join(boots.why, "; ")}}}};
}

ojson environment_of(const LabelInfo& l, const std::string& contest_version) {
    const std::string host = string_at(l.system, "hostname");
    const std::string cpu = string_at(l.system, "cpu_model");
    std::string comment = host.empty() ? "a machine" : host;
    if (!cpu.empty()) comment += ": " + cpu;
    if (l.system.contains("cpus_online") && l.system["cpus_online"].is_number())
        comment += ", " + std::to_string(l.system["cpus_online"].get<long>()) + " CPUs online";
    if (l.system.contains("mem_total_bytes") && l.system["mem_total_bytes"].is_number())
        comment += ", " + fixed(l.system["mem_total_bytes"].get<double>() / (1 << 30), 1) + " GiB";
    ojson misc = {{"contest_version", contest_version}};
    for (const char* key : {"hostname", "cpu_model", "cpus_online", "mem_total_bytes", "machine"})
        if (l.system.contains(key) && !l.system[key].is_null())
            misc[key] = as_ordered(l.system[key]);
    const nlohmann::json& workload = object_at(l.config, "workload");
    if (const std::string kind = string_at(workload, "kind"); !kind.empty())
        misc["workload"] = kind;
    return {{"comment", comment}, {"misc", misc}};
}

// A test of record's outcome against the baseline, for the status.
struct Judgement {
    const Test* test = nullptr;
    bool judged = false;
    bool significant = false;
    std::string baseline;
};

struct Measured {
    Measured(std::string path_, double value_, std::string unit_, std::string comment_,
             ojson misc_ = ojson::object())
        : path(std::move(path_)),
          value(value_),
          unit(std::move(unit_)),
          comment(std::move(comment_)),
          misc(std::move(misc_)) {}
    std::string path;  // after "contest."
    double value = 0;
    std::string unit;  // "" for a dimensionless figure
    std::string comment;
    ojson misc = ojson::object();
    std::optional<Judgement> judgement;
};

std::optional<Judgement> judgement_of(const std::optional<Test>& t, bool judged, bool significant,
                                      const std::string& baseline) {
    if (!t) return std::nullopt;
    return Judgement{&*t, judged, significant, baseline};
}

void add_cell(const LoadBlock& block, const Cell& cell, const Cell* base,
              const std::string& baseline, std::vector<Measured>& out) {
    const std::string& load = block.load;
    const std::size_t n = cell.time.n;
    const std::string over = " over " + std::to_string(n) + (n == 1 ? " run" : " runs");
    const VersusBaseline* v = cell.versus ? &*cell.versus : nullptr;
    Measured time{load + ".time_s", cell.time.mean, "s",
                  load + ": the workload's mean wall time" + over, summary_misc(cell.time)};
    if (cell.failed) time.misc["failed_runs"] = cell.failed;
    if (v && base) time.judgement = judgement_of(v->time_test, v->judged, v->significant, baseline);
    out.push_back(time);
    if (cell.ratio && cell.ratio_estimate) {
        const RatioEstimate& r = *cell.ratio_estimate;
        Measured ratio{load + ".ratio",
                       *cell.ratio,
                       "",
                       load + ": Time over the same label's no_load Time" + over,
                       {{"ci95_low", misc_number(r.ci95_low)},
                        {"ci95_high", misc_number(r.ci95_high)},
                        {"paired_by_round", r.paired}}};
        if (v && base && base->ratio)
            ratio.judgement = judgement_of(v->ratio_test, true, v->ratio_significant, baseline);
        out.push_back(ratio);
    }
    out.push_back({load + ".cpu_pct", cell.cpu_pct.mean, "%",
                   load + ": the workload's CPU use, user and system time over wall" + over,
                   summary_misc(cell.cpu_pct)});
    if (block.unit.empty()) return;  // no load ran beside the workload
    if (cell.loads_counted && cell.load_units.n > 0)
        out.push_back({load + ".loads", cell.load_units.mean, block.unit,
                       load + ": the load's work done while the workload ran" + over,
                       summary_misc(cell.load_units)});
    out.push_back({load + ".load_cpu_pct", cell.load_cpu_pct.mean, "%",
                   load + ": the load's CPU use while the workload ran" + over,
                   summary_misc(cell.load_cpu_pct)});
}

void add_latency(const std::string& load, const LatencyRow& row, const LatencyRow* base,
                 const std::string& baseline, std::vector<Measured>& out) {
    const std::string at = load + "." + row.probe + ".";
    const std::string of = load + ": the " + row.probe + " probe's ";
    const std::string how = row.pooled ? " over every sample of " + std::to_string(row.runs) +
                                             " runs (histograms pooled)"
                                       : ", the mean of " + std::to_string(row.runs) + " runs'";
    ojson misc = {{"samples", row.samples}, {"runs", row.runs}, {"pooled", row.pooled}};
    struct Percentile {
        const char* name;
        const char* words;
        double ns;
    };
    // schbench's order; a dot would split the path, so p99_9 for the 99.9th.
    for (const Percentile& p :
         {Percentile{"p50_us", "50th", row.p50_ns},
          Percentile{"p90_us", "90th", pooled_p90_ns(row)},
          Percentile{"p99_us", "99th", row.p99_ns}, Percentile{"p99_9_us", "99.9th", row.p999_ns},
          Percentile{"max_us", "largest", row.max_ns}}) {
        if (!std::isfinite(p.ns)) continue;
        Measured m{at + p.name, p.ns / 1000, "us",
                   of + p.words + " percentile wake-up latency" + how, misc};
        if (std::string(p.name) == "max_us") m.comment = of + "largest wake-up latency";
        if (std::string(p.name) == "p99_us" && base)
            m.judgement = judgement_of(row.p99_test, true, row.p99_significant(), baseline);
        out.push_back(m);
    }
    if (std::isfinite(row.missed_pct)) {
        Measured m{at + "missed_pct", row.missed_pct, "%",
                   of + "periods whose deadline passed, over all its periods", misc};
        if (base)
            m.judgement = judgement_of(row.missed_test, true, row.missed_significant(), baseline);
        out.push_back(m);
    }
}

// What changed beyond noise between a label and the baseline, on both sides.
void add_changes(const ReportModel& model, const std::string& label,
                 std::map<std::string, std::vector<Measured>>& by_label) {
    const CompareView view = compare_view(model, model.baseline, label);
    for (const auto& load : view.changes)
        for (const auto& change : load.changed) {
            const Measure* m = find_measure(change.measure);
            const std::string unit = m ? std::string(m->unit) : "";
            const std::string path = load.load + "." + change.measure;
            const std::string comment = load.load + ": " +
                                        (change.meaning.empty() ? change.measure : change.meaning) +
                                        ", mean over the runs (changed beyond noise between " +
                                        model.baseline + " and " + label + ")";
            ojson misc = {{"base_label", model.baseline},
                          {"base_mean", misc_number(change.base_mean)},
                          {"new_label", label},
                          {"new_mean", misc_number(change.new_mean)},
                          {"change_pct", misc_number(change.test.effect_pct)},
                          {"p_adjusted", misc_number(change.test.p_adjusted)}};
            by_label[label].push_back({path, change.new_mean, unit, comment, misc});
            by_label[model.baseline].push_back({path, change.base_mean, unit, comment, misc});
        }
}

// KCIDB's objects have no null properties; a fact the fingerprint could not
// read (null beside its reason) is left out of misc too.
void drop_nulls(ojson& j) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end();)
            if (it->is_null())
                it = j.erase(it);
            else
                drop_nulls(*it++);
    } else if (j.is_array()) {
        for (auto it = j.begin(); it != j.end();)
            if (it->is_null())
                it = j.erase(it);
            else
                drop_nulls(*it++);
    }
}

// A path component as KCIDB's path pattern takes it: what else a measure's
// or a load's name holds becomes '_' (a dot would start a new component).
std::string path_part(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    return out;
}

// A judged test's status, and why a test that ran has no verdict.
struct Status {
    std::optional<std::string> status;  // none: the data to judge is missing
    std::string no_verdict;             // DONE: why neither PASS nor FAIL
};

// FAIL where the label is worse beyond noise, by the test's own effect
// (every test of record is lower-is-better); PASS where it is better
// beyond noise, or where nothing differs and the test could have seen a
// change of the --target-mde the user asked for; DONE otherwise: a test
// that could not see such a change claims nothing about it.
Status status_of(const Judgement& j, double target_mde_pct) {
    const Test& t = *j.test;
    if (!j.judged || !t.withheld.empty() || !std::isfinite(t.p_adjusted)) return {};
    if (j.significant) return {t.effect_pct > 0 ? "FAIL" : "PASS", ""};
    if (std::isfinite(t.mde_pct) && t.mde_pct <= target_mde_pct) return {"PASS", ""};
    const bool points = t.resolution && t.resolution->in_points;
    const std::string target = six_digits(target_mde_pct) + (points ? " points" : "%");
    const std::string seen = detectable_text(t);
    std::string why;
    if (std::isnan(t.mde_pct))
        why = "what these runs could see is not known";
    else if (std::isinf(t.mde_pct))
        why = "these runs could see no change at this level";
    else
        why = "these runs could see only a change " +
              (seen.starts_with("over ") ? seen : "of " + seen + " or more") + ", not one of " +
              target + " (--target-mde)";
    return {"DONE", why + ": no PASS or FAIL"};
}

}  // namespace

void check_kcidb_origin(const std::string& origin) {
    if (!std::regex_match(origin, kOrigin))
        throw UsageError("--origin " + printable(origin) +
                         ": a KCIDB origin is lowercase letters, digits and _ (e.g. my_lab)");
}

nlohmann::ordered_json kcidb_submission(const std::vector<ResultFile>& files,
                                        const ReportModel& model, const KcidbOptions& options) {
    check_kcidb_origin(options.origin);
    const std::string& origin = options.origin;
    const auto keys = label_keys(files);
    std::map<std::string, std::string> versions;  // label -> contest version of its first file
    for (const auto& f : files) versions.try_emplace(f.label, f.contest_version);

    std::map<std::string, std::vector<Measured>> by_label;
    for (const auto& block : model.blocks) {
        for (const auto& cell : block.cells)
            if (cell.time.n > 0)
                add_cell(block, cell, model.find_cell(block.load, model.baseline), model.baseline,
                         by_label[cell.label]);
        for (const auto& row : block.latency) {
            const LatencyRow* base = nullptr;
            for (const auto& other : block.latency)
                if (other.label == model.baseline && other.probe == row.probe) base = &other;
            add_latency(block.load, row, row.label == model.baseline ? nullptr : base,
                        model.baseline, by_label[row.label]);
        }
    }
    for (const auto& l : model.labels)
        if (l.label != model.baseline) add_changes(model, l.label, by_label);

    // What a status stands on besides the label's own files.
    const std::string judging =
        "\nagainst " + keys.at(model.baseline) + " alpha " + six_digits(model.alpha) + " " +
        stats::correction_name(model.correction) + " min-effect " +
        six_digits(model.min_effect_pct) + (model.adjust_outside ? " adjust outside" : "") +
        " target-mde " + six_digits(options.target_mde_pct);
    const auto boots = boots_of(files);
    ojson checkouts = ojson::array(), builds = ojson::array(), tests = ojson::array();
    for (const auto& l : model.labels) {
        const std::string& key = keys.at(l.label);
        const ojson checkout = checkout_of(l, key, origin);
        const Boots& booted = boots.count(l.label) ? boots.at(l.label) : Boots{};
        const ojson build = build_of(l, booted, key, checkout["id"].get<std::string>(), origin);
        checkouts.push_back(checkout);
        builds.push_back(build);
        if (!booted.failed_rounds.empty())
            tests.push_back(boot_test_of(l, booted, key, build["id"].get<std::string>(), origin));
        const ojson environment = environment_of(l, versions.at(l.label));
        std::set<std::string> seen;
        for (const auto& m : by_label[l.label]) {
            if (!std::isfinite(m.value) || !seen.insert(m.path).second) continue;
            std::vector<std::string> parts;
            for (std::size_t at = 0, dot; at <= m.path.size(); at = dot + 1) {
                dot = std::min(m.path.find('.', at), m.path.size());
                parts.push_back(path_part(m.path.substr(at, dot - at)));
            }
            const std::string path = "contest." + join(parts, ".");
            Status judged;
            if (options.judged && m.judgement && l.label != model.baseline)
                judged = status_of(*m.judgement, options.target_mde_pct);
            const std::optional<std::string>& status = judged.status;
            ojson t = {{"build_id", build["id"]},
                       {"id", object_id(origin, "test\n" + key + "\n" + path +
                                                    (status ? judging : std::string()))},
                       {"origin", origin},
                       {"path", path},
                       {"comment", m.comment}};
            ojson number = {{"value", m.value}};
            if (!m.unit.empty()) number["unit"] = m.unit;
            t["number"] = number;
            if (status) t["status"] = *status;
            t["environment"] = environment;
            if (!l.started_at.empty()) t["start_time"] = l.started_at;
            ojson misc = m.misc;
            misc["label"] = l.label;
            if (m.judgement && l.label != model.baseline) {
                const Test& test = *m.judgement->test;
                misc["against"] = {
                    {"baseline", m.judgement->baseline},
                    {"method", test.method},
                    {"change_pct", misc_number(change_of_record(&test, std::nan("")))},
                    {"p_adjusted", misc_number(test.p_adjusted)},
                    {"significant", m.judgement->significant},
                    {"could_see", detectable_text(test)},
                    {"correction", correction_summary(model)},
                    {"alpha", model.alpha}};
                if (!test.withheld.empty()) misc["against"]["withheld"] = test.withheld;
                if (!judged.no_verdict.empty()) misc["against"]["no_verdict"] = judged.no_verdict;
                if (!m.judgement->judged) misc["against"]["judged"] = false;
            }
            t["misc"] = misc;
            tests.push_back(t);
        }
    }
    ojson submission = {{"version", {{"major", kKcidbMajor}, {"minor", kKcidbMinor}}},
                        {"checkouts", checkouts},
                        {"builds", builds},
                        {"tests", tests}};
    drop_nulls(submission);
    return submission;
}

}  // namespace contest
