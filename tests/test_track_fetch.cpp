// `contest track --fetch` (contest/track/tree_fetch.h): the robot's clone
// brought up to date into its remote-tracking refs, on a plain `git clone`
// whose checked-out branch is the one followed (where the unit's old
// `git fetch origin BRANCH:BRANCH` stopped at exit 128), with none of the
// clone's config running a program, and only into a clone of contest's own
// user.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "contest/sys/errors.h"
#include "contest/track/tree_fetch.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::track;
namespace fs = std::filesystem;

namespace {

const char* const kCommit = "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m ";

// An upstream of one tagged commit on main, a plain `git clone` of it, and
// then a second commit and tag upstream that the clone has not.
struct ClonedTree {
    test::ScratchDir dir{"track-fetch"};
    fs::path upstream = dir / "upstream", clone = dir / "clone", scratch = dir / "scratch";
    std::string first, second;
    ClonedTree() {
        fs::create_directories(upstream);
        fs::create_directories(scratch);
        test::sh(upstream, std::string("git init -q -b main && ") + kCommit + "one && git tag t0");
        first = test::sh(upstream, "git rev-parse HEAD");
        test::sh(dir.path(), "git clone -q upstream clone");
        test::sh(upstream, std::string(kCommit) + "two && git tag t1");
        second = test::sh(upstream, "git rev-parse HEAD");
    }
    std::string clone_says(const std::string& cmd) const { return test::sh(clone, cmd); }
};

// A program the clone's config names: it leaves its name in `ran`.
std::string marker_program(const ClonedTree& t, const std::string& name) {
    const fs::path program = t.dir / "programs" / name;
    test::put_file(program,
                   "#!/bin/sh\necho " + name + " >> '" + (t.dir / "ran").string() + "'\ncase " +
                       name + " in upload-pack) exec git-upload-pack \"$@\";; esac\n",
                   true);
    return program.string();
}

}  // namespace

TEST_CASE(
    "track --fetch on a plain git clone: the remote's branch into origin/BRANCH and its tags, "
    "the checked-out branch and work tree untouched, where the unit's old fetch into the branch "
    "is refused",
    "[track]") {
    ClonedTree t;
    REQUIRE(t.clone_says("git symbolic-ref HEAD") == "refs/heads/main");
    // The unit's old line, as it ran: git refuses to fetch into the branch
    // the clone has checked out.
    CHECK(t.clone_says("git fetch --quiet --tags origin main:main 2>&1; echo exit $?")
              .ends_with("exit 128"));
    CHECK(t.clone_says("git rev-parse origin/main") == t.first);

    fetch_followed_branch(t.clone, "origin/main", t.scratch);
    CHECK(t.clone_says("git rev-parse origin/main") == t.second);
    CHECK(t.clone_says("git rev-parse t1") == t.second);
    // The person's (or the role's) branch and work tree as they were.
    CHECK(t.clone_says("git rev-parse main") == t.first);
    CHECK(t.clone_says("git rev-parse HEAD") == t.first);
    CHECK(t.clone_says("git status --porcelain").empty());
    // Nothing but git's output went into the scratch folder, and it is gone.
    CHECK(fs::is_empty(t.scratch));
    // Again with nothing new: no change, no failure.
    fetch_followed_branch(t.clone, "origin/main", t.scratch);
    CHECK(t.clone_says("git rev-parse origin/main") == t.second);
}

TEST_CASE(
    "track --fetch: hooks, fsmonitor, an upload-pack, an alternate's refs command, ssh and "
    "credential programs of the clone's config never run, which a plain git fetch runs",
    "[track]") {
    ClonedTree t;
    const fs::path ran = t.dir / "ran";
    // The clone borrows the upstream's objects (so a fetch lists the
    // alternate's refs) and names a program for every setting that runs one.
    test::put_file(t.clone / ".git/objects/info/alternates",
                   (t.upstream / ".git/objects").string() + "\n");
    test::put_file(t.dir / "hooks/reference-transaction",
                   "#!/bin/sh\necho hook >> '" + ran.string() + "'\n", true);
    const std::vector<std::pair<std::string, std::string>> config = {
        {"core.hooksPath", (t.dir / "hooks").string()},
        {"core.fsmonitor", marker_program(t, "fsmonitor")},
        {"remote.origin.uploadpack", marker_program(t, "upload-pack")},
        {"core.alternateRefsCommand", marker_program(t, "alternate-refs")},
        {"core.sshCommand", marker_program(t, "ssh")},
        {"credential.helper", marker_program(t, "credential")},
        {"core.pager", marker_program(t, "pager")},
        {"gpg.program", marker_program(t, "gpg")},
    };
    for (const auto& [key, value] : config) t.clone_says("git config " + key + " '" + value + "'");

    // A plain fetch with that config runs its programs: the test's config
    // is one that would be obeyed.
    test::ScratchDir plain_dir("track-fetch-plain");
    test::sh(plain_dir.path(), "cp -a '" + t.clone.string() + "' plain");
    test::sh(plain_dir / "plain", "git fetch --quiet origin 2>&1 || true");
    const std::string plain_ran = test::slurp(ran);
    CHECK_THAT(plain_ran, Catch::Contains("hook"));
    CHECK_THAT(plain_ran, Catch::Contains("upload-pack"));
    CHECK_THAT(plain_ran, Catch::Contains("alternate-refs"));
    fs::remove(ran);

    fetch_followed_branch(t.clone, "origin/main", t.scratch);
    CHECK(t.clone_says("git rev-parse origin/main") == t.second);
    CHECK_FALSE(fs::exists(ran));

    test::require_program("ssh");
    // An ssh remote is reached with the machine's own ssh, not the one the
    // config names (port 1: nothing listens, the fetch fails saying so).
    t.clone_says("git remote add far ssh://127.0.0.1:1/linux.git");
    try {
        fetch_followed_branch(t.clone, "far/main", t.scratch);
        FAIL("no EnvironmentError");
    } catch (const EnvironmentError& e) {
        CHECK_THAT(e.what(), Catch::Contains("fetching main from far (ssh://127.0.0.1:1/linux.git) "
                                             "failed: ssh: connect to host 127.0.0.1 port 1"));
    }
    CHECK_FALSE(fs::exists(ran));
    // A transport that runs a command (ext::) is refused by git.
    const fs::path ext_marker = t.dir / "ext-ran";
    t.clone_says("git remote add cmd 'ext::sh -c touch% " + ext_marker.string() + "'");
    CHECK_THROWS_AS(fetch_followed_branch(t.clone, "cmd/main", t.scratch), EnvironmentError);
    CHECK_FALSE(fs::exists(ext_marker));
}

