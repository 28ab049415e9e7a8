// Why a kernel is slower: perf counters on a workload's process tree, PSI
// and vmstat deltas, the timeline sampler and its SVG, the kernel facts.
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include "contest/observe/kernel_facts.h"
#include "contest/observe/perf_counters.h"
#include "contest/observe/pressure.h"
#include "contest/observe/timeline.h"
#include "contest/report/timeline_svg.h"
#include "contest/sys/errors.h"
#include "contest/sys/sha256.h"
#include "contest/sys/spawn.h"
#include "test_helpers.h"

using namespace contest;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The run loop's order: fork, child waits at the gate, counters opened on
// its pid, released to exec; exit seen on the pidfd; read; then reap.
PerfReading measure(std::vector<std::string> argv) {
    ExecGate gate;
    PerfCounters counters;
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);
        gate.wait_in_child();
        std::vector<char*> c;
        for (auto& a : argv) c.push_back(a.data());
        c.push_back(nullptr);
        ::execvp(c[0], c.data());
        ::_exit(127);
    }
    counters.open(pid);
    gate.release();
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    pollfd p{pidfd, POLLIN, 0};
    ::poll(&p, 1, 30000);
    PerfReading reading = counters.read();
    ::close(pidfd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return reading;
}

// A small XML check: every tag closed in order, attributes quoted, one
// <svg> root, no stray '<' or '&' in text. Returns "" when well-formed.
std::string xml_problem(const std::string& xml) {
    std::vector<std::string> open;
    std::size_t pos = 0, roots = 0;
    while (pos < xml.size()) {
        const std::size_t lt = xml.find('<', pos);
        const std::string text =
            xml.substr(pos, lt == std::string::npos ? std::string::npos : lt - pos);
        for (std::size_t amp = text.find('&'); amp != std::string::npos;
             amp = text.find('&', amp + 1))
            if (text.find(';', amp) == std::string::npos || text.find(';', amp) - amp > 6)
                return "bare & in text near " + text.substr(amp, 20);
        if (lt == std::string::npos) break;
        const std::size_t gt = xml.find('>', lt);
        if (gt == std::string::npos) return "unterminated tag at " + std::to_string(lt);
        const std::string tag = xml.substr(lt + 1, gt - lt - 1);
        pos = gt + 1;
        if (tag.front() == '?') continue;
        if (std::count(tag.begin(), tag.end(), '"') % 2)
            return "unbalanced quotes in <" + tag + ">";
        if (tag.find('<') != std::string::npos) return "'<' inside <" + tag + ">";
        if (tag.front() == '/') {
            const std::string name = tag.substr(1);
            if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
            open.pop_back();
            continue;
        }
        const std::string name = tag.substr(0, tag.find_first_of(" \n/"));
        if (open.empty() && ++roots > 1) return "more than one root element";
        if (open.empty() && name != "svg") return "root is <" + name + ">, not <svg>";
        if (tag.back() != '/') open.push_back(name);
    }
    if (!open.empty()) return "<" + open.back() + "> never closed";
    return roots == 1 ? "" : "no root element";
}

}  // namespace

