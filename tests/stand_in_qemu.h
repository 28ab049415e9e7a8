#pragma once
// A stand-in for qemu-system-x86_64 on PATH, which boots nothing: the host's
// side of a guest (its command line, its console, its share, the turn's
// journal) is the real code, and the guest's contest is the contest under
// test run on this host, with no TCG. Its users: the duet guests' tests and
// a bisection in guests cut short and taken on.
#include <filesystem>
#include <string>

#include "test_helpers.h"

namespace contest::test {

// A stand-in qemu-system-x86_64 in `bin`: appends "CONSOLE CPUS THREAD-CPUS..."
// to `log` (its console log's name, console-LABEL-ROUND, the CPUs it may run
// on and those of each of its threads), says it is up, waits `slow_s`
// seconds when its label is `slow` (a guest slower to its runs than the
// other), then runs the turn's journal with the contest under test (the
// guest's /mnt/out its share, the rest of /mnt a folder beside it), with
// DUET_GUEST naming its console for what the runs start.
inline void put_stand_in_qemu(const std::filesystem::path& bin, const std::filesystem::path& log,
                              const std::string& slow, int slow_s) {
    put_file(bin / "qemu-system-x86_64",
             "#!/bin/sh\n"
             "out=\n"
             "for a; do case $a in *mount_tag=out*) out=${a#*path=}; out=${out%%,*};; esac; done\n"
             "name=$(basename \"$(readlink /proc/$$/fd/1)\" .log)\n"
             "cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' \"$1\"; }\n"
             "threads=; for t in /proc/$$/task/*; do threads=\"$threads $(cpus $t/status)\"; done\n"
             "echo \"$name $(cpus /proc/$$/status)$threads\" >> '" +
                 log.string() +
                 "'\n"
                 "echo 'contest-guest: up'\n"
                 "case $name in console-" +
                 slow + "-*) sleep " + std::to_string(slow_s) +
                 ";; esac\n"
                 "root=$out.root; mkdir -p \"$root/work\" \"$root/tmp\"\n"
                 "sed -e \"s|\\\"/mnt/out|\\\"$out|g\" -e \"s|\\\"/mnt/|\\\"$root/|g\" "
                 "\"$out/turn.run-journal\" > \"$root/turn.run-journal\"\n"
                 "if DUET_GUEST=$name " CONTEST_BINARY
                 " run --journal=\"$root/turn.run-journal\" > \"$out/guest.log\" 2>&1\n"
                 "then echo 'contest-guest: done'; else echo \"contest-guest: failed: its contest "
                 "exited $?\"; fi\n",
             true);
}

}  // namespace contest::test
