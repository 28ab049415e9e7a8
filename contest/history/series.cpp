#include "contest/history/series.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "contest/history/db_session.h"
#include "contest/history/file_keys.h"
#include "contest/history/row_values.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::history {

namespace {

// Debian's order of one non-digit part: '~' before everything, even the
// end; letters before the other characters.
int char_order(int c) {
    if (c == '~') return -1;
    if (c == 0) return 0;
    if (std::isalpha(c)) return c;
    return c + 256;
}

int compare_versions(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        while ((i < a.size() && !std::isdigit(static_cast<unsigned char>(a[i]))) ||
               (j < b.size() && !std::isdigit(static_cast<unsigned char>(b[j])))) {
            const int ca = i < a.size() && !std::isdigit(static_cast<unsigned char>(a[i]))
                               ? char_order(static_cast<unsigned char>(a[i]))
                               : 0;
            const int cb = j < b.size() && !std::isdigit(static_cast<unsigned char>(b[j]))
                               ? char_order(static_cast<unsigned char>(b[j]))
                               : 0;
            if (ca != cb) return ca < cb ? -1 : 1;
            if (i < a.size() && !std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
            if (j < b.size() && !std::isdigit(static_cast<unsigned char>(b[j]))) ++j;
        }
        while (i < a.size() && a[i] == '0') ++i;
        while (j < b.size() && b[j] == '0') ++j;
        std::size_t ei = i, ej = j;
        while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
        while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
        if (ei - i != ej - j) return ei - i < ej - j ? -1 : 1;
        if (const int c = a.compare(i, ei - i, b, j, ej - j); c != 0) return c < 0 ? -1 : 1;
        i = ei;
        j = ej;
    }
    return 0;
}

// A kernel's release as a version: "-rcN" is a release candidate of what
// it leads to, which Debian's versions say with '~'.
std::string as_version(const std::string& release) {
    static const std::regex rc("-rc([0-9])");
    return std::regex_replace(release, rc, "~rc$1");
}

// Every measure of every run, with its file, machine and workload: what
// both the list and a series read.
constexpr const char* kMeasuresOfFiles =
    " FROM files f JOIN runs r ON r.file_id = f.id JOIN run_measures m ON m.run_id = r.id "
    "JOIN machines ma ON ma.id = f.machine_id JOIN workloads w ON w.id = f.workload_id ";

}  // namespace

bool release_before(const std::string& a, const std::string& b) {
    return compare_versions(as_version(a), as_version(b)) < 0;
}

std::string SeriesKey::text() const {
    return "m" + std::to_string(machine_id) + "/w" + std::to_string(workload_id) + "/" + load +
           "/" + measure;
}

std::optional<SeriesKey> parse_series_key(const std::string& text) {
    static const std::regex shape(R"(m([0-9]{1,15})/w([0-9]{1,15})/([^/]+)/([^/]+))");
    std::smatch m;
    if (!std::regex_match(text, m, shape)) return std::nullopt;
    SeriesKey k;
    k.machine_id = std::stoll(m[1]);
    k.workload_id = std::stoll(m[2]);
    k.load = m[3];
    k.measure = m[4];
    return k;
}

SeriesKey series_of_file(HistoryDb& db, const ResultFile& file, const std::string& load,
                         const std::string& measure) {
    SeriesKey key;
    key.load = load;
    key.measure = measure;
    const std::string machine = machine_of(file).identity_sha256,
                      workload = workload_of(file).identity_sha256;
    bool machine_in = false, workload_in = false;
    db.guarded("reading the series of " + printable(file.path.string()), [&] {
        soci::session& sql = session_of(db);
        sql << "SELECT id FROM machines WHERE identity_sha256 = :s", soci::use(machine),
            soci::into(key.machine_id);
        machine_in = sql.got_data();
        sql << "SELECT id FROM workloads WHERE identity_sha256 = :s", soci::use(workload),
            soci::into(key.workload_id);
        workload_in = sql.got_data();
    });
    if (!machine_in || !workload_in)
        throw UsageError(printable(file.path.string()) + ": its " +
                         (machine_in ? "workload" : "machine") + " is not in " +
                         printable(db.target().shown) + " (contest history import stores it)");
    return key;
}

const char* kernel_order_name(KernelOrder order) {
    switch (order) {
        case KernelOrder::commits:
            return "commit order";
        case KernelOrder::versions:
            return "version order";
        case KernelOrder::time:
            return "order of their first runs";
    }
    return "?";
}