TEST_CASE(
    "track --fetch refuses, in one line, a branch that is no remote's, a remote the clone has "
    "not and a clone another user owns, changing nothing",
    "[track]") {
    ClonedTree t;
    auto refusal = [&](const std::string& followed) -> std::string {
        try {
            fetch_followed_branch(t.clone, followed, t.scratch);
        } catch (const UsageError& e) {
            return e.what();
        }
        return "no UsageError";
    };
    CHECK_THAT(refusal("main"), Catch::Contains("give --branch REMOTE/BRANCH (origin/master)"));
    CHECK_THAT(refusal("origin/"), Catch::Contains("give --branch REMOTE/BRANCH"));
    CHECK_THAT(refusal("upstream/main"), Catch::Contains("has no remote 'upstream'"));
    CHECK_THAT(refusal("origin/ma..in"), Catch::Contains("'ma..in' is no branch name"));
    if (::geteuid() == 0) {
        // Root's unit on a clone another user made: root's files would be
        // left in it (its objects' folders), which that user's git cannot
        // then write.
        test::sh(t.dir.path(), "chown -R 65534:65534 clone");
        CHECK_THAT(refusal("origin/main"),
                   Catch::Contains("belongs to uid 65534, contest runs as uid 0: a fetch would "
                                   "leave files of its own in another user's clone"));
        CHECK(test::sh(t.dir.path(), "find clone ! -user 65534 | wc -l") == "0");
    }
    CHECK(t.clone_says("git -c safe.directory='*' rev-parse origin/main") == t.first);

    // The command line: --fetch with a branch of no remote, exit 2 before
    // anything is read.
    const test::Outcome o = test::run_contest_binary(
        {"track", t.clone.string(), "--fetch", "--branch", "main", "--from", "t0", "--results",
         (t.dir / "track").string(), "--", "--workdir", (t.dir / "work").string(), "-w", "command",
         "--workload-cmd", "true", "no_load"},
        t.dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("--fetch follows a remote's branch"));
    CHECK_FALSE(fs::exists(t.dir / "track"));
}

TEST_CASE(
    "track --fetch on the fleet role's clone (ansible.builtin.git with version: the branch): "
    "the remote's branch into origin/BRANCH, the checked-out branch untouched",
    "[track]") {
    test::require_program("ansible");
    ClonedTree t;
    // The role's task (deploy/ansible/roles/contest/tasks/track.yml) as
    // Ansible runs it on a host, here this machine, into a folder of its own.
    const fs::path role_clone = t.dir / "role-clone";
    const std::string made = test::shell_output(
        "cd '" + t.dir.path().string() +
        "' && ANSIBLE_LOCAL_TEMP=ansible-tmp ANSIBLE_REMOTE_TEMP=ansible-tmp ansible localhost "
        "-c local -i localhost, -m ansible.builtin.git -a 'repo=" +
        t.upstream.string() + " dest=" + role_clone.string() +
        " version=main' >/dev/null 2>&1 && echo made");
    REQUIRE(made == "made");
    // Upstream moves on after the role's clone.
    test::sh(t.upstream, std::string(kCommit) + "three && git tag t2");
    const std::string third = test::sh(t.upstream, "git rev-parse HEAD");
    CHECK(test::sh(role_clone, "git symbolic-ref HEAD") == "refs/heads/main");
    CHECK(test::sh(role_clone, "git fetch --quiet origin main:main 2>&1; echo exit $?")
              .ends_with("exit 128"));

    fetch_followed_branch(role_clone, "origin/main", t.scratch);
    CHECK(test::sh(role_clone, "git rev-parse origin/main") == third);
    CHECK(test::sh(role_clone, "git rev-parse t2") == third);
    CHECK(test::sh(role_clone, "git rev-parse HEAD") == t.second);
    CHECK(test::sh(role_clone, "git status --porcelain").empty());
}