TEST_CASE("a group read is scaled by time enabled over time running", "[perf]") {
    const std::vector<std::string> names{"cycles", "instructions"};
    const std::vector<std::uint64_t> ids{11, 12};
    SECTION("on the PMU the whole time: the raw count") {
        const std::uint64_t buf[] = {2, 1000, 1000, 500, 11, 900, 12};
        auto c = scale_group_read(buf, names, ids);
        REQUIRE(c.size() == 2);
        CHECK(c[0].counted);
        CHECK(c[0].value == Approx(500));
        CHECK(c[1].value == Approx(900));
        CHECK(c[1].reason.empty());
    }
    SECTION("multiplexed a quarter of the time: four times the raw count, both times kept") {
        const std::uint64_t buf[] = {2, 4000, 1000, 12, 12, 30, 11};  // ids in another order
        auto c = scale_group_read(buf, names, ids);
        CHECK(c[0].value == Approx(120));
        CHECK(c[1].value == Approx(48));
        CHECK(c[0].enabled_ns == 4000);
        CHECK(c[0].running_ns == 1000);
        CHECK(c[0].raw == 30);
    }
    SECTION("never running is not counted, with the reason, and never 0") {
        const std::uint64_t buf[] = {2, 4000, 0, 0, 11, 0, 12};
        auto c = scale_group_read(buf, names, ids);
        CHECK_FALSE(c[0].counted);
        CHECK_THAT(c[0].reason, Catch::Contains("never scheduled"));
        const std::uint64_t never_enabled[] = {2, 0, 0, 0, 11, 0, 12};
        CHECK_THAT(scale_group_read(never_enabled, names, ids)[1].reason,
                   Catch::Contains("never enabled"));
        PerfReading r;
        r.counts = c;
        CHECK_FALSE(r.ipc());
        CHECK(r.to_json()["events"]["cycles"]["counted"] == false);
        CHECK_FALSE(r.to_json()["events"]["cycles"].contains("value"));
        CHECK(r.to_json()["ipc"]["value"].is_null());
    }
    SECTION("a short read or a missing id is not counted") {
        const std::uint64_t short_buf[] = {2, 4000, 4000, 5};
        CHECK_THAT(scale_group_read(short_buf, names, ids)[0].reason, Catch::Contains("short"));
        const std::uint64_t one[] = {1, 10, 10, 7, 11};
        auto c = scale_group_read(one, names, ids);
        CHECK(c[0].counted);
        CHECK_FALSE(c[1].counted);
    }
    SECTION("IPC and miss rates where both halves counted") {
        const std::uint64_t buf[] = {2, 1000, 500, 100, 11, 250, 12};
        PerfReading r;
        r.counts = scale_group_read(buf, names, ids);
        REQUIRE(r.ipc());
        CHECK(*r.ipc() == Approx(2.5));
        CHECK_FALSE(r.cache_miss_rate());
    }
}

TEST_CASE("perf_event_paranoid is named when it blocks counting", "[perf]") {
    CHECK_FALSE(perf_paranoid_from(2, true).blocks);
    CHECK_FALSE(perf_paranoid_from(1, false).blocks);
    auto user_only = perf_paranoid_from(2, false);
    CHECK(user_only.blocks);
    CHECK_THAT(user_only.note,
               Catch::Contains("perf_event_paranoid=2") && Catch::Contains("user space only"));
    auto denied = perf_paranoid_from(3, false);
    CHECK(denied.blocks);
    CHECK_THAT(denied.note, Catch::Contains("denies"));
    CHECK(perf_paranoid_from(std::nullopt, true).blocks);
    // This machine: whatever it is, it is said.
    auto here = read_perf_paranoid();
    CHECK_FALSE(here.note.empty());
    WARN("here: " << here.note);
}

TEST_CASE("software counters count a sleeping child and a memory-touching one", "[perf]") {
    auto sleeper = measure({"sleep", "0.2"});
    const PerfCount* cs = sleeper.find("context-switches");
    REQUIRE(cs);
    INFO(cs->reason);
    REQUIRE(cs->counted);
    CHECK(cs->value > 0);
    const PerfCount* clock = sleeper.find("task-clock");
    REQUIRE(clock);
    CHECK(clock->counted);
    CHECK(clock->value > 0);
    // Asleep: far less CPU than the 0.2 s it took.
    CHECK(clock->value < 0.15e9);

    // dd's 64 MiB buffer is 16384 pages, touched by a child of the shell
    // (the "; true" keeps sh from exec'ing dd in its place): inherited
    // counters see it.
    auto toucher =
        measure({"sh", "-c", "dd if=/dev/zero of=/dev/null bs=64M count=2 2>/dev/null; true"});
    const PerfCount* faults = toucher.find("page-faults");
    REQUIRE(faults);
    INFO(faults->reason);
    REQUIRE(faults->counted);
    CHECK(faults->value > 8000);
    const PerfCount* minor = toucher.find("minor-faults");
    REQUIRE(minor);
    CHECK(minor->counted);
    CHECK(minor->value > 8000);
    CHECK(toucher.to_json()["events"]["page-faults"]["value"].get<double>() == faults->value);
}

TEST_CASE("hardware events count or say why not, and never fail the run", "[perf]") {
    auto r = measure({"true"});
    REQUIRE(r.find("task-clock"));
    CHECK(r.find("task-clock")->counted);
    for (const auto& spec : hardware_perf_events()) {
        const PerfCount* c = r.find(spec.name);
        REQUIRE(c);
        INFO(spec.name << ": " << c->reason);
        CHECK((c->counted || !c->reason.empty()));
        if (!c->counted) CHECK_FALSE(r.to_json()["events"][spec.name].contains("value"));
    }
    const bool both = r.find("cycles")->counted && r.find("instructions")->counted;
    CHECK(r.ipc().has_value() == both);
    WARN("cycles on this machine: " << (r.find("cycles")->counted ? "counted"
                                                                  : r.find("cycles")->reason));
    CHECK_FALSE(r.paranoid.note.empty());
}

