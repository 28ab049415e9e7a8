#pragma once
// Where the --boot run in a results folder stands, for a person (`contest
// run --boot-status`), rendered through the outputs table
// (report/outputs.h: the use boot_status, text only): its phase, its turns
// and boots, the step under way and whose the machine's unit is. The model
// is plain: what the run's journal says, named by the reboot place
// (contest/run/places/boot/place_boot.cpp); every text of the journal's (a
// kernel's command line, a release) is made printable here.
#include <cstddef>
#include <string>
#include <vector>

namespace contest {

struct BootStatusLabel {
    std::string label, kernel, cmdline;
};

struct BootStatusTurn {
    unsigned round = 0;
    std::string label, status;  // status: "done", as the journal names it
};

struct BootStatusBoot {
    std::string at, expected, release;
    double up_s = 0;  // /proc/uptime when it was checked
    std::string outcome;
};

struct BootStatus {
    std::string results;  // the folder asked about
    bool found = false;   // a --boot run there; the rest only then
    std::string started_at, phase, note, method;
    std::size_t taken = 0, failed = 0;  // of the turns
    unsigned boots_asked = 0, boot_max = 0;
    std::string start_release, start_cmdline;  // what the machine ran at the start
    std::vector<BootStatusLabel> labels;
    std::vector<BootStatusTurn> turns;
    std::vector<BootStatusBoot> boots;
    long step = 0;           // a step under way: its pid, 0 none
    std::string unit;        // the machine's unit is this run's: its file
    std::string other_unit;  // the machine's unit is another run's: that run's journal
};

std::string boot_status_text(const BootStatus& status);

}  // namespace contest
