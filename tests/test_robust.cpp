// Bad input and a hostile file system, met through the binary where a user
// meets them: numbers out of range, labels that are not names, config files
// that are not config files, results folders with loops, unreadable parts,
// a read-only or full file system.
#include <fcntl.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <optional>

#include "contest/result/result_file.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// The command workload with no --workload-cmd: valid while parsing, so the
// option under test is what gets refused, and a run given it stops before
// any work should the option get through.
const std::string kNoWorkload = "command";

bool one_line(const std::string& s) {
    return std::count(s.begin(), s.end(), '\n') == 1;
}

// A usage error: exit 2, one line on stderr naming `what`, no raw escape.
void check_refused(const test::Outcome& o, const std::string& what) {
    INFO("stderr: " << o.err);
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains(what));
    CHECK(one_line(o.err));
    CHECK(o.err.find('\x1b') == std::string::npos);
}

// A tmpfs of `size` mounted on dir for the test's life; mounted() is false
// (with the reason) where mounting is not permitted.
class ScratchMount {
  public:
    ScratchMount(const fs::path& dir, const std::string& size, unsigned long flags = 0)
        : dir_(dir) {
        fs::create_directories(dir);
        const std::string options = "size=" + size;
        if (::mount("tmpfs", dir.c_str(), "tmpfs", flags, options.c_str()) == 0)
            mounted_ = true;
        else
            why_not_ = std::strerror(errno);
    }
    ~ScratchMount() {
        if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    }
    bool mounted() const { return mounted_; }
    const std::string& why_not() const { return why_not_; }
    // Remounts it read-only, keeping what it holds.
    bool make_read_only() {
        return ::mount(nullptr, dir_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0;
    }

  private:
    fs::path dir_;
    bool mounted_ = false;
    std::string why_not_;
};

// Opens a tree to others (folders 0755, files 0644), whatever the umask or
// the checkout made of it: nobody reads it.
void open_to_others(const fs::path& top) {
    const auto folder = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec;
    const auto file = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                      fs::perms::others_read;
    fs::permissions(top, folder);
    for (const auto& e : fs::recursive_directory_iterator(top))
        if (!e.is_symlink()) fs::permissions(e.path(), e.is_directory() ? folder : file);
}

// A run of the binary as an ordinary user, or why there could be none.
struct OrdinaryUserRun {
    std::optional<test::Outcome> outcome;
    std::string why_not;  // when there is no outcome
};

// Runs the binary as an ordinary user, since root reads and writes
// everything: as nobody when this process is root, else as itself (the
// folders a test closes are its own then). nobody runs a copy of the binary
// in dir, because the build may lie under a folder only root may enter (a
// clone in /root or in a mktemp -d). Its stdout and stderr go to dir/out;
// what it is given to read must lie in dir too, opened to others. Fails the
// test, saying why, when nobody cannot reach that copy or dir/out.
OrdinaryUserRun run_as_ordinary_user(const std::vector<std::string>& args,
                                     const test::ScratchDir& dir) {
    const fs::path out = dir / "out";
    fs::create_directories(out);
    fs::permissions(out, fs::perms::all);
    if (::geteuid() != 0) return {test::run_contest_binary(args, out), ""};

    const fs::path binary = test::contest_others_can_run(dir);
    std::vector<std::string> argv{binary.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string reach =
        "; every folder above it must let others in (o+x): the scratch folder is under " +
        fs::temp_directory_path().string();

    int report[2];
    REQUIRE(::pipe2(report, O_CLOEXEC) == 0);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(report[0]);
        const uid_t nobody = 65534;
        const gid_t nogroup = 65534;
        if (::setgroups(0, nullptr) != 0 || ::setresgid(nogroup, nogroup, nogroup) != 0 ||
            ::setresuid(nobody, nobody, nobody) != 0) {
            ::dprintf(report[1], "cannot become nobody (uid 65534): %s", std::strerror(errno));
            ::_exit(125);
        }
        for (const auto& [path, mode] : {std::pair{binary, X_OK}, std::pair{out, W_OK | X_OK}})
            if (::access(path.c_str(), mode) != 0) {
                ::dprintf(report[1], "nobody cannot %s %s: %s%s",
                          mode == X_OK ? "run" : "write into", path.c_str(), std::strerror(errno),
                          reach.c_str());
                ::_exit(124);
            }
        ::_exit(test::finish_contest(test::start_command(argv, out), out).exit_code);
    }
    ::close(report[1]);
    std::string why_not;
    char buf[512];
    for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) why_not.append(buf, n);
    ::close(report[0]);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    if (!why_not.empty()) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 125) return {std::nullopt, why_not};
        FAIL(why_not);
    }
    test::Outcome o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.out = test::slurp(out / "stdout");
    o.err = test::slurp(out / "stderr");
    return {o, ""};
}

