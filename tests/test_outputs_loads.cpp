// What `contest loads` and `contest load` print, rendered through the
// outputs table (report/outputs.h): the list in text alone, a load's work in
// text or JSON as `contest load --format` chooses, each from its model.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "contest/report/outputs.h"
#include "contest/sys/errors.h"

using namespace contest;

TEST_CASE("contest loads' list and contest load's work are uses of the outputs table",
          "[outputs][loads]") {
    CHECK(output_names(OutputUse::loads_list) == "text");
    CHECK_THROWS_AS(find_output("json", OutputUse::loads_list), UsageError);
    CHECK(output_names(OutputUse::load_work) == "text or json");
    CHECK(output_option(OutputUse::load_work) == "--format");
    CHECK_THROWS_WITH(find_output("html", OutputUse::load_work),
                      Catch::Contains("(load: text or json)"));
}

TEST_CASE("contest loads' list rendered from its model", "[outputs][loads]") {
    LoadList list;
    list.loads.push_back({"io_load", "default,all", "MiB written", "writes a file", {}, {}});
    list.loads.push_back({"a_name_longer_than_its_column",
                          "by name",
                          "-",
                          "your command: true",
                          {"--size MIB how much (default 64)"},
                          "no such program"});
    CHECK(find_output("text", OutputUse::loads_list).loads_list(list) ==
          "LOAD          SETS         UNIT           WHAT IT DOES\n"
          "io_load       default,all  MiB written    writes a file\n"
          "a_name_longer_than_its_column by name      -              your command: true\n"
          "                                          --size MIB how much (default 64)\n"
          "                                          unavailable here: no such program\n");
}

TEST_CASE("contest load's work rendered from its model, in text and in JSON", "[outputs][loads]") {
    LoadWork w;
    w.name = "io_load";
    w.unit = "MiB";
    w.seconds = 2;
    w.units = 50;
    w.cpu_pct = 40;
    w.cpus = 2;
    w.facts = {{"file", "/tmp/x"}};
    CHECK(find_output("text", OutputUse::load_work).load_work(w) ==
          "io_load: 50.0 MiB in 2.00 s = 25.0 MiB/s\n"
          "io_load: CPU 40.0% (20.0% of 2 CPUs)\n"
          "io_load: {\"file\":\"/tmp/x\"}\n");
    w.counts_work = false;
    w.secondary_unit = "files";
    w.secondary = 3;
    w.restarts = 2;
    w.failure = "it ended";
    const std::string text = find_output("text", OutputUse::load_work).load_work(w);
    CHECK_THAT(text, Catch::StartsWith("io_load: 2.00 s, its work not counted"));
    CHECK_THAT(text, Catch::Contains("io_load: 3.0 files\n"));
    CHECK_THAT(text, Catch::Contains("started again 2 times"));
    const auto j = nlohmann::json::parse(find_output("json", OutputUse::load_work).load_work(w));
    CHECK(j["load"] == "io_load");
    CHECK(j["rate_per_s"] == 25.0);
    CHECK(j["secondary_unit"] == "files");
    CHECK(j["restarts"] == 2);
    CHECK(j["failure"] == "it ended");
    CHECK(j["facts"]["file"] == "/tmp/x");
}
