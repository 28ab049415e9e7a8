#include "contest/history/stored_files.h"

#include "contest/history/db_session.h"
#include "contest/history/schema.h"
#include "contest/sys/errors.h"
#include "contest/sys/packed_text.h"
#include "contest/sys/text.h"

namespace contest::history {

namespace {

std::string labels_there(HistoryDb& db) {
    std::vector<std::string> labels;
    soci::rowset<std::string> rows =
        (session_of(db).prepare << "SELECT DISTINCT label FROM files ORDER BY label");
    for (const std::string& label : rows) {
        if (labels.size() == 20) {
            labels.push_back("...");
            break;
        }
        labels.push_back(printable(label));
    }
    return labels.empty() ? "none" : join(labels, ", ");
}

}  // namespace

std::vector<ResultFile> stored_files(HistoryDb& db, const std::vector<std::string>& labels) {
    std::vector<ResultFile> files;
    for (const std::string& label : labels) {
        struct Stored {
            std::string path, content;
        };
        std::vector<Stored> stored;
        db.guarded("reading the files of " + printable(label), [&] {
            // A database older than files.content is read as it is: each
            // file's content as not kept.
            const std::string content = db.schema_version() >= kFileContentSince ? "content" : "''";
            soci::rowset<soci::row> rows =
                (session_of(db).prepare
                     << "SELECT path, " + content +
                            " FROM files WHERE label = :l ORDER BY started_at, id",
                 soci::use(label));
            for (const soci::row& row : rows)
                stored.push_back({row.get<std::string>(0), row.get<std::string>(1)});
        });
        if (stored.empty())
            throw UsageError("'" + printable(label) + "' is not a label in " + db.target().shown +
                             " (labels there: " +
                             db.guarded("listing labels", [&] { return labels_there(db); }) + ")");
        for (const Stored& s : stored) {
            const std::string name = db.target().shown + ": " + printable(s.path);
            if (s.content.empty())
                throw UsageError(name + ": imported before the database kept files (schema " +
                                 "2): import it again (contest history import)");
            const auto text = unpacked_text(s.content, kMaxResultFileBytes);
            if (!text) throw UsageError(name + ": its stored content is not readable");
            files.push_back(result_from_text(*text, name));
            files.back().path = s.path;
        }
    }
    return files;
}

}  // namespace contest::history