// A results folder holding one good result file (label 6.1.0-hz100), open
// to others.
void copy_good_result(const fs::path& to) {
    fs::create_directories(to);
    const fs::path from = fs::path(CONTEST_TEST_DATA) / "results/kernels/6.1.0-hz100";
    for (const auto& e : fs::directory_iterator(from))
        fs::copy_file(e.path(), to / e.path().filename());
    open_to_others(to);
}

}  // namespace

TEST_CASE("every number option refuses a negative and a huge value, naming it", "[robust][e2e]") {
    test::ScratchDir dir("ranges");
    const std::string work = (dir / "work").string();
    struct Case {
        std::vector<std::string> command;
        std::string option;
        bool has_negative_bound = true;  // false: 0 is allowed, -1 is still refused
    };
    // Each run here must be refused while parsing; should one get through,
    // the unknown workload stops it before any work.
    const std::vector<std::string> run = {"run", "-w",        kNoWorkload, "--workdir",
                                          work,  "--results", work};
    const std::vector<std::string> load = {"load", "cpu_load", "--workdir", work};
    const std::vector<Case> cases = {
        {run, "--runs"},
        {run, "--jobs"},
        {run, "--synthetic-size"},
        {run, "--warmup"},
        {run, "--seed"},
        {run, "--ring-processes"},
        {run, "--ring-records"},
        {run, "--record-bytes"},
        {run, "--load-size-mib"},
        {load, "--duration"},
        {load, "--ring-processes"},
        {load, "--load-size-mib"},
        {{"loads"}, "--ring-records"},
        {{"report"}, "--alpha"},
        {{"report"}, "--run"},
        {{"compare", "a", "b"}, "--alpha"},
        {run, "--latency-interval-us"},
        {run, "--latency-priority"},
        {run, "--latency-dist"},
        {{"latency"}, "--duration"},
        {{"latency"}, "--interval-us"},
        {{"latency"}, "--priority"},
        {{"latency"}, "--dist"},
        {run, "--latency-exec-missed-ms"},
        {{"latency"}, "--exec-missed-ms"},
    };
    for (const auto& c : cases) {
        // "%value%": Boost's own error text loops for ever on it.
        for (const std::string value :
             {"-1", "99999999999999999999999", "nan", "12abc", "", "%value%"}) {
            auto args = c.command;
            args.push_back(c.option + "=" + value);
            INFO(join(args, " "));
            check_refused(test::run_contest_binary(args, dir.path()), c.option);
        }
    }
    // The short forms and the config file go through the same check.
    check_refused(test::run_contest_binary(
                      {"run", "-w", kNoWorkload, "-n", "-1", "--workdir", work}, dir.path()),
                  "--runs");
    check_refused(
        test::run_contest_binary({"run", "-w", kNoWorkload, "-j", "4294967295", "--workdir", work},
                                 dir.path()),
        "--jobs");
    std::ofstream(dir / "c.conf") << "# ranges\nload = no_load\n\nring-processes = -1\n";
    check_refused(test::run_contest_binary({"run", "-w", kNoWorkload, "--config",
                                            (dir / "c.conf").string(), "--workdir", work},
                                           dir.path()),
                  "c.conf:4: 'ring-processes' must be from 1 to 16384");
    std::ofstream(dir / "p.conf") << "runs = 1\n%canonical_option% = 1\n";
    check_refused(test::run_contest_binary({"run", "-w", kNoWorkload, "--config",
                                            (dir / "p.conf").string(), "--workdir", work},
                                           dir.path()),
                  "p.conf:2: unrecognised option '%canonical_option%'");
    check_refused(test::run_contest_binary({"run", "--%canonical_option%"}, dir.path()),
                  "unrecognised option '--%canonical_option%'");
    CHECK_FALSE(fs::exists(work));  // refused before anything was made
    // In range is still accepted.
    auto ok = test::run_contest_binary(
        {"loads", "--ring-processes", "16384", "--record-bytes", "1"}, dir.path());
    CHECK(ok.exit_code == 0);
}

