#include "contest/cli/kernel_journal.h"

#include "contest/cli/run_options.h"
#include "contest/run/plan/places.h"

namespace contest {

RunJournal kernel_run_journal(std::vector<std::string> words, bool boot,
                              const std::vector<KernelSpec>& kernels) {
    for (const KernelSpec& k : kernels)
        words.push_back(kernel_word(boot ? RunPlace::boot : RunPlace::guests, k));
    if (boot) return boot_batch_journal_of(words);
    RunJournal journal;
    journal.config = run_config_of(words);
    return journal;
}

}  // namespace contest
