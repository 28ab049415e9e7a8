#include "contest/run/plan/run_journal.h"

#include "contest/history/pg_uri.h"
#include "contest/kbuild/kernel_ref.h"
#include "contest/latency/probe_table.h"
#include "contest/run/plan/places.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_record.h"
#include "contest/sys/record_paths.h"
#include "contest/sys/text.h"
#include "loads/registry.h"
#include "workloads/kernel.h"

// The records of a journal, each field named once (sys/json_record.h).
// They are declared in the namespaces of their types, where the codec's
// argument-dependent lookup finds them; each is this file's alone.

namespace contest {

namespace latency {

template <typename V, RecordOf<ProbeOptions> R>
void fields(V& v, R& p) {
    // The probe by its name in the probe table.
    std::string name(p.probe ? p.probe->name : "");
    v("probe", name);
    if constexpr (V::reading) {
        p.probe = find_probe(name);
        if (!p.probe) v.refuse("probe", "'" + printable(name) + "' is no probe");
    }
    v("period_ns", p.period_ns);
    v("cpu_share", p.cpu_share);
    v("method", p.method);
    v("policy", p.policy);
    v("priority", p.priority);
    v("exec_argv", p.exec_argv);
    v("exec_missed_ns", p.exec_missed_ns);
    v.path("raw_path", p.raw_path);
    v("why_threshold_ns", p.why_threshold_ns);
}

}  // namespace latency

template <typename V, RecordOf<WorkloadOptions> R>
void fields(V& v, R& w) {
    v("kind", w.kind);
    v.path("workdir", w.workdir);
    v("jobs", w.jobs);
    v("synthetic_size", w.synthetic_size);
    v.path("kernel_source", w.kernel_source);
    v.path("kernel_config", w.kernel_config, [](std::string& config) {
        if (!is_named_kernel_config(config)) AbsolutePath{}(config);
    });
    v("workload_cmd", w.workload_cmd);
    v("prepare_cmd", w.prepare_cmd);
    v("clean_cmd", w.clean_cmd);
}

template <typename V, RecordOf<LoadOptions> R>
void fields(V& v, R& l) {
    v.path("workdir", l.workdir);
    v.path("workload_source", l.workload_source);
    v.path("values", l.values, [](auto& values) {
        for (const auto& name : load_path_options())
            if (auto it = values.find(name); it != values.end()) AbsolutePath{}(it->second);
    });
}

template <typename V, RecordOf<AutoRuns> R>
void fields(V& v, R& a) {
    v("target_ci_pct", a.target_ci_pct);
    v("target_mde_pct", a.target_mde_pct);
    v("max_runs", a.max_runs);
    v("budget_s", a.budget_s);
    v("adjust_outside", a.adjust_outside);
}

template <typename V, RecordOf<VarySpec> R>
void fields(V& v, R& s) {
    v("knob", s.knob);
    v("values", s.values);
}

template <typename V, RecordOf<KernelSpec> R>
void fields(V& v, R& k) {
    v("label", k.label);
    v("image", k.image);
}

template <typename V, RecordOf<GuestShape> R>
void fields(V& v, R& s) {
    v("cpus", s.cpus);
    v("memory_mib", s.memory_mib);
}

template <typename V, RecordOf<VmOptions> R>
void fields(V& v, R& o) {
    v("accel", o.accel);
    v("shape", o.shape);
    v("boot_timeout_s", o.boot_timeout_s);
    v("timeout_s", o.timeout_s);
    v("append", o.append);
    v("disk_mib", o.disk_mib);
    v("duet", o.duet);
    v.absent_when_default("runs_per_boot", o.runs_per_boot);
}

template <typename V, RecordOf<RunConfig> R>
void fields(V& v, R& c) {
    v("label", c.label);
    v("runs", c.runs);
    v("loads", c.loads);
    v("workload", c.workload);
    v("load", c.load);
    v.path("results_dir", c.results_dir);
    // The sinks as journals have always named them (the database, the one
    // kind: its --db and whether it is there), so that every journal reads.
    const SinkSpec* database = database_sink(c.sinks);
    std::string history_db = database ? database->where : "";
    bool history = database != nullptr;
    v.path("history_db", history_db, [](std::string& db) {
        if (!history::is_postgresql_uri(db)) AbsolutePath{}(db);
    });
    v("history", history);
    if constexpr (V::reading) {
        c.sinks.clear();
        if (history) c.sinks.push_back({SinkKind::results_database, history_db});
    } else if constexpr (!std::is_const_v<R>) {
        // A walk that changes the record (its paths made absolute).
        for (SinkSpec& sink : c.sinks)
            if (sink.kind == SinkKind::results_database) sink.where = history_db;
    }
    v("warmup_s", c.warmup_s);
    v("drop_caches", c.drop_caches);
    v("settle_s", c.settle_s);
    v("order", c.order);
    v("seed", c.seed);
    v("auto_runs", c.auto_runs);
    v("perf", c.perf);
    v("timeline_hz", c.timeline_hz);
    v("latency_probes", c.latency_probes);
    v("latency_dist_ns", c.latency_dist_ns);
    v("timeout_s", c.timeout_s);
    v("resume", c.resume);
    v("vary", c.vary);
    v("vary_label", c.vary_label);
    v("command_line", c.command_line);
    // The place by its name in the place table (places.h).
    std::string place(place_info(c.place).name);
    v("place", place);
    if constexpr (V::reading) {
        const auto named = place_named(place);
        if (!named) v.refuse("place", "'" + printable(place) + "' is no place");
        c.place = *named;
    }
    v.path("kernels", c.kernels, [](std::vector<KernelSpec>& kernels) {
        for (auto& kernel : kernels) kernel.image = kbuild::absolute_kernel_spec(kernel.image);
    });
    v.path("build_config", c.build_config);
    v("build_cache_max_gib", c.build_cache_max_gib);
    v("vm", c.vm);
    v("delegated", c.delegated);
    v("boot_appends", c.boot_appends);
    v("start_barrier", c.start_barrier);
}

template <typename V, RecordOf<RunJournal> R>
void fields(V& v, R& j) {
    v("started_at", j.started_at);
    v("config", j.config);
    fields(v, j.turns);  // at the top level (sys/journal_turns.h)
    v.absent_when_default("results", j.results);
}

void make_paths_absolute(RunConfig& config) {
    PathsMadeAbsolute::of(config);
}

namespace {

// The run's section: its fields but the boot facts and the boot options,
// which are the boot layer's sections (boot/boot_state.h,
// boot/boot_options.h), and the bisection's state.
nlohmann::json run_section_json(const RunJournal& journal) {
    nlohmann::json j = RecordWriter::json_of(journal, "the run's journal");
    // A password a --config file gave in db = postgresql://... (one on the
    // command line is gone at the start, cli/db_password.h) is not kept in
    // the journal: --resume's libpq finds it where it belongs (~/.pgpass,
    // PGPASSWORD, a service file).
    if (auto c = j.find("config"); c != j.end() && c->is_object())
        if (auto db = c->find("history_db");
            db != c->end() && db->is_string() && history::is_postgresql_uri(db->get<std::string>()))
            *db = history::without_password(db->get<std::string>());
    return j;
}

RunJournal run_section_from_json(const nlohmann::json& fields, const std::string& where) {
    RunJournal journal;
    RecordReader::read(fields, where, journal);
    return journal;
}

}  // namespace

const JournalSection<RunJournal> kRunSection{
    {"started_at", "config", "results", "turns", "next_turn"},
    run_section_json,
    run_section_from_json};

void put_run_journal(JournalFile& file, const RunJournal& journal) {
    file.put(kRunSection, journal);
    file.put(kBootOptionsSection, journal.boot);
    if (journal.boot_run) file.put(kBootStateSection, *journal.boot_run);
}

std::string run_journal_text(const RunJournal& journal) {
    JournalFile file{std::filesystem::path()};
    put_run_journal(file, journal);
    return file.text();
}

RunJournal run_journal_from_text(const std::string& text, const std::string& where) {
    return run_journal_of(JournalFile::from_text(text, where));
}

RunJournal run_journal_of(const JournalFile& file) {
    const std::string& where = file.where();
    RunJournal journal = file.get(kRunSection);
    journal.boot = file.get(kBootOptionsSection);
    journal.boot_run = file.find(kBootStateSection);
    // (A bisection's state beside its batches' config is bisect/'s to read.)
    // A --boot run's turns name its state's labels; any other run's, its
    // labels, whose files it names (checked against its plan by the driver
    // that takes them, run_driver.h). A journal of no plan (a bisection's
    // batch config, a guest's turn) names no file: turns there are nothing
    // this contest wrote, refused rather than ignored.
    if (journal.boot_run)
        check_turn_labels(journal.turns, journal.boot_run->labels.size(), where);
    else if (!journal.turns.list.empty() && journal.results.empty())
        throw UsageError(where + ": turns: in the journal of a run that names no result file");
    else
        check_turn_labels(journal.turns, journal.results.size(), where);
    RunConfig& c = journal.config;
    // A turn's round is its runs' index in the result file: one of the
    // config's rounds (a round of 4000000000 would be saved as -294967296).
    check_turn_rounds(journal.turns, c.runs, where);
    // What the codec cannot know: what only a start makes (absolute
    // workdirs).
    for (const auto* path : {&c.workload.workdir, &c.load.workdir})
        if (!path->is_absolute())
            throw UsageError(where + ": config: workdir '" + printable(path->string()) +
                             "' is not an absolute path");
    if (!c.start_barrier.empty() && !c.start_barrier.is_absolute())
        throw UsageError(where + ": config: start_barrier '" + printable(c.start_barrier.string()) +
                         "' is not an absolute path");
    return journal;
}

}  // namespace contest
