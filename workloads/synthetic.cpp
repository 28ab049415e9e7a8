// The embedded workload: a generated C project compiled with make -jN.
#include <filesystem>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/spawn.h"
#include "contest/sys/workdir.h"
#include "workloads/build_environment.h"
#include "workloads/synthetic_generator.h"
#include "workloads/workload_kinds.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

class SyntheticWorkload : public Workload {
  public:
    explicit SyntheticWorkload(const WorkloadOptions& options)
        : options_(options), jobs_(effective_jobs(options.jobs)), dir_(options.workdir / stem()) {
        if (options.synthetic_size < 1 || options.synthetic_size > kMaxSyntheticSize)
            throw UsageError("--synthetic-size: " + std::to_string(options.synthetic_size) +
                             " is not between 1 and " + std::to_string(kMaxSyntheticSize));
    }

    std::string name() const override { return "synthetic"; }

    void prepare(Progress& progress) override {
        compiler_ = find_on_path("cc").value_or(find_on_path("gcc").value_or(fs::path()));
        if (compiler_.empty())
            throw EnvironmentError(
                "no C compiler (cc or gcc) on PATH: install the Debian package gcc (make deps)");
        if (!find_on_path("make"))
            throw EnvironmentError(
                "make is not on PATH: install the Debian package make (make deps)");

        progress.status("synthetic: generating " + std::to_string(options_.synthetic_size) +
                        " translation units");
        SyntheticProject project = generate_synthetic_project(options_.synthetic_size);
        project_hash_ = project.hash_hex();
        Workdir::opened_or_open(options_.opened_workdir, options_.workdir)
            .make_dir(stem());  // a real folder, no link
        rewritten_ = write_synthetic_project(project, dir_);
        progress.note(std::string("synthetic: ") + (rewritten_ ? "wrote " : "reusing ") +
                      dir_.string() + " (" + std::to_string(options_.synthetic_size) +
                      " translation units, " + project_hash_ + ")");
        compiler_version_ = first_line(command_output({compiler_.string(), "--version"}));
    }

    void clean() override {
        reset_log(log_path());
        SpawnOptions spawn;
        spawn.cwd = dir_;
        spawn.env_overrides = fixed_build_environment();
        const fs::path log = options_.workdir / (stem() + "-clean.log");
        spawn.log_to(log);
        reset_log(log);
        run_checked({"make", "clean"}, spawn, "synthetic: make clean");
    }

    Command timed_command() const override {
        Command c;
        c.argv = {"make", "-j" + std::to_string(jobs_)};
        // Naming the compiler makes the result file say which one ran.
        if (!compiler_.empty()) c.argv.push_back("CC=" + compiler_.string());
        c.cwd = dir_;
        c.env_overrides = fixed_build_environment();
        return c;
    }

    fs::path log_path() const override { return options_.workdir / (stem() + ".log"); }

    fs::path source_tree() const override { return dir_; }

    nlohmann::json describe() const override {
        Command c = timed_command();
        return {
            {"kind", "synthetic"},
            {"synthetic_size", options_.synthetic_size},
            {"generator_version", kSyntheticGeneratorVersion},
            {"project_hash", project_hash_},
            {"jobs", jobs_},
            {"directory", dir_.string()},
            {"project_rewritten", rewritten_},
            {"compiler", compiler_.string()},
            {"compiler_version", compiler_version_},
            {"command", c.argv},
            {"environment", c.env_overrides},
        };
    }

  private:
    // synthetic-<size>: the project's folder, and its logs beside it.
    std::string stem() const { return "synthetic-" + std::to_string(options_.synthetic_size); }

    WorkloadOptions options_;
    unsigned jobs_;
    fs::path dir_;
    fs::path compiler_;
    std::string compiler_version_;
    std::string project_hash_;
    bool rewritten_ = false;
};

}  // namespace

std::unique_ptr<Workload> make_synthetic_workload(const WorkloadOptions& options) {
    return std::make_unique<SyntheticWorkload>(options);
}

}  // namespace contest