std::vector<SeriesInfo> list_series(HistoryDb& db, const std::string& measure) {
    return db.guarded("listing its series", [&] {
        std::vector<SeriesInfo> out;
        const std::string all = measure.empty() ? "1" : "0";
        soci::rowset<soci::row> rows =
            (session_of(db).prepare
                 << std::string("SELECT f.machine_id, f.workload_id, r.load, m.measure, ma.name, "
                                "w.name, COUNT(DISTINCT f.kernel_id), COUNT(*)") +
                        kMeasuresOfFiles +
                        "WHERE r.status = 'ok' AND (:all = '1' OR m.measure = :measure) "
                        "GROUP BY f.machine_id, f.workload_id, r.load, m.measure, ma.name, w.name "
                        "ORDER BY f.machine_id, f.workload_id, r.load, m.measure",
             soci::use(all), soci::use(measure));
        for (const soci::row& row : rows) {
            SeriesInfo s;
            s.key.machine_id = integer_at(row, 0);
            s.key.workload_id = integer_at(row, 1);
            s.key.load = row.get<std::string>(2);
            s.key.measure = row.get<std::string>(3);
            s.machine = row.get<std::string>(4);
            s.workload = row.get<std::string>(5);
            s.kernels = static_cast<int>(integer_at(row, 6));
            s.runs = static_cast<int>(integer_at(row, 7));
            out.push_back(std::move(s));
        }
        return out;
    });
}

SeriesPoints series_points(HistoryDb& db, const SeriesKey& key, const CommitOrder& commit_order,
                           PointsBy by) {
    SeriesPoints out;
    out.info.key = key;
    std::map<long long, KernelPoint> by_point;
    db.guarded("reading series " + printable(key.text()), [&] {
        soci::rowset<soci::row> rows =
            (session_of(db).prepare
                 << std::string("SELECT k.id, k.release, k.tree, k.ref, k.commit_id, "
                                "f.started_at, f.label, m.value, ma.name, w.name, f.id") +
                        kMeasuresOfFiles +
                        "JOIN kernels k ON k.id = f.kernel_id WHERE r.status = 'ok' AND "
                        "f.machine_id = :m AND f.workload_id = :w "
                        "AND r.load = :l AND m.measure = :s ORDER BY f.started_at, f.id, r.id",
             soci::use(key.machine_id), soci::use(key.workload_id), soci::use(key.load),
             soci::use(key.measure));
        for (const soci::row& row : rows) {
            const long long id = integer_at(row, 0), file = integer_at(row, 10);
            KernelPoint& p = by_point[by == PointsBy::file ? file : id];
            if (p.values.empty()) {
                p.kernel_id = id;
                p.file_id = file;
                p.release = row.get<std::string>(1);
                p.tree = row.get<std::string>(2);
                p.ref = row.get<std::string>(3);
                p.commit = row.get<std::string>(4);
                p.first_run_at = row.get<std::string>(5);
            }
            const std::string label = row.get<std::string>(6);
            if (std::find(p.labels.begin(), p.labels.end(), label) == p.labels.end())
                p.labels.push_back(label);
            p.values.push_back(real_at(row, 7));
            out.info.machine = row.get<std::string>(8);
            out.info.workload = row.get<std::string>(9);
        }
    });
    if (by_point.empty())
        throw UsageError("no series " + printable(key.text()) +
                         " in the history (contest history lists them)");
    for (auto& [id, p] : by_point) {
        out.info.runs += static_cast<int>(p.values.size());
        out.points.push_back(std::move(p));
    }
    out.info.kernels = static_cast<int>(out.points.size());
    std::stable_sort(out.points.begin(), out.points.end(),
                     [](const auto& a, const auto& b) { return a.first_run_at < b.first_run_at; });
    if (by == PointsBy::file) return out;
    auto& pts = out.points;
    const bool one_tree = std::all_of(pts.begin(), pts.end(), [&](const KernelPoint& p) {
        return !p.commit.empty() && !p.tree.empty() && p.tree == pts.front().tree;
    });
    if (one_tree && commit_order) {
        std::vector<std::string> commits;
        for (const auto& p : pts) commits.push_back(p.commit);
        const std::vector<std::string> ordered = commit_order(pts.front().tree, commits);
        std::map<std::string, std::size_t> rank;
        for (std::size_t i = 0; i < ordered.size(); ++i) rank.emplace(ordered[i], i);
        if (std::all_of(pts.begin(), pts.end(),
                        [&](const KernelPoint& p) { return rank.count(p.commit) > 0; })) {
            std::stable_sort(pts.begin(), pts.end(), [&](const auto& a, const auto& b) {
                return rank[a.commit] < rank[b.commit];
            });
            out.order = KernelOrder::commits;
            return out;
        }
    }
    std::set<std::string> releases;
    for (const auto& p : pts) releases.insert(p.release);
    if (releases.size() == pts.size() && !releases.count("")) {
        std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
            return release_before(a.release, b.release);
        });
        out.order = KernelOrder::versions;
    }
    return out;
}

}  // namespace contest::history
