#include "contest/cli/kernel_journal.h"

#include "contest/cli/run_options.h"

namespace contest {

RunJournal kernel_run_journal(std::vector<std::string> words, bool boot,
                              const std::vector<KernelSpec>& kernels) {
    for (const KernelSpec& k : kernels)
        words.push_back((boot ? "--boot=" : "--kernel=") + k.label + "=" + k.image);
    if (boot) return boot_batch_journal_of(words);
    RunJournal journal;
    journal.config = run_config_of(words);
    return journal;
}

}  // namespace contest