TEST_CASE("PSI and vmstat text parse, a counter going backwards is no negative delta", "[psi]") {
    auto cpu = parse_psi(
        "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");
    REQUIRE(cpu);
    CHECK(cpu->some_us == 123456u);
    CHECK(cpu->full_us == 7u);
    CHECK_FALSE(parse_psi("nonsense\n"));
    auto vm = parse_vmstat("nr_free_pages 5\npgscan_kswapd 10\npswpin 3\nthp_fault_alloc 2\n");
    CHECK(vm.count("nr_free_pages") == 0);  // a gauge, not a counter of work
    CHECK(vm.at("pgscan_kswapd") == 10);
    CHECK(vm.at("pswpin") == 3);

    CHECK(counter_delta(5, 9) == 4u);
    CHECK_FALSE(counter_delta(9, 5));
    PressureSnapshot a, b;
    a.psi.available = b.psi.available = true;
    a.psi.io.some_us = 1000;
    b.psi.io.some_us = 3000;
    a.psi.memory.some_us = 500;
    b.psi.memory.some_us = 100;  // reset
    a.vmstat = {{"pgscan_kswapd", 50}};
    b.vmstat = {{"pgscan_kswapd", 80}};
    auto d = pressure_delta(a, b, 0.01);
    CHECK(d["psi"]["io"]["some_us"] == 2000);
    CHECK(d["psi"]["io"]["some_pct"].get<double>() == Approx(20));
    CHECK(d["psi"]["memory"]["some_us"].is_null());
    REQUIRE(d["resets"].size() == 1);
    CHECK_THAT(d["resets"][0].get<std::string>(), Catch::Contains("memory.some"));
    CHECK(d["vmstat"]["pgscan_kswapd"] == 30);

    PressureSnapshot absent;
    absent.psi.reason = "no /proc/pressure: the kernel is built without CONFIG_PSI";
    CHECK(pressure_delta(absent, absent, 1)["psi"]["reason"] == absent.psi.reason);
}

TEST_CASE("this machine's PSI and vmstat deltas are never negative", "[psi]") {
    auto a = read_pressure();
    if (!a.psi.available) WARN("PSI: " << a.psi.reason);
    CHECK((a.psi.available || !a.psi.reason.empty()));
    CHECK_FALSE(a.vmstat.empty());
    std::vector<char> touch(64 << 20, 1);  // some faults for vmstat to count
    auto b = read_pressure();
    auto d = pressure_delta(a, b, 0.1);
    CHECK(d["resets"].empty());
    for (auto& [name, v] : d["vmstat"].items()) {
        INFO(name);
        CHECK((v.is_number_unsigned() || v.is_null()));
    }
    if (a.psi.available)
        for (const char* r : {"cpu", "memory", "io"})
            CHECK(d["psi"][r]["some_us"].is_number_unsigned());
    CHECK(touch[12345] == 1);
}

TEST_CASE("/proc/stat, diskstats and meminfo lines parse", "[timeline]") {
    auto j = parse_cpu_jiffies("cpu  100 5 30 900 7 1 2 3 0 0\ncpu0 1 2 3 4 5 6 7 8\n");
    REQUIRE(j);
    CHECK(j->user == 105);
    CHECK(j->system == 33);
    CHECK(j->iowait == 7);
    CHECK(j->steal == 3);
    CHECK(j->total == 1048);
    auto d = parse_diskstats(
        " 254 0 vda 33793 8097 2485114 13093 36950 14723 4203800 15898 0 8600\n"
        " 254 1 vda1 10 0 80 1 20 0 160 2 0 3\n",
        "vda1");
    REQUIRE(d);
    CHECK(d->read == 80);
    CHECK(d->written == 160);
    CHECK_FALSE(parse_diskstats(" 254 0 vda 1 2 3\n", "vda"));
    auto m = parse_meminfo(
        "MemTotal: 100 kB\nMemFree: 50 kB\nCached: 20 kB\nSwapCached: 9 kB\nDirty: 3 kB\n"
        "Writeback: 1 kB\n");
    REQUIRE(m);
    CHECK(m->cached == 20);
    CHECK(m->dirty == 3);
}

