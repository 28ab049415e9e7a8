// A new run's paths are made absolute by its journal's own table of fields
// (run_journal_text.cpp: a field that is a path says so once, v.path), as
// the journal keeps them for --resume from any folder: every field it says
// is a path, and none it does not.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_journal.h"
#include "test_helpers.h"

using namespace contest;

TEST_CASE(
    "a new run's paths are made absolute by its journal's table of fields, names and URIs and "
    "numbers left as given",
    "[run][journal]") {
    namespace fs = std::filesystem;
    const fs::path here = fs::current_path();
    const auto at = [&](const std::string& p) { return (here / p).lexically_normal(); };
    test::ScratchDir dir("run-paths");
    test::put_file(dir / "bzImage", "");
    const fs::path image = fs::relative(dir / "bzImage", here);
    REQUIRE(image.is_relative());

    RunConfig c;
    c.workload.workdir = "w";
    c.load.workdir = "lw";
    c.results_dir = "r/./s";
    c.build_config = "b.config";
    c.workload.kernel_source = "src";
    c.load.workload_source = "ws";
    c.workload.kernel_config = "my.config";
    c.sinks = {{SinkKind::results_database, "h.sqlite"}};
    c.load.values = {{"io-other-dir", "other"}, {"ring-processes", "4"}};
    latency::ProbeOptions probe;
    probe.raw_path = "raw";
    c.latency_probes = {probe, latency::ProbeOptions{}};
    c.kernels = {{"a", image.string()}, {"b", "linux-image-6.1.0-13-amd64"}};
    c.boot_appends = {{"a", "quiet"}};
    c.resume = {"x.json"};
    c.start_barrier = "barrier";
    make_paths_absolute(c);

    CHECK(c.workload.workdir == at("w"));
    CHECK(c.load.workdir == at("lw"));
    CHECK(c.results_dir == at("r/s"));
    CHECK(c.build_config == at("b.config"));
    CHECK(c.workload.kernel_source == at("src"));
    CHECK(c.load.workload_source == at("ws"));
    CHECK(c.workload.kernel_config == at("my.config").string());
    CHECK(c.sinks.front().where == at("h.sqlite").string());
    CHECK(c.load.values["io-other-dir"] == at("other").string());
    CHECK(c.load.values["ring-processes"] == "4");
    CHECK(c.latency_probes[0].raw_path == at("raw").string());
    CHECK_FALSE(c.latency_probes[1].raw_path);
    CHECK(c.kernels[0].image == (dir / "bzImage").lexically_normal().string());
    CHECK(c.kernels[1].image == "linux-image-6.1.0-13-amd64");  // a package's name
    CHECK(c.boot_appends[0].image == "quiet");                  // parameters, no path
    // The journal's own (a resumed run's files) and the guests' (made per turn).
    CHECK(c.resume.front() == "x.json");
    CHECK(c.start_barrier == "barrier");

    RunConfig named;
    named.workload.kernel_config = "tinyconfig";
    named.sinks = {{SinkKind::results_database, "postgresql://u@db.example/contest"}};
    named.results_dir.clear();
    make_paths_absolute(named);
    CHECK(named.workload.kernel_config == "tinyconfig");
    CHECK(named.sinks.front().where == "postgresql://u@db.example/contest");
    CHECK(named.results_dir.empty());
}
