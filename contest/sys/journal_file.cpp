#include "contest/sys/journal_file.h"

#include <fcntl.h>

#include <cerrno>

#include "contest/sys/errors.h"
#include "contest/sys/json_record.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"

namespace contest {

nlohmann::json journal_json_from_text(const std::string& text, const std::string& where) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw UsageError(where + ": not JSON");
    take_schema(j, kRunJournalSchema, where);
    return j;
}

std::string journal_text(nlohmann::json j) {
    j["schema"] = kRunJournalSchema;
    return j.dump(2) + "\n";
}

nlohmann::json read_journal_json(const std::filesystem::path& path_in, const std::string& what) {
    const std::filesystem::path path = path_in.lexically_normal();
    const std::string where = printable(path.string());
    const RegularFileRead got =
        read_regular_file_at(AT_FDCWD, path.c_str(), kMaxRunJournalBytes, false);
    // A path that names something else (a FIFO, a device, a link, a folder,
    // nothing) is what was typed; a file that cannot be read is the machine.
    using R = RegularFileRead::Refusal;
    const bool named_wrong =
        got.refusal == R::symlink || got.refusal == R::not_regular || got.refusal == R::too_large ||
        (got.refusal == R::cannot_open && (got.error == ENOENT || got.error == ENOTDIR ||
                                           got.error == EISDIR || got.error == ELOOP));
    if (named_wrong) throw UsageError(what + " " + where + ": " + got.why());
    if (got.refusal != R::none) throw EnvironmentError(what + " " + where + ": " + got.why());
    return journal_json_from_text(got.text, where);
}

}  // namespace contest
