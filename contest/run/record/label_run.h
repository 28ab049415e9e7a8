#pragma once
// One label of `contest run`: a value (or combination of values) of --vary,
// a kernel of --kernel or --boot, or the -k label alone. Each owns what its runs are taken
// under (the knobs' values, or the kernel), its result file and where that
// is saved.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/run/record/result_writer.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"

namespace contest {

// --kernel: a label's kernel as given, then made ready for its guests
// (kernel_guests.h): the image resolved and the initramfs built.
struct LabelKernel {
    std::string image;  // IMAGE as given
    KernelImage resolved;
    Initramfs initramfs;
    // What contest built it from, when IMAGE was TREE@REF (kbuild's
    // KernelBuild record); null otherwise.
    nlohmann::json build;
};

struct LabelRun {
    std::string label;
    std::size_t index = 0;  // its place among the labels (the plan's PlannedRun::label)
    // --vary: the knobs' values its runs are taken under (an index per
    // knob); empty without --vary.
    std::vector<std::size_t> combination;
    std::optional<LabelKernel> kernel;  // --kernel: the kernel its guests boot
    std::filesystem::path folder;  // where its file goes: results/LABEL, or a resumed file's own
    ResultFile result;             // made, or resumed, before the first run
    ResultWriter writer{""};       // saves `result` where it belongs

    const std::filesystem::path& path() const { return writer.path(); }
    void save() const { writer.save(result); }  // throws SaveFailed
    void save_interrupted() const { writer.save_interrupted(result); }
};

// UsageError when label is not one a label may be (label_problem: what -k
// refuses); `what` names where it came from, `from` says more after the why.
void check_label_name(const std::string& label, const std::string& what,
                      const std::string& from = "");

// Every label's folder, in the labels' order.
std::vector<std::filesystem::path> label_folders(const std::vector<LabelRun>& labels);

// Every label's file, in the labels' order.
std::vector<ResultFile> label_results(const std::vector<LabelRun>& labels);

}  // namespace contest
