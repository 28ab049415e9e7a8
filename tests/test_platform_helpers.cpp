// The platform floor's one way of each small thing: whether an earlier
// contest is gone, fds, writes, comma lists, enum names, numbers as text,
// warnings beside the progress line.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <array>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "contest/analysis/multiple_comparisons.h"
#include "contest/run/plan/run_order.h"
#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/number_text.h"
#include "contest/sys/proc_files.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"
#include "test_helpers.h"

using namespace contest;

namespace {

// A live child that is not a contest (it renamed itself), stopped and reaped
// when this goes.
struct OtherProcess {
    pid_t pid = ::fork();
    OtherProcess() {
        if (pid == 0) {
            ::prctl(PR_SET_NAME, "not-it");
            for (;;) ::pause();
        }
        // Wait until the rename shows, so the test sees the child as it will stay.
        for (int i = 0; i < 500 && contest_gone(pid) == false; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ~OtherProcess() {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
};

enum class Colour { red, green, blue };
constexpr std::array<EnumName<Colour>, 3> kColours{{
    {Colour::red, "red"},
    {Colour::green, "green"},
    {Colour::blue, "blue"},
}};

}  // namespace

TEST_CASE("contest_gone: no process, another process under the pid, or one not a contest",
          "[platform]") {
    CHECK(contest_gone(test::a_gone_pid()));
    CHECK(contest_gone(0));
    CHECK(contest_gone(-1));
    const pid_t self = ::getpid();
    const unsigned long long started = process_start_time(self);
    REQUIRE(started != 0);
    // This test binary is named contest_tests: a contest, still here.
    CHECK_FALSE(contest_gone(self));
    CHECK_FALSE(contest_gone(self, started));
    // The same pid, recorded with another start: an earlier contest whose
    // pid this one reused.
    CHECK(contest_gone(self, started + 1));

    OtherProcess other;
    CHECK(contest_gone(other.pid));  // alive, but no contest
    CHECK_FALSE(contest_gone(other.pid, process_start_time(other.pid)));
}

TEST_CASE("a contest-<pid> name gives its pid, any other name none", "[platform]") {
    CHECK(pid_after_prefix("contest-1234", "contest-") == 1234);
    CHECK_FALSE(pid_after_prefix("contest-", "contest-"));
    CHECK_FALSE(pid_after_prefix("contest-12x", "contest-"));
    CHECK_FALSE(pid_after_prefix("contest--12", "contest-"));
    CHECK_FALSE(pid_after_prefix("contest-0", "contest-"));
    CHECK_FALSE(pid_after_prefix("contest-99999999999999999999", "contest-"));
    CHECK_FALSE(pid_after_prefix("not-contest-12", "contest-"));
}

TEST_CASE("an owner marker names this process until its pid and start differ", "[platform]") {
    CHECK_FALSE(marker_owner_dead(owner_marker_text()));
    CHECK(marker_owner_dead(std::to_string(::getpid()) + " " +
                            std::to_string(process_start_time(::getpid()) + 1) + "\n"));
    CHECK(marker_owner_dead(std::to_string(test::a_gone_pid()) + " 12345\n"));
    CHECK(marker_owner_dead("not a marker"));
    CHECK(marker_owner_dead(""));
}

TEST_CASE("FileLock: one holder at a time, its pid readable, no link followed", "[platform]") {
    test::ScratchDir dir("file-lock");
    const std::filesystem::path path = dir / "x.lock";
    CHECK(FileLock::holder(path) == 0);  // no file yet
    {
        auto held = FileLock::try_take(path);
        REQUIRE(held);
        CHECK(FileLock::holder(path) == ::getpid());
        CHECK(FileLock::held_by(path) == ::getpid());
        // A second open of the file is another holder, refused while the first lives.
        CHECK_FALSE(FileLock::try_take(path));
    }
    CHECK(FileLock::held_by(path) == 0);  // the pid is still written, nobody holds it
    CHECK(FileLock::try_take(path));
    std::filesystem::create_symlink(path, dir / "link.lock");
    CHECK_THROWS_AS(FileLock::try_take(dir / "link.lock"), EnvironmentError);
    // A file of two names is not a lock to truncate: a hard link another
    // user made in a shared folder to a file of root's.
    test::put_file(dir / "victim", "kept\n");
    std::filesystem::create_hard_link(dir / "victim", dir / "hard.lock");
    CHECK_THROWS_AS(FileLock::try_take(dir / "hard.lock"), EnvironmentError);
    CHECK(test::slurp(dir / "victim") == "kept\n");
    // A file made is given the mode asked whatever the umask: a lock every
    // user of a shared folder can open.
    const mode_t old_mask = ::umask(077);
    CHECK(FileLock::try_take(dir / "shared.lock", 0666));
    ::umask(old_mask);
    struct stat st {};
    REQUIRE(::stat((dir / "shared.lock").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0666);
}

TEST_CASE("UniqueFd closes once, close() tells whether the close worked", "[platform]") {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    UniqueFd read_end(fds[0]), write_end(fds[1]);
    CHECK(write_end.close() == 0);
    CHECK(write_end.get() == -1);
    CHECK(write_end.close() == 0);  // nothing open: nothing to close
    char byte;
    CHECK(::read(read_end.get(), &byte, 1) == 0);  // EOF: the write end is really closed
    UniqueFd moved(std::move(read_end));
    CHECK(read_end.get() == -1);
    CHECK(moved.get() == fds[0]);
}

TEST_CASE("write_all writes all through short writes, and says ENOSPC on a full device",
          "[platform]") {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    UniqueFd read_end(fds[0]), write_end(fds[1]);
    const std::string data(1 << 20, 'x');  // more than a pipe holds: short writes
    std::string got;
    std::thread reader([&] {
        char buf[4096];
        for (ssize_t n; (n = ::read(read_end.get(), buf, sizeof buf)) > 0;)
            got.append(buf, static_cast<std::size_t>(n));
    });
    CHECK(write_all(write_end.get(), data));
    write_end.reset();
    reader.join();
    CHECK(got == data);

    UniqueFd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
    if (full.get() >= 0) {
        errno = 0;
        CHECK_FALSE(write_all(full.get(), "abc"));
        CHECK(errno == ENOSPC);
    }
}

TEST_CASE("split_commas keeps empty pieces, split_names takes commas and spaces alike",
          "[platform]") {
    using V = std::vector<std::string>;
    CHECK(split_commas("a,,b") == V{"a", "", "b"});
    CHECK(split_commas("") == V{""});
    CHECK(split_commas("a,") == V{"a", ""});
    CHECK(split_commas("one") == V{"one"});
    CHECK(split_names({"a,b c", " ", ",d,,", "e"}) == V{"a", "b", "c", "d", "e"});
    CHECK(split_names({}).empty());
}

TEST_CASE("one table serves both directions of an enum's names", "[platform]") {
    CHECK(name_in(kColours, Colour::green) == "green");
    CHECK(value_in(kColours, "blue") == Colour::blue);
    CHECK_FALSE(value_in(kColours, "Blue").has_value());
    CHECK(names_in(kColours, ", ", " or ") == "red, green or blue");
    CHECK(names_in(kColours, "|", "|") == "red|green|blue");
    static_assert(name_in(kColours, Colour::red) == "red");

    for (auto order : {RunOrder::shuffled, RunOrder::rounds, RunOrder::blocks})
        CHECK(parse_run_order(run_order_name(order)) == order);
    CHECK_THROWS_WITH(parse_run_order("random"),
                      "--order 'random': expected shuffled, rounds or blocks");
    for (auto c : {stats::Correction::holm, stats::Correction::bh, stats::Correction::none})
        CHECK(stats::parse_correction(stats::correction_name(c)) == c);
    CHECK_THROWS_WITH(stats::parse_correction("bonferroni"),
                      "--correction 'bonferroni': expected holm, bh or none");
    CHECK(std::string(stats::correction_title(stats::Correction::bh)) == "Benjamini-Hochberg");
}

TEST_CASE("numbers as text: each format in one place, as the outputs show them", "[platform]") {
    CHECK(number_text(1048576) == "1048576");
    CHECK(number_text(0.05) == "0.05");
    CHECK(fixed(3.14159, 2) == "3.14");
    CHECK(fixed(-0.04, 1) == "0.0");  // no sign the number does not have
    CHECK(fixed(-1.25, 1) == "-1.2");
    CHECK(fixed(std::nan(""), 3) == "-");
    CHECK(six_digits(0.05) == "0.05");
    CHECK(six_digits(1e-6) == "1e-06");
    CHECK(six_digits(1234567) == "1.23457e+06");
    CHECK(six_digits(INFINITY).empty());
    CHECK(svg_number(-0.04) == "-0.0");  // coordinates as they fall
    CHECK(svg_number(12.25) == "12.2");
    CHECK(clock_duration(245) == "4:05");
    CHECK(clock_duration(3723.4) == "1:02:03");
    CHECK(clock_duration(-3) == "0:00");
    CHECK(four_digits(0.123456) == "0.1235");
    CHECK(four_digits(1234.5) == "1234");      // %.4g's rounding, no exponent yet
    CHECK(four_digits(123456.7) == "123457");  // whole from 10000 up, never 1.235e+05
    CHECK(exact_text(0.1) == "0.1");
    CHECK(exact_text(1.0 / 3) == "0.3333333333333333");  // reads back as the same double
    CHECK(exact_text(18446744073709551615ULL) == "18446744073709551615");
}

namespace {

// What the code under test writes on stderr, read back once it is done.
class CapturedStderr {
  public:
    CapturedStderr() : file_(std::tmpfile()), saved_(::dup(STDERR_FILENO)) {
        std::fflush(stderr);
        ::dup2(::fileno(file_), STDERR_FILENO);
    }
    ~CapturedStderr() {
        restore();
        std::fclose(file_);
    }
    std::string text() {
        restore();
        std::string out;
        std::rewind(file_);
        for (int c; (c = std::fgetc(file_)) != EOF;) out.push_back(static_cast<char>(c));
        return out;
    }

  private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        ::dup2(saved_, STDERR_FILENO);
        ::close(saved_);
        saved_ = -1;
    }
    std::FILE* file_;
    int saved_;
};

}  // namespace

TEST_CASE("a warning ends a live progress line first, and is said with --quiet too", "[platform]") {
    {
        CapturedStderr err;
        Progress live(Progress::Mode::kLive);
        live.status("no_load  run 1/3");
        warn("caches not dropped");
        live.status("no_load  run 2/3");
        say("removed what a killed contest left: x");
        say("nothing open: no erase before this one");
        live.clear();
        CHECK(err.text() ==
              "\r\033[Kno_load  run 1/3\r\033[Kcontest: warning: caches not dropped\n"
              "\r\033[Kno_load  run 2/3\r\033[Kcontest: removed what a killed contest left: x\n"
              "contest: nothing open: no erase before this one\n");
    }
    CapturedStderr err;
    Progress quiet(Progress::Mode::kQuiet);
    quiet.status("no_load  run 1/3");
    quiet.note("contest: results go to somewhere");
    warn("caches not dropped");
    CHECK(err.text() == "contest: warning: caches not dropped\n");
}

TEST_CASE("/proc/stat's cpu line and procs_running are read from their own lines", "[platform]") {
    const std::string text =
        "cpu  10 1 20 300 4 0 2 7 0 0\ncpu0 5 0 10 150 2 0 1 3 0 0\nintr 99\n"
        "procs_running 3\nprocs_blocked 0\n";
    const auto cpu = contest::parse_proc_stat_cpu(text);
    REQUIRE(cpu);
    CHECK(cpu->user == 10);
    CHECK(cpu->steal == 7);
    CHECK(contest::parse_procs_running(text) == 3u);
    CHECK_FALSE(contest::parse_procs_running("cpu 1 2 3 4 5 6 7\n"));
    CHECK_FALSE(contest::parse_procs_running("procs_running x\n"));
    // A real /proc/stat counts at least the reader.
    const auto now = contest::read_procs_running();
    REQUIRE(now);
    CHECK(*now >= 1u);
}