TEST_CASE("the CPU split between two /proc/stat readings: a field gone backwards is null",
          "[timeline]") {
    auto first = parse_cpu_jiffies("cpu  100 0 50 800 40 0 0 10 0 0\n");
    // iowait 40 -> 30: the kernel's iowait is not monotonic.
    auto second = parse_cpu_jiffies("cpu  200 0 100 1450 30 0 0 20 0 0\n");
    REQUIRE(first);
    REQUIRE(second);
    const auto split = cpu_split_pct(*first, *second);
    CHECK(split["user"] == 12.5);  // 100 of 800 jiffies
    CHECK(split["system"] == 6.25);
    CHECK(split["steal"] == 1.25);
    CHECK(split["iowait"].is_null());
    CHECK(cpu_share_pct(*second, *first, &CpuJiffies::user).is_null());  // total shrank
    CHECK(cpu_share_pct(*first, *first, &CpuJiffies::user).is_null());   // nothing elapsed
}

TEST_CASE("the sampler's samples are monotone in time and its SVG well-formed", "[timeline]") {
    test::ScratchDir dir("timeline");
    TimelineSampler sampler({50, dir.path().string()});
    sampler.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    sampler.mark("workload_start");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    sampler.mark("workload_end");
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    sampler.stop();
    auto samples = sampler.samples();
    // 350 ms at 50 Hz is about 18; wide margins for a busy machine.
    CHECK(samples.size() >= 4);
    CHECK(samples.size() <= 25);
    for (std::size_t i = 1; i < samples.size(); ++i) CHECK(samples[i].t_s > samples[i - 1].t_s);
    json tl = sampler.to_json();
    CHECK(tl["step_s"].get<double>() == Approx(0.02));
    REQUIRE(tl["t_s"].size() == samples.size());
    for (auto& [name, column] : tl["columns"].items()) {
        INFO(name);
        CHECK(column.size() == samples.size());
        CHECK(tl["units"].contains(name));
    }
    CHECK(tl["columns"]["cpu_user_pct"][0].is_null());  // a rate needs two samples
    CHECK(tl["columns"]["mem_free_mib"][0].get<double>() > 0);
    CHECK(tl["marks"]["workload_start"].get<double>() < tl["marks"]["workload_end"].get<double>());
    CHECK(tl["totals"]["window_s"].get<double>() > 0.3);
    CHECK(tl["totals"].contains("psi"));

    const std::string svg = timeline_svg(tl, "sampler test");
    INFO(svg.substr(0, 400));
    CHECK(xml_problem(svg) == "");
    // One panel per signal sampled: CPU, PSI, disk, memory, dirty/writeback.
    CHECK(test::count_of(svg, "<g class=\"panel\"") == 5);
    for (const char* signal : {"cpu", "psi", "disk", "memory", "dirty"})
        CHECK(test::count_of(svg, std::string("data-signal=\"") + signal + "\"") == 1);
    CHECK(test::count_of(svg, "class=\"mark\"") == 2);
    CHECK_THROWS_AS(timeline_svg(json::object(), "x"), UsageError);
    // A file's units of the wrong shape (make fuzz found it): drawn without them.
    tl["units"]["cpu_user_pct"] = 7;
    CHECK(xml_problem(timeline_svg(tl, "odd unit")) == "");
    tl["units"] = "none";
    CHECK(test::count_of(timeline_svg(tl, "no units"), "<g class=\"panel\"") == 5);
}

TEST_CASE("a child writing and fsyncing shows io pressure and disk writes",
          "[psi][timeline][slow]") {
    test::ScratchDir dir("io-pressure");
    TimelineSampler sampler({10, dir.path().string()});
    sampler.start();
    sampler.mark("workload_start");
    const std::string target = (dir / "written").string();
    // 200 MiB through the page cache, then fsync: the stand-in for io_load.
    const int rc = std::system(
        ("dd if=/dev/zero of=" + target + " bs=1M count=200 conv=fsync status=none").c_str());
    sampler.mark("workload_end");
    sampler.stop();
    REQUIRE(rc == 0);
    json tl = sampler.to_json();
    INFO(tl["totals"].dump());
    REQUIRE(tl["totals"]["disk"].contains("written_bytes"));
    CHECK(tl["totals"]["disk"]["written_bytes"].get<double>() >= 150.0 * (1 << 20));
    double peak_write = 0;
    for (auto& v : tl["columns"]["disk_write_mib_s"])
        if (v.is_number()) peak_write = std::max(peak_write, v.get<double>());
    CHECK(peak_write > 1);
    if (tl["totals"]["psi"]["available"] == true)
        CHECK(tl["totals"]["psi"]["io"]["some_us"].get<double>() > 0);
    else
        WARN("no PSI here: " << tl["totals"]["psi"]["reason"]);
    CHECK(tl["totals"]["resets"].empty());
    if (const char* out = std::getenv("CONTEST_TIMELINE_OUT")) std::ofstream(out) << tl.dump(1);
}

