#include "contest/history/import.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "contest/analysis/measures.h"
#include "contest/history/db_session.h"
#include "contest/history/file_keys.h"
#include "contest/history/row_values.h"
#include "contest/result/result_paths.h"
#include "contest/sys/errors.h"
#include "contest/sys/packed_text.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::history {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The id of the row of `table` with this identity, made when missing. ON
// CONFLICT DO NOTHING: on PostgreSQL another import may make the same row
// at once; this one then waits for it and takes its id.
long long keyed_row(soci::session& sql, const std::string& table, const Keyed& k) {
    const std::string facts = k.facts.dump(-1, ' ', false, json::error_handler_t::replace);
    const std::string other_column = table == "machines" ? "fingerprint" : "description";
    sql << "INSERT INTO " + table + " (identity_sha256, name, " + other_column +
               ") VALUES (:i, :n, :f) ON CONFLICT (identity_sha256) DO NOTHING",
        soci::use(k.identity_sha256), soci::use(k.name), soci::use(facts);
    long long id = 0;
    sql << "SELECT id FROM " + table + " WHERE identity_sha256 = :i", soci::use(k.identity_sha256),
        soci::into(id);
    return id;
}

long long kernel_row(soci::session& sql, const KernelKey& k) {
    sql << "INSERT INTO kernels (identity_sha256, release, tree, ref, commit_id, config_sha256, "
           "build) VALUES (:i, :r, :t, :f, :c, :h, :b) ON CONFLICT (identity_sha256) DO NOTHING",
        soci::use(k.identity_sha256), soci::use(k.release), soci::use(k.tree), soci::use(k.ref),
        soci::use(k.commit), soci::use(k.config_sha256), soci::use(k.build);
    long long id = 0;
    sql << "SELECT id FROM kernels WHERE identity_sha256 = :i", soci::use(k.identity_sha256),
        soci::into(id);
    return id;
}

// Every latency probe's percentiles of one run: probe, "99.00", ns.
struct ProbePercentile {
    std::string probe, percentile;
    double ns;
};
std::vector<ProbePercentile> percentiles_of(const RunRecord& run) {
    std::vector<ProbePercentile> out;
    if (!run.latency.is_object()) return out;
    for (const auto& [probe, p] : run.latency.items()) {
        if (!p.is_object() || !p.contains("latency") || !p["latency"].is_object()) continue;
        const json& l = p["latency"];
        if (!l.contains("percentiles_ns") || !l["percentiles_ns"].is_object()) continue;
        for (const auto& [pct, v] : l["percentiles_ns"].items())
            if (v.is_number() && std::isfinite(v.get<double>()))
                out.push_back({valid_utf8(probe), valid_utf8(pct), v.get<double>()});
    }
    return out;
}

// A measure's or a percentile's row; `detail` is the percentile's name
// (unused for a measure).
struct ValueRow {
    long long run_id;
    std::string name, detail;
    double value;
};

// Rows a statement takes at most: one statement per row is a round trip to
// a PostgreSQL server each (a file has hundreds of rows), and both
// databases take this many values a statement (PostgreSQL 65,535, SQLite
// 32,766 since 3.32).
constexpr std::size_t kRowsPerStatement = 500;

// rows into `table`, kRowsPerStatement a statement: "INSERT INTO table
// (columns) VALUES (...), (...)", every value bound.
void insert_value_rows(soci::session& sql, const std::string& table, const std::string& columns,
                       bool with_detail, std::vector<ValueRow>& rows) {
    for (std::size_t first = 0; first < rows.size(); first += kRowsPerStatement) {
        const std::size_t last = std::min(rows.size(), first + kRowsPerStatement);
        std::string text = "INSERT INTO " + table + " (" + columns + ") VALUES ";
        soci::statement st(sql);
        for (std::size_t i = first; i < last; ++i) {
            const std::string n = std::to_string(i - first);
            text += (i == first ? "" : ", ") + std::string("(:r") + n + ", :n" + n +
                    (with_detail ? ", :d" + n : "") + ", :v" + n + ")";
            st.exchange(soci::use(rows[i].run_id));
            st.exchange(soci::use(rows[i].name));
            if (with_detail) st.exchange(soci::use(rows[i].detail));
            st.exchange(soci::use(rows[i].value));
        }
        st.alloc();
        st.prepare(text);
        st.define_and_bind();
        st.execute(true);
    }
}

