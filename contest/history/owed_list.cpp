#include "contest/history/owed_list.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "contest/sys/text.h"

namespace contest::history {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kOwedListSchema = 1;

// A text field of at most `most` bytes, printable (valid UTF-8, no control characters).
std::optional<std::string> owed_text_field(const json& entry, const char* name, std::size_t most) {
    const auto it = entry.find(name);
    if (it == entry.end() || !it->is_string()) return std::nullopt;
    const auto& s = it->get_ref<const std::string&>();
    if (s.empty() || s.size() > most || !is_printable(s)) return std::nullopt;
    return s;
}

}  // namespace

std::vector<OwedSave> parse_owed_saves(const std::string& text, std::size_t* dropped) {
    std::size_t bad = 0;
    std::vector<OwedSave> saves;
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    const auto entries = doc.is_object() ? doc.find("owed") : doc.end();
    if (!doc.is_object() || entries == doc.end() || !entries->is_array() ||
        !doc.contains("schema") || doc["schema"] != kOwedListSchema) {
        if (dropped) *dropped = text.empty() ? 0 : 1;
        return saves;
    }
    for (const json& e : *entries) {
        if (saves.size() >= kMostOwed) {
            ++bad;
            continue;
        }
        const auto database = e.is_object() ? owed_text_field(e, "database", 4096) : std::nullopt;
        const auto file = e.is_object() ? owed_text_field(e, "file", 4096) : std::nullopt;
        const auto sha = e.is_object() ? owed_text_field(e, "sha256", 64) : std::nullopt;
        const auto since = e.is_object() ? owed_text_field(e, "since", 64) : std::nullopt;
        if (!database || !file || !sha || !since || !fs::path(*file).is_absolute()) {
            ++bad;
            continue;
        }
        saves.push_back({*database, *file, *sha, *since});
    }
    if (dropped) *dropped = bad;
    return saves;
}

std::string owed_saves_text(const std::vector<OwedSave>& saves) {
    json entries = json::array();
    for (const auto& s : saves)
        entries.push_back(
            {{"database", s.database}, {"file", s.file}, {"sha256", s.sha256}, {"since", s.since}});
    return json{{"schema", kOwedListSchema}, {"owed", entries}}.dump(1) + "\n";
}

}  // namespace contest::history