TEST_CASE("a label that is not a name is refused at once, before anything is prepared",
          "[robust][e2e]") {
    test::ScratchDir dir("labels");
    const std::string work = (dir / "work").string(), results = (dir / "results").string();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "--label is empty"},
        {"a\nb", "'a\\nb' has control characters"},
        {"red\x1b[31m", "'red\\e[31m' has control characters"},
        {std::string(5000, 'x'), "5000 bytes long (at most 200)"},
        {"a/b", "has a '/'"},
        {"..", "'..' names a folder"},
        {".", "'.' names a folder"},
    };
    for (const auto& [label, why] : cases) {
        INFO(printable(label.substr(0, 20)));
        const auto start = std::chrono::steady_clock::now();
        auto o = test::run_contest_binary({"run", "-k", label, "-w", kNoWorkload, "--workdir", work,
                                           "--results", results, "no_load"},
                                          dir.path());
        check_refused(o, why);
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
        CHECK_FALSE(fs::exists(work));
        CHECK_FALSE(fs::exists(results));
    }
    // The same label from a config file is refused the same way.
    std::ofstream(dir / "l.conf") << "label = a/b\n";
    check_refused(test::run_contest_binary({"run", "-w", kNoWorkload, "--config",
                                            (dir / "l.conf").string(), "--workdir", work},
                                           dir.path()),
                  "has a '/'");
    CHECK(label_problem(std::string(200, 'x')) == std::nullopt);
    CHECK(label_problem("6.1.0-für-rt") == std::nullopt);
    CHECK(label_problem(std::string(201, 'x')).has_value());
}

TEST_CASE("printable escapes control characters and broken UTF-8, keeps the rest", "[robust]") {
    CHECK(printable("plain 6.1 für") == "plain 6.1 für");
    CHECK(printable("a\nb\tc\rd\x1b[0m") == "a\\nb\\tc\\rd\\e[0m");
    CHECK(printable(std::string("x\0y", 3)) == "x\\x00y");
    CHECK(printable("\x7f") == "\\x7f");
    CHECK(printable("\xc2\x9b"
                    "31m") == "\\xc2\\x9b31m");          // C1 CSI, a terminal escape
    CHECK(printable("\xff\xc3") == "\\xff\\xc3");        // not UTF-8
    CHECK(printable("\xe2\x82\xac") == "\xe2\x82\xac");  // the euro sign
    CHECK(is_printable(printable("\x01\x80\xc0\x80\xed\xa0\x80")));
}

TEST_CASE("latency --duration beyond a day is refused, naming the option and its range",
          "[robust][e2e]") {
    test::ScratchDir dir("latency-duration");
    check_refused(test::run_contest_binary({"latency", "--duration", "99999999999"}, dir.path()),
                  "'--duration' must be from 0.1 to 86400, not '99999999999'");
    check_refused(test::run_contest_binary({"latency", "--duration", "0"}, dir.path()),
                  "'--duration' must be from 0.1 to 86400");
}

TEST_CASE("a bad value in a config file is named with the file and its line", "[robust][e2e]") {
    test::ScratchDir dir("config-values");
    const std::string work = (dir / "work").string();
    auto refused_at = [&](const std::string& command, const std::string& body,
                          const std::string& what) {
        std::ofstream(dir / "v.conf", std::ios::trunc) << "# values\n\n" << body;
        check_refused(
            test::run_contest_binary(
                {command, "--config", (dir / "v.conf").string(), "--workdir", work}, dir.path()),
            (dir / "v.conf").string() + ":3: " + what);
    };
    refused_at("run", "runs = 0\n", "'--runs' must be from 1 to 1000 or auto, not '0'");
    refused_at("run", "runs = -3\n", "'--runs' must be from 1 to 1000 or auto, not '-3'");
    refused_at("run", "workload = nonsense\n", "--workload: unknown workload 'nonsense'");
    refused_at("run", "order = random\n", "--order 'random'");
    refused_at("run", "kernel-config = tiny\n", "--kernel-config: 'tiny' is neither");
    refused_at("run", "load = no_load nonsense_load\n", "unknown load 'nonsense_load'");
    refused_at("run", "record-bytes = 0\n", "'record-bytes' must be from 1 to 1048576");
    refused_at("run", "latency-method = sleepy\n", "--latency-method 'sleepy'");
    std::ofstream(dir / "l.conf") << "# values\n\nformat = xml\n";
    check_refused(
        test::run_contest_binary(
            {"latency", "--config", (dir / "l.conf").string(), "--workdir", work}, dir.path()),
        "l.conf:3: --format must be text or json");
    std::ofstream(dir / "r.conf") << "# values\n\ncorrection = bogus\n";
    check_refused(
        test::run_contest_binary({"report", "--config", (dir / "r.conf").string()}, dir.path()),
        "r.conf:3: --correction 'bogus'");
    CHECK_FALSE(fs::exists(work));
}