void insert_runs(soci::session& sql, long long file_id, const ResultFile& file) {
    std::vector<ValueRow> measures, percentiles;
    for (const RunRecord& run : file.runs) {
        const std::string load = valid_utf8(run.load), status{run_status_name(run.status)},
                          reason = valid_utf8(run.reason);
        long long run_id = 0;
        sql << "INSERT INTO runs (file_id, load, run_index, round, boot, run_in_boot, status, "
               "reason) VALUES (:f, :l, :i, :o, :b, :n, :s, :w) RETURNING id",
            soci::use(file_id), soci::use(load), soci::use(run.index), soci::use(run.round),
            soci::use(run.boot), soci::use(run.run_in_boot), soci::use(status), soci::use(reason),
            soci::into(run_id);
        std::map<std::string, double> values = run_measures(run);
        values["wall_s"] = run.wall_s;
        for (const auto& [name, v] : values)
            if (std::isfinite(v)) measures.push_back({run_id, valid_utf8(name), "", v});
        for (const ProbePercentile& p : percentiles_of(run))
            percentiles.push_back({run_id, p.probe, p.percentile, p.ns});
    }
    insert_value_rows(sql, "run_measures", "run_id, measure, value", false, measures);
    insert_value_rows(sql, "probe_percentiles", "run_id, probe, percentile, value_ns", true,
                      percentiles);
}

// What a run is, wherever its file lies: the machine it ran on, its
// workload and kernel, its label and its start (all kept by --resume, which
// refuses another config). Every save of a run, and every copy of one, has
// the same key; two runs have the same key only if one machine started the
// same label of the same kernel and workload twice in one second.
struct RunKey {
    long long machine_id = 0, workload_id = 0, kernel_id = 0;
    std::string label, started;
};

// A save of a run: how far it got.
struct Save {
    long long file_id = 0;  // 0: the file being imported
    bool complete = false;
    long long runs = 0;
};

// The save that stands for its run: the complete one, else the one with
// more runs; on a tie the one imported later (its bytes may say more of the
// same runs: the end, why --runs auto stopped).
bool further(const Save& a, const Save& b) {
    if (a.complete != b.complete) return a.complete;
    return a.runs >= b.runs;
}

std::vector<Save> saves_of(soci::session& sql, const RunKey& run) {
    std::vector<Save> saves;
    soci::rowset<soci::row> rows =
        (sql.prepare << "SELECT f.id, f.complete, (SELECT COUNT(*) FROM runs r WHERE r.file_id = "
                        "f.id) FROM files f WHERE f.machine_id = :m AND f.label = :l AND "
                        "f.started_at = :s AND f.workload_id = :w AND f.kernel_id = :k",
         soci::use(run.machine_id), soci::use(run.label), soci::use(run.started),
         soci::use(run.workload_id), soci::use(run.kernel_id));
    for (const soci::row& row : rows)
        saves.push_back({integer_at(row, 0), integer_at(row, 1) != 0, integer_at(row, 2)});
    return saves;
}

// One file's rows: its runs, their measures and percentiles, and itself.
void remove_file(soci::session& sql, long long file_id) {
    const std::string of_runs = "SELECT id FROM runs WHERE file_id = :f";
    for (const std::string& statement :
         {"DELETE FROM probe_percentiles WHERE run_id IN (" + of_runs + ")",
          "DELETE FROM run_measures WHERE run_id IN (" + of_runs + ")",
          std::string("DELETE FROM runs WHERE file_id = :f"),
          std::string("DELETE FROM files WHERE id = :f")})
        sql << statement, soci::use(file_id);
}

// Two imports of saves of one run at once on PostgreSQL: the second waits
// here until the first commits, then finds its save (READ COMMITTED: each
// statement after sees what committed before it). Without it the second's
// removal of earlier saves could run half before the first's commit and
// half after, and delete a file whose runs it had not deleted. SQLite's
// BEGIN IMMEDIATE already lets one writer in at a time. The key's first
// word is contest's (migrate() locks 5701057 alone, another key space).
void lock_run(HistoryDb& db, const std::vector<std::string>& identities, const RunKey& run) {
    if (!db.postgresql()) return;
    std::string key_text;
    for (const std::string& identity : identities) key_text += identity + '\n';
    const std::string sha = sha256_hex(key_text + run.label + '\n' + run.started);
    const int key =
        static_cast<int>(static_cast<std::uint32_t>(std::stoul(sha.substr(0, 8), nullptr, 16)));
    session_of(db) << "SELECT pg_advisory_xact_lock(5701058, :k)", soci::use(key);
}

// Whether the database holds the file of these bytes with its content.
bool kept_already(HistoryDb& db, const std::string& text) {
    const std::string sha = sha256_hex(text);
    int kept = 0;
    db.guarded("looking a file up", [&] {
        session_of(db) << "SELECT COUNT(*) FROM files WHERE content_sha256 = :h AND content <> ''",
            soci::use(sha), soci::into(kept);
    });
    return kept > 0;
}

}  // namespace