TEST_CASE("snapshot: the timeline SVG of the fixture", "[timeline][snapshot]") {
    const std::string data = CONTEST_TEST_DATA;
    std::ifstream in(data + "/timeline-fixture.json");
    REQUIRE(in.good());
    const std::string svg = timeline_svg(json::parse(in), "io_load, run 1 (fixture)");
    CHECK(xml_problem(svg) == "");
    // The fixture has latency too: six panels.
    CHECK(test::count_of(svg, "<g class=\"panel\"") == 6);
    const std::string snapshot = data + "/timeline.svg";
    if (const char* update = std::getenv("CONTEST_UPDATE_SNAPSHOTS"); update && *update == '1')
        std::ofstream(snapshot) << svg;
    const bool same = test::slurp(snapshot) == svg;
    if (!same) std::ofstream(fs::temp_directory_path() / "contest-snapshot-timeline.svg") << svg;
    INFO("differs; the output is in "
         << (fs::temp_directory_path() / "contest-snapshot-timeline.svg")
         << "; CONTEST_UPDATE_SNAPSHOTS=1 rewrites " << snapshot);
    CHECK(same);
}

TEST_CASE("SHA-256 matches the standard's test vectors", "[facts]") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1000000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("kernel facts parse /proc/version and sysfs choices", "[facts]") {
    CHECK(kernel_compiler("Linux version 6.18.44-x (builder@host) (gcc (GCC) 15.3.0, GNU ld (GNU "
                          "Binutils) 2.46) #1 SMP PREEMPT_DYNAMIC @0") ==
          "gcc (GCC) 15.3.0, GNU ld (GNU Binutils) 2.46");
    CHECK(kernel_compiler("garbage") == "");
    CHECK(bracketed_choice("always [madvise] never") == "madvise");
    CHECK(bracketed_choice("none") == "");
    auto cfg = parse_kernel_config("# comment\nCONFIG_HZ=250\n# CONFIG_X is not set\nCONFIG_Y=y\n");
    CHECK(cfg.at("CONFIG_HZ") == "250");
    CHECK(cfg.count("CONFIG_X") == 0);
}

TEST_CASE("this machine's kernel facts agree with gzip, sha256sum and findmnt", "[facts]") {
    test::ScratchDir dir("facts");
    json facts = kernel_facts(dir.path().string());
    INFO(facts.dump(1));
    if (::access("/proc/config.gz", R_OK) == 0) {
        CHECK(facts["config"]["source"] == "/proc/config.gz");
        CHECK(facts["config"]["sha256"] ==
              contest::test::shell_output("gzip -dc /proc/config.gz | sha256sum | cut -d' ' -f1"));
        CHECK(facts["config_hz"] ==
              contest::test::shell_output("gzip -dc /proc/config.gz | sed -n 's/^CONFIG_HZ=//p'"));
    } else {
        CHECK((facts["config"].contains("sha256") || facts["config"].contains("reason")));
    }
    CHECK(facts["workdir"]["fs_type"] ==
          contest::test::shell_output("findmnt -no FSTYPE --target " + dir.path().string()));
    CHECK(facts["workdir"]["mount_options"] ==
          contest::test::shell_output("findmnt -no VFS-OPTIONS --target " + dir.path().string()));
    CHECK(facts["compiler"].is_string());
    CHECK(facts["vulnerabilities"].size() > 0);
    // Every fact is a value or says why not.
    for (auto& [name, v] : facts.items()) {
        INFO(name);
        CHECK_FALSE(v.is_null());
        if (v.is_object() && v.size() == 1) CHECK_FALSE(v.value("reason", "x").empty());
    }
}
