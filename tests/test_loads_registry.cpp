// The load table: contest's order, the default and all sets, the units.
#include <catch2/catch.hpp>

#include "contest/sys/errors.h"
#include "loads/registry.h"

using namespace contest;

namespace {

std::vector<std::string> names(const std::vector<const LoadInfo*>& loads) {
    std::vector<std::string> out;
    for (const auto* l : loads) out.emplace_back(l->name);
    return out;
}

}  // namespace

TEST_CASE("loads come in contest's order", "[loads]") {
    std::vector<std::string> order;
    for (const LoadInfo* l : load_registry()) order.emplace_back(l->name);
    CHECK(order == std::vector<std::string>{"no_load", "cacherun", "process_load", "cpu_load",
                                            "io_load", "io_other", "read_load", "list_load",
                                            "mem_load", "ctar_load", "xtar_load", "dbench_load"});
}

TEST_CASE("default holds the cheap standard loads, all adds the rest that can run", "[loads]") {
    LoadOptions options;
    CHECK(names(resolve_loads({"default"}, options)) ==
          std::vector<std::string>{"no_load", "cacherun", "process_load", "cpu_load", "io_load",
                                   "read_load", "list_load", "mem_load"});
    auto all = names(resolve_loads({"all"}, options));
    CHECK(std::find(all.begin(), all.end(), "io_other") == all.end());  // no -o given
    for (const char* extra : {"ctar_load", "xtar_load"})
        CHECK(std::find(all.begin(), all.end(), extra) != all.end());
    options.set("io-other-dir", "/tmp");
    all = names(resolve_loads({"all"}, options));
    CHECK(std::find(all.begin(), all.end(), "io_other") != all.end());
}

TEST_CASE("each new load counts a named unit of work", "[loads]") {
    for (const char* name : {"io_load", "io_other", "read_load", "list_load", "mem_load",
                             "ctar_load", "xtar_load", "dbench_load"}) {
        INFO(name);
        const LoadInfo* l = find_load(name);
        REQUIRE(l);
        CHECK(l->does_work());
        CHECK(l->drops_caches());
        CHECK_FALSE(l->unit.empty());
        CHECK(l->unit_divisor > 0);
        CHECK(l->secondary_divisor > 0);
    }
    CHECK(find_load("io_load")->unit == "MiB written");
    CHECK(find_load("read_load")->unit == "MiB read");
    CHECK(find_load("mem_load")->unit == "GiB touched");
    CHECK(find_load("list_load")->unit == "entries");
}