Imported import_result(HistoryDb& db, const ResultFile& file, const std::string& text,
                       const std::string& imported_at) {
    const std::string content_sha256 = sha256_hex(text);
    const Keyed machine_key = machine_of(file), workload_key = workload_of(file);
    const KernelKey kernel_key = kernel_of(file);
    RunKey run;
    run.label = valid_utf8(file.label);
    run.started = valid_utf8(file.started_at);
    Imported outcome = Imported::already_in;
    db.in_transaction([&] {
        soci::session& sql = session_of(db);
        lock_run(
            db,
            {machine_key.identity_sha256, workload_key.identity_sha256, kernel_key.identity_sha256},
            run);
        long long known = 0;
        soci::indicator ind = soci::i_null;
        sql << "SELECT id FROM files WHERE content_sha256 = :h", soci::use(content_sha256),
            soci::into(known, ind);
        if (sql.got_data()) {
            // Imported before the database kept files' content (schema 2).
            // A named value: SOCI runs the statement as its temporary ends,
            // after a temporary argument would have gone.
            const std::string content = packed_text(text);
            sql << "UPDATE files SET content = :c WHERE id = :i AND content = ''",
                soci::use(content), soci::use(known);
            return;
        }
        run.machine_id = keyed_row(sql, "machines", machine_key);
        run.workload_id = keyed_row(sql, "workloads", workload_key);
        run.kernel_id = kernel_row(sql, kernel_key);
        // The run's other saves (its file as it stood before, a copy of it
        // fetched elsewhere): one stands for the run, or its runs count
        // twice. The others go, this one too when it is not the furthest.
        const Save incoming{0, file.complete, static_cast<long long>(file.runs.size())};
        Save best = incoming;
        const std::vector<Save> saves = saves_of(sql, run);
        for (const Save& s : saves)
            if (!further(best, s)) best = s;
        for (const Save& s : saves)
            if (s.file_id != best.file_id) remove_file(sql, s.file_id);
        if (best.file_id != 0) {
            outcome = Imported::superseded;
            return;
        }
        const std::string path = valid_utf8(file.path.string()),
                          finished = valid_utf8(file.finished_at),
                          version = valid_utf8(file.contest_version);
        const int complete = file.complete ? 1 : 0;
        long long file_id = 0;
        const std::string content = packed_text(text);
        sql << "INSERT INTO files (content_sha256, path, label, started_at, finished_at, "
               "complete, contest_version, machine_id, workload_id, kernel_id, imported_at, "
               "content) VALUES (:h, :p, :l, :s, :f, :c, :v, :m, :w, :k, :t, :x) "
               "ON CONFLICT (content_sha256) DO NOTHING RETURNING id",
            soci::use(content_sha256), soci::use(path), soci::use(run.label),
            soci::use(run.started), soci::use(finished), soci::use(complete), soci::use(version),
            soci::use(run.machine_id), soci::use(run.workload_id), soci::use(run.kernel_id),
            soci::use(imported_at), soci::use(content), soci::into(file_id);
        // The same bytes in already (their run's lock above makes this a
        // safeguard): nothing to add.
        if (!sql.got_data()) return;
        insert_runs(sql, file_id, file);
        outcome = Imported::added;
    });
    return outcome;
}

ImportTally import_paths(HistoryDb& db, const std::vector<std::filesystem::path>& paths,
                         const std::string& imported_at) {
    ImportTally tally;
    for (const auto& path : result_file_paths(paths, tally.skipped)) {
        std::string text;
        ResultFile file;
        try {
            text = read_result_text(path);
            // A file known by its bytes, its content kept, is in already:
            // no need to read it as a result file again.
            if (kept_already(db, text)) {
                ++tally.already_in;
                continue;
            }
            file = result_from_text(text, printable(path.string()));
        } catch (const UsageError& e) {
            tally.skipped.push_back(e.what());
            continue;
        }
        file.path = fs::absolute(path).lexically_normal();
        Imported outcome = Imported::already_in;
        try {
            outcome = db.guarded("importing " + printable(path.string()),
                                 [&] { return import_result(db, file, text, imported_at); });
        } catch (const UsageError& e) {
            // The database refused this file's rows (a value, a constraint):
            // its transaction left nothing, and the next file may go in.
            tally.refused.push_back(e.what());
            continue;
        } catch (const EnvironmentError& e) {
            // On SQLite that is the machine's (a lock held too long, a full
            // disk): every file after would meet it. On PostgreSQL every
            // error is one; a server that still answers refused this file.
            if (!db.postgresql() || !db.answers()) throw;
            tally.refused.push_back(e.what());
            continue;
        }
        if (outcome == Imported::added) {
            ++tally.added;
            tally.runs += static_cast<int>(file.runs.size());
        } else {
            ++tally.already_in;
        }
    }
    return tally;
}

}  // namespace contest::history
