#pragma once
// The journal a command's runs of kernels start from, made once at its
// start of the run words after its --: contest bisect's batches (of its
// ends, good and bad) and contest track's points and confirmations (of a
// point at its tree's HEAD). Each later run is that config with its own
// kernels, rounds and folder; no word is parsed again.
#include <string>
#include <vector>

#include "contest/run/plan/run_journal.h"

namespace contest {

// `words` with `kernels` added as --kernel LABEL=SPEC words (under --boot
// as --boot ones), parsed and checked as `contest run` parses its own
// (run_config_of); under --boot resolved as a --boot start resolves its
// words, how it boots beside its config (boot_batch_journal_of). UsageError
// as `contest run` says it.
RunJournal kernel_run_journal(std::vector<std::string> words, bool boot,
                              const std::vector<KernelSpec>& kernels);

}  // namespace contest