TEST_CASE("a config file must be a small regular file, a bad line is named with its number",
          "[robust][e2e]") {
    test::ScratchDir dir("config");
    const std::string work = (dir / "work").string();
    auto run_with = [&](const std::string& config) {
        return test::run_contest_binary({"run", "-w", kNoWorkload, "--config", config, "--workdir",
                                         work, "--results", work, "no_load"},
                                        dir.path());
    };
    check_refused(run_with(dir.path().string()), "is a folder");
    check_refused(run_with("/dev/zero"), "/dev/zero is not a regular file");
    check_refused(run_with((dir / "missing.conf").string()), "No such file or directory");
    {
        std::ofstream big(dir / "big.conf");
        big << "runs = 1\n" << std::string(1 << 20, '#') << "\n";
    }
    check_refused(run_with((dir / "big.conf").string()), "big.conf is larger than 1 MiB");

    std::ofstream(dir / "unknown.conf") << "# quick\nruns = 1\n\n  colour = red  \n";
    check_refused(run_with((dir / "unknown.conf").string()),
                  "unknown.conf:4: unrecognised option 'colour'");
    std::ofstream(dir / "section.conf") << "runs = 1\n[x\n";
    check_refused(run_with((dir / "section.conf").string()),
                  "section.conf:2: expected a [section]");
    std::ofstream(dir / "dup.conf") << "runs = 1\nload = no_load\nload = cpu_load\nruns = 2\n";
    check_refused(run_with((dir / "dup.conf").string()),
                  "dup.conf:4: 'runs' is set already on line 1");
    std::ofstream(dir / "words.conf") << "runs = 1\nfast please\n";
    check_refused(run_with((dir / "words.conf").string()), "words.conf:2: expected 'name = value'");
    std::ofstream(dir / "escape.conf") << "runs = 1\nlabel = \x1b[2J\n";
    check_refused(run_with((dir / "escape.conf").string()),
                  "escape.conf:2: a control character (\\e)");
    CHECK_FALSE(fs::exists(work));

    // A good one is read: the command line wins over it, repeated loads add up.
    std::ofstream(dir / "good.conf")
        << "# a comment\nruns = 2  # two\r\nload = no_load\nload = cpu_load\n";
    auto o =
        test::run_contest_binary({"run", "-w", kNoWorkload, "--config",
                                  (dir / "good.conf").string(), "--runs", "1000", "--seed", "x"},
                                 dir.path());
    check_refused(o, "--seed");  // parsed that far: the file itself was fine
}

TEST_CASE(
    "a results folder with symlink loops and unreadable parts is reported from what is readable",
    "[robust][e2e]") {
    test::ScratchDir dir("readloop");
    const fs::path results = dir / "results";
    copy_good_result(results / "6.1.0-hz100");
    fs::create_symlink("b", results / "a.json");  // a.json -> b -> a.json
    fs::create_symlink("a.json", results / "b");
    fs::create_directory_symlink("..", results / "6.1.0-hz100" / "up");  // a folder loop
    fs::create_directory_symlink("spin", results / "spin");              // a link to itself
    auto o = test::run_contest_binary({"report", results.string()}, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("6.1.0-hz100") && Catch::Contains("no_load"));
    CHECK_THAT(o.err, Catch::Contains("a.json: a symlink loop"));
    CHECK_THAT(o.err, Catch::Contains("spin: a symlink loop"));
    CHECK_THAT(o.err, Catch::Contains("up: a link back to a folder already read"));

    // Unreadable to an ordinary user: a sub-folder and a file.
    copy_good_result(results / "6.1.0-rt");
    const fs::path hidden = results / "hidden", locked = results / "6.1.0-rt" / "locked.json";
    copy_good_result(hidden);
    fs::copy_file(results / "6.1.0-hz100" / "2024-05-01T090000Z.json", locked);
    open_to_others(results);
    fs::permissions(hidden, fs::perms::none);
    fs::permissions(locked, fs::perms::none);
    const auto as_user = run_as_ordinary_user({"report", results.string()}, dir);
    fs::permissions(hidden, fs::perms::owner_all);
    if (!as_user.outcome) CONTEST_SKIP(as_user.why_not);
    o = *as_user.outcome;
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("6.1.0-hz100"));
    CHECK_THAT(o.err, Catch::Contains("hidden: Permission denied"));
    CHECK_THAT(o.err, Catch::Contains("locked.json: Permission denied"));
    CHECK_THAT(o.err, !Catch::Contains("No such file"));
}

