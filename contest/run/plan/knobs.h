#pragma once
// `contest run --vary KNOB=V1,V2`: kernel settings varied inside one run.
//
// A knob is a kernel setting's file: a short name for the common ones
// (kKnobNames) or a path under /proc/sys or /sys (contest/sys/knob_file.h
// says what is refused, and the tests' stand-ins). Every value is written
// and read back before the first run, so a value the kernel refuses stops
// contest before anything is measured; the original value is restored after
// the last run and on every way out (KnobGuard's destructor), and a note in
// the workdir lets the next start restore what a contest killed hard left.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace contest {

// Two --vary options make a grid of every combination; a grid bigger than
// this is refused (each combination is a full set of runs per round).
inline constexpr std::size_t kMaxVaryCombinations = 16;

// "iosched", "thp", "autogroup", "swappiness", "dirty_ratio", "preempt".
std::string knob_short_names();

// One --vary option as given: "iosched=mq-deadline,bfq".
struct VarySpec {
    std::string knob;
    std::vector<std::string> values;
};
VarySpec parse_vary(const std::string& text);  // UsageError when malformed

struct Knob {
    std::string name;  // in labels: the short name, or the path's last component
    std::filesystem::path path;
    std::vector<std::string> values;
    std::string original;  // before contest changed it
};

// The file behind the option, its current value read. UsageError when the
// short name is unknown, or the file is missing, unreadable here or not a
// kernel setting.
Knob resolve_knob(const VarySpec& spec, const std::filesystem::path& workdir);

// Every combination of values, as an index into each knob's values (the
// first knob's changes slowest). UsageError above kMaxVaryCombinations.
std::vector<std::vector<std::size_t>> vary_combinations(const std::vector<Knob>& knobs);

// The label of one combination's runs from --vary-label's format:
// {label}, {vary} ("iosched=bfq" or "iosched=bfq,thp=never"), {knob} and
// {value} (the first knob's), {knob2} and {value2} (the second's).
std::string vary_label(const std::string& format, const std::string& label,
                       const std::vector<Knob>& knobs, const std::vector<std::size_t>& combination);

// Holds the knobs for the runs and puts them back.
class KnobGuard {
  public:
    // Records the originals in the workdir's note (atomically, before the
    // first change), then writes and reads back every value. A value the
    // knob refuses: the originals restored, the note removed, UsageError
    // naming the knob and the value.
    KnobGuard(const std::vector<Knob>& knobs, const std::filesystem::path& workdir);
    ~KnobGuard();
    KnobGuard(const KnobGuard&) = delete;
    KnobGuard& operator=(const KnobGuard&) = delete;

    // Sets a combination, writing only the knobs whose value differs.
    // EnvironmentError when a write fails now (it worked before the runs).
    void set(const std::vector<std::size_t>& combination);
    // Puts every changed knob back, says so on stderr, and removes the note
    // when all went back. Once; the destructor calls it too.
    void restore();

  private:
    const std::vector<Knob>& knobs_;
    std::vector<std::optional<std::string>> written_;  // what contest last wrote, per knob
    std::filesystem::path note_;
    bool restored_ = false;
};

// Where KnobGuard keeps its note.
std::filesystem::path knob_note_path(const std::filesystem::path& workdir);

// At a start: a note left by a contest that is gone (killed hard) names
// knobs it changed; they are restored, said on stderr, and the note removed.
void restore_knobs_left_changed(const std::filesystem::path& workdir);

}  // namespace contest
