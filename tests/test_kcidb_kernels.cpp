// contest export of kernels as contest's runs record them: the commit of a
// kernel contest built from TREE@REF, read from the record kbuild writes
// (config.kernel.build under --kernel, config.boot.build under --boot),
// through the writers a run uses; and a --boot label that never booted is
// no valid build. (The [vm-kbuild] test of test_kbuild.cpp exports the
// files of a real `contest run --kernel A=TREE@REF` too.)
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/boot/boot_state.h"
#include "contest/report/kcidb_export.h"
#include "contest/report/report_options.h"
#include "contest/result/guest_fields.h"
#include "contest/result/result_file.h"
#include "contest/result/run_status.h"
#include "contest/run/places/boot/boot_turn.h"
#include "contest/run/places/guests/kernel_guests.h"
#include "contest/run/record/result_writer.h"
#include "kbuild_stand_in.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;
using namespace contest::report_test;

namespace {

nlohmann::ordered_json exported(const std::vector<ResultFile>& files, const std::string& baseline) {
    ReportOptions o;
    o.baseline = baseline;
    o.print_warnings = false;
    KcidbOptions k;
    k.origin = "contest_ci";
    return kcidb_submission(files, build_report_model(files, o), k);
}

// label -> the object of `kind` ("checkouts", "builds") of that label.
std::map<std::string, nlohmann::ordered_json> by_label(const nlohmann::ordered_json& submission,
                                                       const char* kind) {
    std::map<std::string, std::string> label_of_checkout;
    for (const auto& c : submission["checkouts"])
        label_of_checkout[c["id"].get<std::string>()] = c["misc"]["label"].get<std::string>();
    std::map<std::string, nlohmann::ordered_json> out;
    for (const auto& o : submission[kind]) {
        const std::string checkout = o.contains("checkout_id") ? o["checkout_id"].get<std::string>()
                                                               : o["id"].get<std::string>();
        out[label_of_checkout.at(checkout)] = o;
    }
    return out;
}

// `file` saved by the run's writer and read back, as `contest export` reads it.
ResultFile saved_and_read(const ResultFile& file, const fs::path& folder) {
    fs::create_directories(folder / file.label);
    const fs::path path = folder / file.label / "run.json";
    ResultWriter(path).save(file);
    return read_result_file(path);
}

}  // namespace

TEST_CASE("kcidb export: the commit of a kernel contest built from TREE@REF, --kernel and --boot",
          "[kcidb][kbuild]") {
    test::StandIn s;
    const auto built =
        s.build({{"A", s.tree.string() + "@main"}, {"B", s.tree.string() + "@side"}});
    REQUIRE(built.size() == 2);
    REQUIRE(built[0]);
    REQUIRE(built[1]);
    const std::string main_commit = test::sh(s.tree, "git rev-parse main");
    REQUIRE(built[0]->record.commit == main_commit);

    auto files = fixture_files();
    std::vector<ResultFile> written;
    for (auto& f : files) {
        if (f.label == "6.1.0-hz1000") {
            // --kernel: the label's kernel as place_guests hands it on and
            // kernel_record writes it into the file.
            f.label = "A";
            LabelRun label;
            label.label = "A";
            label.kernel.emplace();
            label.kernel->image = built[0]->image;
            label.kernel->build = built[0]->record.to_json();
            record_guest_setup(f, nlohmann::json::object(), KernelGuests::kernel_record(label));
        } else if (f.label == "6.1.0-rt") {
            // --boot: the state's copy of the record, as boot_record writes it.
            f.label = "B";
            BootState state;
            BootLabel b;
            b.label = "B";
            b.build = built[1]->record.to_json().dump();
            state.labels.push_back(b);
            f.config["boot"] = boot_record(state, 0);
        }
        written.push_back(saved_and_read(f, s.scratch / "results"));
    }
    const auto checkouts = by_label(exported(written, "6.1.0-hz100"), "checkouts");
    CHECK(checkouts.at("A")["git_commit_hash"] == main_commit);
    CHECK(checkouts.at("A")["misc"]["build_ref"] == "main");
    CHECK(checkouts.at("B")["git_commit_hash"] == s.base);
    CHECK(checkouts.at("B")["misc"]["build_ref"] == "side");
    // A local tree is no place KCIDB can name.
    CHECK_FALSE(checkouts.at("A").contains("git_repository_url"));
    CHECK_FALSE(checkouts.at("6.1.0-hz100").contains("git_commit_hash"));
}

TEST_CASE("kcidb export: a --boot label none of whose turns booted is no valid build", "[kcidb]") {
    auto files = fixture_files();
    for (auto& f : files)
        if (f.label == "6.1.0-rt")
            for (auto& r : f.runs) {
                r.status = RunStatus::boot_failed;
                r.reason = "the kernel booted was 6.1.0-57-amd64, not 6.1.0-rt's";
            }
    const auto s = exported(files, "6.1.0-hz100");
    const auto builds = by_label(s, "builds");
    CHECK(builds.at("6.1.0-hz100")["valid"] == true);
    CHECK_FALSE(builds.at("6.1.0-rt").contains("valid"));
    CHECK(builds.at("6.1.0-rt")["misc"]["never_booted"].get<std::string>().find(
              "the kernel booted was 6.1.0-57-amd64") != std::string::npos);
    // Its boots as a test of their own, failed.
    bool boot_test = false;
    for (const auto& t : s["tests"])
        if (t["misc"]["label"] == "6.1.0-rt" && t["path"] == "contest.boot") {
            boot_test = true;
            CHECK(t["status"] == "FAIL");
            CHECK(t["build_id"] == builds.at("6.1.0-rt")["id"]);
        }
    CHECK(boot_test);
}