TEST_CASE("a number field out of its type's range is refused, not cast", "[robust][result]") {
    for (const char* index : {"1e300", "-1e300", "2.5", "4294967296.0"}) {
        INFO(index);
        const std::string text = R"({"schema_version": 1, "label": "x", "runs": [{"load": "no_load",
            "index": )" + std::string(index) +
                                 R"(, "status": "ok", "wall_s": 1}]})";
        CHECK_THROWS_WITH(
            result_from_json(nlohmann::json::parse(text), "f.json"),
            Catch::Contains("f.json: runs[0]: field \"index\" is not a whole number"));
    }
    CHECK_THROWS_WITH(
        result_from_json(nlohmann::json::parse(R"({"schema_version": 1e300})"), "g.json"),
        Catch::Contains("schema_version"));
    const auto ok = nlohmann::json::parse(
        R"({"schema_version": 1.0, "label": "x", "runs": [{"load": "no_load", "index": 2.0, "status": "ok", "wall_s": 1}]})");
    CHECK(result_from_json(ok, "h.json").runs.at(0).index == 2);
}

TEST_CASE("a failed write keeps the last good file, removes its temporary and names the cause",
          "[robust][result]") {
    test::ScratchDir dir("fullfs");
    ScratchMount disk(dir / "disk", "64k");
    if (!disk.mounted()) CONTEST_SKIP("cannot mount a tmpfs here: " << disk.why_not());
    const fs::path file = dir / "disk" / "label" / "r.json";
    const std::string good = "{\"the\": \"last good file\"}\n";
    REQUIRE_FALSE(try_write_file_atomically(file, good));
    const auto error = try_write_file_atomically(file, std::string(256 * 1024, 'x'));
    REQUIRE(error);
    CHECK_THAT(*error,
               Catch::Contains(file.string()) && Catch::Contains("No space left on device"));
    CHECK(test::slurp(file) == good);
    int entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(file.parent_path())) ++entries;
    CHECK(entries == 1);  // no temporary left
    CHECK_THROWS_AS(write_file_atomically(file, std::string(256 * 1024, 'x')), EnvironmentError);

    // Read-only: the binary names the cause, not "No such file or directory".
    REQUIRE(disk.make_read_only());
    CHECK_THAT(*try_write_file_atomically(file, good), Catch::Contains("Read-only file system"));
    CHECK_THAT(*try_write_file_atomically(dir / "disk" / "new" / "r.json", good),
               Catch::Contains("Read-only file system"));
    const fs::path data = fs::path(CONTEST_TEST_DATA) / "results/kernels";
    auto o = test::run_contest_binary(
        {"report", data.string(), "--plot", (dir / "disk" / "label" / "plot.svg").string()},
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 3);
    CHECK_THAT(o.err, Catch::Contains("plot.svg: Read-only file system"));
    CHECK(test::slurp(file) == good);
}

TEST_CASE("writing into a folder an ordinary user may not write names the permission",
          "[robust][e2e]") {
    test::ScratchDir dir("rofolder");
    // The data where nobody can read it: the checkout may be closed to others.
    const fs::path data = dir / "data";
    fs::copy(fs::path(CONTEST_TEST_DATA) / "results/kernels", data, fs::copy_options::recursive);
    open_to_others(data);
    // Open to read, closed to write, to its owner too (who is not root when
    // the test is not run as root).
    fs::create_directories(dir / "closed");
    fs::permissions(dir / "closed", fs::perms::owner_read | fs::perms::owner_exec |
                                        fs::perms::group_read | fs::perms::group_exec |
                                        fs::perms::others_read | fs::perms::others_exec);
    const auto as_user = run_as_ordinary_user(
        {"report", data.string(), "--plot", (dir / "closed" / "plot.svg").string()}, dir);
    if (!as_user.outcome) CONTEST_SKIP(as_user.why_not);
    const auto& o = *as_user.outcome;
    INFO(o.err);
    CHECK(o.exit_code == 3);
    CHECK_THAT(o.err, Catch::Contains("closed/plot.svg: Permission denied"));
}

TEST_CASE("an unbalanced quote in a workload command is named with its bytes escaped", "[robust]") {
    test::ScratchDir dir("words");
    auto o = test::run_contest_binary({"run", "-w", "command", "--workload-cmd", "echo 'a\x1b[2J",
                                       "--workdir", (dir / "work").string(), "no_load"},
                                      dir.path());
    check_refused(o, "unbalanced single quote in 'echo 'a\\e[2J'");
}
