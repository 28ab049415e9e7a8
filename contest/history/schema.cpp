#include "contest/history/schema.h"

namespace contest::history {

namespace {

// Version 1. A result file is a row of files, known by the SHA-256 of its
// bytes (an import of the same file again adds nothing), and points at the
// machine, workload and kernel it ran on, each a row kept once by the
// SHA-256 of its identity (file_keys.h). Each run of the file is a row of
// runs; each of its measures (Time's wall_s and every measure of
// contest/analysis/measures.h) a row of run_measures, each latency
// probe's percentile a row of probe_percentiles.
const Migration kMigrations[] = {
    {1,
     {
         "CREATE TABLE machines (id {id}, identity_sha256 TEXT NOT NULL UNIQUE, "
         "name TEXT NOT NULL, fingerprint TEXT NOT NULL)",
         "CREATE TABLE workloads (id {id}, identity_sha256 TEXT NOT NULL UNIQUE, "
         "name TEXT NOT NULL, description TEXT NOT NULL)",
         "CREATE TABLE kernels (id {id}, identity_sha256 TEXT NOT NULL UNIQUE, "
         "release TEXT NOT NULL, tree TEXT NOT NULL, ref TEXT NOT NULL, commit_id TEXT NOT NULL, "
         "config_sha256 TEXT NOT NULL, build TEXT NOT NULL)",
         "CREATE TABLE files (id {id}, content_sha256 TEXT NOT NULL UNIQUE, path TEXT NOT NULL, "
         "label TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NOT NULL, "
         "complete INTEGER NOT NULL, contest_version TEXT NOT NULL, "
         "machine_id BIGINT NOT NULL REFERENCES machines(id), "
         "workload_id BIGINT NOT NULL REFERENCES workloads(id), "
         "kernel_id BIGINT NOT NULL REFERENCES kernels(id), imported_at TEXT NOT NULL)",
         "CREATE TABLE runs (id {id}, file_id BIGINT NOT NULL REFERENCES files(id), "
         "load TEXT NOT NULL, run_index INTEGER NOT NULL, round INTEGER NOT NULL, "
         "status TEXT NOT NULL, reason TEXT NOT NULL)",
         "CREATE TABLE run_measures (run_id BIGINT NOT NULL REFERENCES runs(id), "
         "measure TEXT NOT NULL, value {real} NOT NULL, PRIMARY KEY (run_id, measure))",
         "CREATE TABLE probe_percentiles (run_id BIGINT NOT NULL REFERENCES runs(id), "
         "probe TEXT NOT NULL, percentile TEXT NOT NULL, value_ns {real} NOT NULL, "
         "PRIMARY KEY (run_id, probe, percentile))",
         "CREATE INDEX files_by_series ON files (machine_id, workload_id)",
         "CREATE INDEX runs_by_file ON runs (file_id)",
     }},
    // Version 2: a file's earlier saves found by where it is and when its run
    // started: `contest run` saves a label's file after every turn, and each
    // save replaces the one before it (import.h).
    {2,
     {
         "CREATE INDEX files_by_place ON files (path, label, started_at)",
     }},
    // Version 3: each file itself, packed (contest/sys/packed_text.h), so what
    // reads files can read them from the database (the KCIDB export); '' for
    // a file imported before, until it is imported again.
    {3,
     {
         "ALTER TABLE files ADD COLUMN content TEXT NOT NULL DEFAULT ''",
         "CREATE INDEX files_by_label ON files (label)",
     }},
    // Version 4: a --kernel guest's run's boot and its place among that
    // boot's runs (--runs-per-boot), so noise by level can be read from the
    // database; 0 where the run had none, and for a run imported before.
    {4,
     {
         "ALTER TABLE runs ADD COLUMN boot INTEGER NOT NULL DEFAULT 0",
         "ALTER TABLE runs ADD COLUMN run_in_boot INTEGER NOT NULL DEFAULT 0",
     }},
    // Version 6: changes people triage (triage.h). A change is its series and
    // the kernels either side as the latest look placed it, its state the
    // latest of its rows of change_triage (each setting kept: who, when, why,
    // the bug); change_mails, the robot's one mail of a group of changes.
    // (Numbered after version 5, a run's identity, made beside it.)
    {6,
     {
         "CREATE TABLE changes (id {id}, machine_id BIGINT NOT NULL REFERENCES machines(id), "
         "workload_id BIGINT NOT NULL REFERENCES workloads(id), load TEXT NOT NULL, "
         "measure TEXT NOT NULL, before_kernel_id BIGINT NOT NULL REFERENCES kernels(id), "
         "after_kernel_id BIGINT NOT NULL REFERENCES kernels(id), moved {real} NOT NULL, "
         "p {real} NOT NULL, status TEXT NOT NULL, back_after BIGINT NOT NULL, "
         "found_at TEXT NOT NULL, seen_at TEXT NOT NULL)",
         "CREATE INDEX changes_by_series ON changes (machine_id, workload_id, load, measure)",
         "CREATE INDEX changes_by_status ON changes (status)",
         "CREATE TABLE change_triage (id {id}, change_id BIGINT NOT NULL REFERENCES changes(id), "
         "status TEXT NOT NULL, note TEXT NOT NULL, bug TEXT NOT NULL, of_change BIGINT NOT NULL, "
         "by_whom TEXT NOT NULL, triaged_at TEXT NOT NULL)",
         "CREATE INDEX change_triage_by_change ON change_triage (change_id)",
         "CREATE TABLE change_mails (group_key TEXT NOT NULL UNIQUE, first_bad TEXT NOT NULL, "
         "mail TEXT NOT NULL, claimant TEXT NOT NULL, mailed_at TEXT NOT NULL)",
     }},
};

void replace_every(std::string& s, const std::string& what, const std::string& with) {
    for (std::size_t at = s.find(what); at != std::string::npos;
         at = s.find(what, at + with.size()))
        s.replace(at, what.size(), with);
}

}  // namespace

std::span<const Migration> migrations() {
    return kMigrations;
}

int current_schema_version() {
    return migrations().back().version;
}

std::string schema_statement(const char* statement, bool postgresql) {
    std::string s = statement;
    // SQLite's INTEGER PRIMARY KEY is the row id, given on insert.
    replace_every(s, "{id}", postgresql ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
    replace_every(s, "{real}", postgresql ? "DOUBLE PRECISION" : "REAL");
    return s;
}

}  // namespace contest::history
