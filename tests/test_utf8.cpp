// Text that is not UTF-8 (from a command line, a path, a log) on its way
// into JSON: made valid by valid_utf8, so that no write of a result can fail
// on it.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "contest/sys/json_text.h"
#include "contest/sys/text.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

const std::string kReplacement = "\xef\xbf\xbd";  // U+FFFD

std::string replaced(int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += kReplacement;
    return out;
}

}  // namespace

TEST_CASE("valid_utf8 keeps valid text and replaces each invalid byte with U+FFFD", "[utf8]") {
    SECTION("valid text passes unchanged, control characters and the longest forms included") {
        for (std::string s : {std::string(""), std::string("plain ascii"),
                              std::string("a\0b\n\x7f", 5), std::string("6.1-f\xc3\xbcr-rt"),
                              std::string("\xe2\x82\xac \xef\xbf\xbd"),  // euro, U+FFFD
                              std::string("\xf0\x9f\x98\x80"),           // U+1F600
                              std::string("\xf4\x8f\xbf\xbf"),           // U+10FFFF
                              std::string("\xed\x9f\xbf \xee\x80\x80"),  // around surrogates
                              std::string("\xc2\x80\xc2\x9f")}) {        // C1: valid UTF-8
            CHECK(valid_utf8(s) == s);
            CHECK(is_valid_utf8(s));
        }
    }
    SECTION("bytes that never start or continue a character") {
        CHECK(valid_utf8("a\xff"
                         "b") == "a" + kReplacement + "b");
        CHECK(valid_utf8("\xfe\xf5\xf8") == replaced(3));
        CHECK(valid_utf8("\x80"
                         "x\xbf") == kReplacement + "x" + kReplacement);
    }
    SECTION("overlong forms") {
        CHECK(valid_utf8("\xc0\xaf") == replaced(2));  // '/' in two bytes
        CHECK(valid_utf8("\xc1\xbf") == replaced(2));
        CHECK(valid_utf8("\xe0\x80\xaf") == replaced(3));      // '/' in three
        CHECK(valid_utf8("\xf0\x80\x80\xaf") == replaced(4));  // '/' in four
    }
    SECTION("surrogates and beyond U+10FFFF") {
        CHECK(valid_utf8("\xed\xa0\x80") == replaced(3));      // U+D800
        CHECK(valid_utf8("\xed\xbf\xbf") == replaced(3));      // U+DFFF
        CHECK(valid_utf8("\xf4\x90\x80\x80") == replaced(4));  // U+110000
    }
    SECTION("a character cut short, at the end or before another") {
        CHECK(valid_utf8("ok\xe2\x82") == "ok" + replaced(2));
        CHECK(valid_utf8("\xf0\x9f\x98") == replaced(3));
        CHECK(valid_utf8("\xc3") == kReplacement);
        CHECK(valid_utf8("\xe2\x82"
                         "a\xc3\xbc") == replaced(2) + "a\xc3\xbc");
    }
    SECTION("the output is always valid, whatever the input") {
        std::string all;
        for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
        for (int b = 0; b < 256; ++b) all += static_cast<char>(255 - b);
        CHECK_FALSE(is_valid_utf8(all));
        CHECK(is_valid_utf8(valid_utf8(all)));
        CHECK(valid_utf8(valid_utf8(all)) == valid_utf8(all));
    }
}

TEST_CASE("json_text writes any strings, keys included, as valid UTF-8", "[utf8]") {
    nlohmann::json j = {{"cmd", "true \xff"},
                        {"nested", {{"k\xfe", nlohmann::json::array({"a\xc0", 1, "ok"})}}}};
    // What nlohmann itself does with such text.
    CHECK_THROWS_AS(j.dump(), nlohmann::json::type_error);
    const std::string text = json_text(j);
    const auto back = nlohmann::json::parse(text);  // throws on invalid UTF-8
    CHECK(back["cmd"] == "true " + kReplacement);
    CHECK(back["nested"]["k" + kReplacement][0] == "a" + kReplacement);
    CHECK(back["nested"]["k" + kReplacement][2] == "ok");
    CHECK(json_text(nlohmann::json("x"), -1) == "\"x\"");
    // A report's keys keep the order they were written in.
    nlohmann::ordered_json ordered;
    ordered["b\xff"] = 1;
    ordered["a"] = 2;
    CHECK(json_text(ordered, -1) == "{\"b" + kReplacement + "\":1,\"a\":2}");
}

TEST_CASE("a run whose workload command and workdir hold a 0xFF byte is saved and reported",
          "[utf8][e2e]") {
    test::ScratchDir dir("utf8");
    const fs::path work = dir / "work\xff";
    const fs::path results = dir / "results";
    auto o = test::run_contest_binary(
        {"run", "-k", "bytes", "--workdir", work.string(), "--results", results.string(), "--quiet",
         "-w", "command", "--workload-cmd", "sh -c 'exit 0' arg\xff", "-n", "1", "no_load"},
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(results))
        if (e.path().extension() == ".json") files.push_back(e.path());
    REQUIRE(files.size() == 1);
    const auto j = nlohmann::json::parse(test::slurp(files[0]));  // throws on invalid UTF-8
    CHECK(j["runs"].size() == 1);
    // A journal's JSON cannot hold the workdir: the run went on without one, said.
    CHECK(o.err.find("this run keeps no journal, and cannot be resumed: ") != std::string::npos);
    CHECK_FALSE(fs::exists(fs::path(files[0]).replace_extension(".run-journal")));
    CHECK(j["config"]["workdir"] == valid_utf8(work.string()));
    CHECK(j.dump().find("arg" + kReplacement) != std::string::npos);

    auto report = test::run_contest_binary({"report", files[0].string()}, dir.path());
    INFO(report.err);
    CHECK(report.exit_code == 0);
    auto as_json =
        test::run_contest_binary({"report", "--format", "json", files[0].string()}, dir.path());
    CHECK(as_json.exit_code == 0);
    CHECK_NOTHROW(nlohmann::json::parse(as_json.out));
    CHECK(test::leftover_processes().empty());
}
