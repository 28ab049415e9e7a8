#include "contest/history/import.h"

#include <soci/soci.h>

#include <algorithm>
#include <cmath>

#include "contest/analysis/measures.h"
#include "contest/history/file_keys.h"
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

// Every row of the files at `path` of the run of `label` that started at
// `started` (a file's earlier saves), with their runs, measures and percentiles.
void remove_earlier_saves(soci::session& sql, const std::string& path, const std::string& label,
                          const std::string& started) {
    const std::string of_files =
        "SELECT id FROM files WHERE path = :p AND label = :l AND started_at = :s";
    const std::string of_runs = "SELECT id FROM runs WHERE file_id IN (" + of_files + ")";
    for (const std::string& statement :
         {"DELETE FROM probe_percentiles WHERE run_id IN (" + of_runs + ")",
          "DELETE FROM run_measures WHERE run_id IN (" + of_runs + ")",
          "DELETE FROM runs WHERE file_id IN (" + of_files + ")",
          std::string("DELETE FROM files WHERE path = :p AND label = :l AND started_at = :s")})
        sql << statement, soci::use(path), soci::use(label), soci::use(started);
}

// Whether the database holds the file of these bytes with its content.
bool kept_already(HistoryDb& db, const std::string& text) {
    const std::string sha = sha256_hex(text);
    int kept = 0;
    db.guarded("looking a file up", [&] {
        db.sql() << "SELECT COUNT(*) FROM files WHERE content_sha256 = :h AND content <> ''",
            soci::use(sha), soci::into(kept);
    });
    return kept > 0;
}

}  // namespace

Imported import_result(HistoryDb& db, const ResultFile& file, const std::string& text,
                       const std::string& imported_at) {
    const std::string content_sha256 = sha256_hex(text);
    Imported outcome = Imported::already_in;
    db.in_transaction([&] {
        soci::session& sql = db.sql();
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
        const long long machine = keyed_row(sql, "machines", machine_of(file));
        const long long workload = keyed_row(sql, "workloads", workload_of(file));
        const long long kernel = kernel_row(sql, kernel_of(file));
        const std::string path = valid_utf8(file.path.string()), label = valid_utf8(file.label),
                          started = valid_utf8(file.started_at),
                          finished = valid_utf8(file.finished_at),
                          version = valid_utf8(file.contest_version);
        const int complete = file.complete ? 1 : 0;
        // The same file as it stood before (its run had fewer runs then):
        // its runs are all in this one, and would count twice.
        remove_earlier_saves(sql, path, label, started);
        long long file_id = 0;
        // Another import of the same file at once (PostgreSQL): it waits
        // here for the first, then finds the file in and adds nothing.
        const std::string content = packed_text(text);
        sql << "INSERT INTO files (content_sha256, path, label, started_at, finished_at, "
               "complete, contest_version, machine_id, workload_id, kernel_id, imported_at, "
               "content) VALUES (:h, :p, :l, :s, :f, :c, :v, :m, :w, :k, :t, :x) "
               "ON CONFLICT (content_sha256) DO NOTHING RETURNING id",
            soci::use(content_sha256), soci::use(path), soci::use(label), soci::use(started),
            soci::use(finished), soci::use(complete), soci::use(version), soci::use(machine),
            soci::use(workload), soci::use(kernel), soci::use(imported_at), soci::use(content),
            soci::into(file_id);
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
        const auto outcome = db.guarded("importing " + printable(path.string()),
                                        [&] { return import_result(db, file, text, imported_at); });
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
