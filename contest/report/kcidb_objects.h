#pragma once
// A label as KCIDB's objects (kcidb_export.h): its checkout, the build its
// runs ran under, the test of its kernel's failed boots and the
// environment of its tests; each id the origin and a digest of what the
// object is made of, so that the same files give the same ids.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"
#include "contest/result/result_file.h"

namespace contest::kcidb {

using ojson = nlohmann::ordered_json;

// An id: the origin, then a digest of what the object is made of.
std::string object_id(const std::string& origin, const std::string& made_of);
// A figure for `misc`: six significant digits, null where undefined.
ojson misc_number(double value);
ojson as_ordered(const nlohmann::json& j);

// What each label's objects are made of: its result files' content, in a
// fixed order (label -> key).
std::map<std::string, std::string> label_keys(const std::vector<ResultFile>& files);

// A --boot label's boots: the turns whose runs were recorded boot_failed,
// and why; whether any of its runs ran in its kernel.
struct Boots {
    bool any_booted = false;
    std::set<int> failed_rounds;
    std::vector<std::string> why;  // each reason once, in the order met
};

std::map<std::string, Boots> boots_of(const std::vector<ResultFile>& files);

ojson checkout_of(const LabelInfo& l, const std::string& key, const std::string& origin);
ojson build_of(const LabelInfo& l, const Boots& boots, const std::string& key,
               const std::string& checkout_id, const std::string& origin);
// contest.boot: a --boot label's turns whose kernel did not boot, FAIL.
ojson boot_test_of(const LabelInfo& l, const Boots& boots, const std::string& key,
                   const std::string& build_id, const std::string& origin);
ojson environment_of(const LabelInfo& l, const std::string& contest_version);

}  // namespace contest::kcidb
