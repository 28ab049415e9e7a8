// A label's own config options (TREE@REF%CONFIG_X=V, kernel_ref.h): read
// and refused as a user types them, merged as the kernel's merge_config.sh
// merges a fragment, checked after olddefconfig; built through the
// stand-in tree (tests/kbuild_stand_in.h), whose image's release carries
// its .config's checksum; and one merge through the kernel's own kconfig
// tool (scripts/kconfig/conf from linux-source) on a small Kconfig tree.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "contest/kbuild/built_kernels.h"
#include "contest/kbuild/kernel_config.h"
#include "contest/kbuild/kernel_ref.h"
#include "contest/kbuild/label_options.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/vm/kernel_image.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"
#include "test_skip.h"

using namespace contest;
using namespace contest::kbuild;
using contest::test::sh;
using contest::test::StandIn;
using contest::test::write_file;
namespace fs = std::filesystem;

namespace {

// What read_label_options says of items: "" when it takes them.
std::string refusal(const std::string& items) {
    try {
        read_label_options(items, "--kernel A=T@main%...: ");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

// The release the stand-in wrote into the image: the checksum of the
// .config it was built from.
std::string built_release(const BuiltKernel& k) {
    const std::string v = bzimage_version(fs::path(k.record.image) / "arch/x86/boot/bzImage");
    return v.substr(0, v.find(' '));
}

std::string config_checksum(const BuiltKernel& k) {
    return sh(k.record.image, "cksum < .config | cut -d' ' -f1");
}

}  // namespace

TEST_CASE("label options: inline, not set, a fragment file, '%%' a '%', merged as merge_config.sh",
          "[kbuild][label-options]") {
    test::ScratchDir dir("label-options");
    const fs::path fragment = dir / "hz.config";
    write_file(fragment, "# the seeds' pair\n\nCONFIG_HZ_1000=y\r\n# CONFIG_HZ_250 is not set\n");
    const LabelOptions o = read_label_options(
        "CONFIG_LOCALVERSION=\"-a%%b\"%" + fragment.string() + "%CONFIG_DEBUG=n%CONFIG_HZ_1000=y",
        "h: ");
    REQUIRE(o.options.size() == 4);  // the same value twice is one option
    CHECK(o.options[0].value == "\"-a%b\"");
    CHECK(o.options[1].from == fragment.string() + ":3");
    CHECK(o.text() ==
          "CONFIG_LOCALVERSION=\"-a%b\"\nCONFIG_HZ_1000=y\n# CONFIG_HZ_250 is not set\n"
          "# CONFIG_DEBUG is not set\n");
    // Inline again, as a bisection hands them to each batch: the same options.
    CHECK(read_label_options(o.spec_tail().substr(1), "h: ").text() == o.text());
    CHECK(label_options_of_lines(o.lines(), "h: ").text() == o.text());
    CHECK_THROWS_WITH(label_options_of_lines({fragment.string()}, "h: "),
                      Catch::Contains("is no option line"));

    // Each option's earlier lines removed, its own appended: it wins, and
    // what it replaced is said; other lines stay as they were.
    std::vector<ConfigChange> overridden;
    const std::string merged = merge_label_options(
        "CONFIG_A=y\nCONFIG_HZ_250=y\n# CONFIG_DEBUG is not set\nCONFIG_LOCALVERSION=\"\"\n", o,
        &overridden);
    CHECK(merged ==
          "CONFIG_A=y\nCONFIG_LOCALVERSION=\"-a%b\"\nCONFIG_HZ_1000=y\n# CONFIG_HZ_250 is not "
          "set\n# CONFIG_DEBUG is not set\n");
    REQUIRE(overridden.size() == 2);
    CHECK(change_text(overridden[0]) == "CONFIG_LOCALVERSION: \"\" -> \"-a%b\"");
    CHECK(change_text(overridden[1]) == "CONFIG_HZ_250: y -> unset");

    // What olddefconfig did not keep, named; unset and =n alike.
    CHECK(options_not_kept(o, "CONFIG_LOCALVERSION=\"-a%b\"\nCONFIG_HZ_1000=y\n").empty());
    CHECK(options_not_kept(o, "CONFIG_LOCALVERSION=\"-a%b\"\nCONFIG_HZ_250=y\n") ==
          std::vector<std::string>{"CONFIG_HZ_1000=y (now unset)",
                                   "# CONFIG_HZ_250 is not set (now y)"});
}

TEST_CASE("bad label options: one line each naming what is wrong", "[kbuild][label-options]") {
    test::ScratchDir dir("label-options-bad");
    write_file(dir / "empty.config", "");
    write_file(dir / "comments.config", "# only words\n\n");
    write_file(dir / "binary.config", std::string("CONFIG_A=y\n\0\x01\x02", 14));
    write_file(dir / "huge.config", std::string(kMaxFragmentBytes + 1, '#'));
    write_file(dir / "typo.config", "CONFIG_A=y\nHZ=1000\n");
    write_file(dir / "twice.config", "CONFIG_HZ=100\n");
    const std::string d = dir.path().string() + "/";
    for (const auto& [items, says] : std::vector<std::pair<std::string, std::string>>{
             {"HZ_1000=y", "'HZ_1000' is not a CONFIG_ option name"},
             {"CONFIG_=y", "'CONFIG_' is not a CONFIG_ option name"},
             {"CONFIG_A-B=y", "'CONFIG_A-B' is not a CONFIG_ option name"},
             {"# HZ is not set", "no such file"},
             {d + "missing.config", "missing.config: no such file"},
             {d, "is not a file"},
             {d + "empty.config", "is empty"},
             {d + "comments.config", "is empty"},
             {d + "binary.config", "is binary"},
             {d + "huge.config", "more than a fragment's 1048576"},
             {d + "typo.config", "typo.config:2: 'HZ' is not a CONFIG_ option name"},
             {"CONFIG_CMDLINE=\"a\nb\"", "CONFIG_CMDLINE's value has a line break"},
             {"CONFIG_CMDLINE=\"a", "no closing"},
             {"CONFIG_HZ=", "CONFIG_HZ has no value"},
             {"CONFIG_HZ=1000%" + d + "twice.config",
              "CONFIG_HZ is given twice with two values: 1000 (inline) and 100 (" + d +
                  "twice.config:1)"},
             {"CONFIG_A=y%", "an empty option after a '%'"},
         }) {
        INFO(items);
        const std::string why = refusal(items);
        CHECK_THAT(why, Catch::Contains(says));
        CHECK(why.starts_with("--kernel A=T@main%...: "));
        CHECK(why.find('\n') == std::string::npos);
    }
}

namespace {

// The process's folder set to `folder` while it lives.
class InFolder {
  public:
    explicit InFolder(const fs::path& folder) : before_(fs::current_path()) {
        fs::current_path(folder);
    }
    ~InFolder() { fs::current_path(before_); }
    InFolder(const InFolder&) = delete;
    InFolder& operator=(const InFolder&) = delete;

  private:
    fs::path before_;
};

}  // namespace

// A run's journal keeps its kernels' specs with every path absolute
// (absolute_kernel_spec, cmd_run.cpp), so that --resume from another folder
// reads the files the start read: the tree, the patch and each fragment.
TEST_CASE(
    "a kernel spec's fragment files are made absolute as its tree and patch are: read the same "
    "from another folder",
    "[kbuild][label-options]") {
    test::ScratchDir dir("label-options-absolute");
    const fs::path top = fs::absolute(dir.path()).lexically_normal();
    fs::create_directories(top / "tree");
    fs::create_directories(top / "elsewhere");
    write_file(top / "fix.patch", "x\n");
    write_file(top / "hz.config", "CONFIG_HZ_1000=y\n");
    write_file(top / "50%.config", "CONFIG_HZ_PERIODIC=y\n");  // a '%' in a name: "%%"
    // A file of the same name in the other folder, which must not be read.
    write_file(top / "elsewhere" / "hz.config", "CONFIG_HZ_250=y\n");
    std::string spec;
    {
        const InFolder here(top);
        spec = absolute_kernel_spec(
            "tree@v6.1+fix.patch%hz.config%CONFIG_PREEMPT=y%50%%.config%# CONFIG_X is not set");
    }
    const std::string t = top.string();
    CHECK(spec == t + "/tree@v6.1+" + t + "/fix.patch%" + t + "/hz.config%CONFIG_PREEMPT=y%" + t +
                      "/50%%.config%# CONFIG_X is not set");
    const InFolder there(top / "elsewhere");
    CHECK(absolute_kernel_spec(spec) == spec);  // taken on again: the same
    const LabelOptions o = read_label_options(spec.substr(spec.find('%') + 1), "h: ");
    CHECK(o.text() ==
          "CONFIG_HZ_1000=y\nCONFIG_PREEMPT=y\nCONFIG_HZ_PERIODIC=y\n# CONFIG_X is not set\n");
    REQUIRE(o.options.size() == 4);
    CHECK(o.options[0].from == t + "/hz.config:1");
}

// A bisection's state keeps its options as .config lines (its journal's bisection section,
// which others may write): read as a spec's are. fuzz_label_options found
// two values of one option passed through to the build.
TEST_CASE("a state's option lines: one option twice with two values refused, the same twice once",
          "[kbuild][label-options]") {
    CHECK_THROWS_WITH(label_options_of_lines({"CONFIG_X=1", "# CONFIG_X is not set"}, "state: "),
                      "state: CONFIG_X is given twice with two values: 1 (inline) and unset "
                      "(inline)");
    const LabelOptions once = label_options_of_lines({"CONFIG_X=1", "CONFIG_X=1"}, "state: ");
    CHECK(once.lines() == std::vector<std::string>{"CONFIG_X=1"});
    CHECK_THROWS_WITH(label_options_of_lines({"my.config"}, "state: "),
                      "state: 'my.config' is no option line");
}

TEST_CASE(
    "two labels of one commit: one config each, differing by exactly their options, the cache "
    "tells them apart and reuses them",
    "[kbuild][label-options]") {
    StandIn s;
    const fs::path config = s.scratch / "base.config";
    write_file(config, "CONFIG_BASE=y\nCONFIG_HZ=100\nCONFIG_PREEMPT_VOLUNTARY=y\n");
    const fs::path fragment = s.scratch / "hz1000.config";
    write_file(fragment, "# HZ=1000, nothing else\nCONFIG_HZ=1000\n");
    const std::string before = s.state();
    const std::vector<KernelSpec> specs = {
        {"hz100", s.tree.string() + "@main"},
        {"hz1000", s.tree.string() + "@main%" + fragment.string()}};
    const auto built = s.build(specs, config);
    REQUIRE(built[0]);
    REQUIRE(built[1]);
    const KernelBuild &a = built[0]->record, &b = built[1]->record;
    CHECK(a.commit == b.commit);
    CHECK(a.options.empty());
    CHECK(b.options == std::vector<std::string>{"CONFIG_HZ=1000"});
    CHECK(a.key != b.key);
    CHECK(a.image != b.image);
    CHECK(s.builds_count() == "2");
    // Exactly the fragment's difference, said and recorded.
    REQUIRE(b.config_changes.size() == 1);
    CHECK(change_text(b.config_changes[0]) == "CONFIG_HZ: 100 -> 1000");
    CHECK(config_changes_line(b) ==
          "hz1000's .config against hz100's: 1 option differs: CONFIG_HZ: 100 -> 1000");
    // Each image built from its own .config (its release says which).
    CHECK(built_release(*built[0]) == "6.1.0-standin-" + config_checksum(*built[0]));
    CHECK(built_release(*built[1]) == "6.1.0-standin-" + config_checksum(*built[1]));
    CHECK(built_release(*built[0]) != built_release(*built[1]));
    // What the merge replaced is in the log.
    CHECK_THAT(test::slurp(b.log), Catch::Contains("the label's value replaced the config's: "
                                                   "CONFIG_HZ: 100 -> 1000"));
    // A label with no options keeps the key it had before labels had any.
    CHECK(a.config_sha256 == choose_config(config, BuildTarget::guest).sha256());
    CHECK(s.state() == before);

    // Again: both from the cache, nothing built; the fragment's comments
    // are no input.
    write_file(fragment, "# another comment\nCONFIG_HZ=1000\n\n");
    const auto again = s.build(specs, config);
    CHECK(again[0]->record.cache_hit);
    CHECK(again[1]->record.cache_hit);
    CHECK(again[1]->image == built[1]->image);
    CHECK(again[1]->record.config_changes.size() == 1);
    CHECK(s.builds_count() == "2");
    // Another value is another key: built, inline as well as from a file.
    const auto other = s.build({{"hz300", s.tree.string() + "@main%CONFIG_HZ=300"}}, config);
    CHECK_FALSE(other[0]->record.cache_hit);
    CHECK(s.builds_count() == "3");
}

TEST_CASE(
    "contest run --boot: the same words build each label's own release, installed side by side",
    "[kbuild][label-options]") {
    StandIn s;
    const fs::path config = s.scratch / "running.config";
    write_file(config, "CONFIG_BASE=y\nCONFIG_HZ=250\n");
    BuildSettings settings = s.settings();
    settings.config_file = config;
    settings.target = BuildTarget::boot;
    settings.option = "--boot";
    settings.install_root = s.scratch / "root";
    settings.make_initramfs = false;
    Progress quiet(Progress::Mode::kQuiet);
    auto built = build_kernel_refs({{"hz100", s.tree.string() + "@main%CONFIG_HZ=100"},
                                    {"hz1000", s.tree.string() + "@main%CONFIG_HZ=1000"}},
                                   settings, quiet);
    // Installed as the --boot start does, once every label built.
    CHECK(install_for_boot(built, settings, quiet).size() == 2);
    REQUIRE(built[0]);
    REQUIRE(built[1]);
    const KernelBuild &a = built[0]->record, &b = built[1]->record;
    CHECK(a.localversion != b.localversion);
    CHECK(a.release != b.release);
    CHECK(built[0]->image != built[1]->image);
    CHECK(config_changes_line(b) ==
          "hz1000's .config against hz100's: 1 option differs: CONFIG_HZ: 100 -> 1000");
    for (const KernelBuild* k : {&a, &b})
        CHECK(fs::is_regular_file(s.scratch / "root/lib/modules" / k->release / ".contest-made"));
}

TEST_CASE("an option olddefconfig drops is refused, naming it, before the image is built",
          "[kbuild][label-options]") {
    StandIn s;
    try {
        s.build({{"base", s.tree.string() + "@main%CONFIG_BASE=y"},
                 {"rt", s.tree.string() + "@main%CONFIG_PREEMPT_RT=y%CONFIG_HZ=1000"}});
        FAIL("no error");
    } catch (const StepFailed& e) {  // exit 1
        const std::string what = e.what();
        CHECK_THAT(what, Catch::Contains("--kernel rt="));
        CHECK_THAT(what, Catch::Contains("did not keep the label's option CONFIG_PREEMPT_RT=y "
                                         "(now unset)"));
        // Only the option it dropped (CONFIG_HZ=1000 was kept).
        CHECK(what.substr(what.find("did not keep")).find("CONFIG_HZ") == std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
    CHECK(s.builds_count() == "1");  // base's; rt's image never built
    // Nothing of rt's in the cache: the same spec is refused again.
    CHECK_THROWS_AS(s.build({{"rt", s.tree.string() + "@main%CONFIG_PREEMPT_RT=y"}}), StepFailed);
    CHECK(s.builds_count() == "1");
}

TEST_CASE("a bad label option is refused before anything is built", "[kbuild][label-options]") {
    StandIn s;
    const std::string tree = s.tree.string();
    for (const auto& [spec, says] : std::vector<std::pair<std::string, std::string>>{
             {tree + "@main%HZ=1000", "'HZ' is not a CONFIG_ option name"},
             {tree + "@main%" + (s.scratch / "nothing.config").string(), "no such file"},
             {tree + "@main%CONFIG_HZ=100%CONFIG_HZ=1000", "given twice with two values"},
         }) {
        INFO(spec);
        try {
            // A good label first: every spec is read before the first build.
            s.build({{"good", tree + "@main"}, {"bad", spec}});
            FAIL("no error");
        } catch (const UsageError& e) {  // exit 2
            CHECK_THAT(e.what(), Catch::Contains("--kernel bad=" + tree + "@main%"));
            CHECK_THAT(e.what(), Catch::Contains(says));
        }
    }
    CHECK_FALSE(fs::exists(s.scratch / "work/kbuild/trees/linux"));
    CHECK(s.builds_count() == "0");
}

namespace {

// The kernel's own kconfig tool, scripts/kconfig/conf, built once from
// linux-source's tarball into the build folder (about 30 s the first time,
// most of it reading the tarball); nullopt when no tarball is installed.
std::optional<fs::path> kernel_conf_tool() {
    const fs::path conf = test::vm_test_workdir().parent_path() / "kconfig-tool/conf";
    if (fs::is_regular_file(conf)) return conf;
    const std::string tarball = test::shell_output("ls /usr/src/linux-source-*.tar.* | tail -1");
    if (tarball.empty()) return std::nullopt;
    const fs::path work = conf.parent_path() / ("build-" + std::to_string(::getpid()));
    fs::remove_all(work);
    fs::create_directories(work);
    const std::string top = test::shell_output("tar -tf '" + tarball + "' | head -1 | cut -d/ -f1");
    test::shell_output("cd '" + work.string() + "' && tar -xf '" + tarball + "' --wildcards '" +
                       top + "/scripts/kconfig/*' && cd " + top +
                       "/scripts/kconfig && flex -o lexer.lex.c -L lexer.l && bison -o "
                       "parser.tab.c --defines=parser.tab.h -t -l parser.y && gcc -O1 -w -I. -o "
                       "conf conf.c confdata.c expr.c lexer.lex.c menu.c parser.tab.c "
                       "preprocess.c symbol.c util.c 2>&1");
    const fs::path made = work / top / "scripts/kconfig/conf";
    if (!fs::is_regular_file(made)) return std::nullopt;
    fs::rename(made, conf);
    fs::remove_all(work);
    return conf;
}

// A small Kconfig tree as the kernel's are: two choices (the preemption
// model, the timer frequency), HZ following the choice, an option whose
// dependency is not met (PREEMPT_RT), an int with a range.
const char* const kTinyKconfig = R"KCONFIG(mainmenu "contest's tiny tree"
config EXPERT
	bool "Configure standard kernel features (expert users)"
config ARCH_SUPPORTS_RT
	bool
choice
	prompt "Preemption Model"
	default PREEMPT_VOLUNTARY
config PREEMPT_VOLUNTARY
	bool "Voluntary Kernel Preemption (Desktop)"
config PREEMPT
	bool "Preemptible Kernel (Low-Latency Desktop)"
config PREEMPT_RT
	bool "Fully Preemptible Kernel (Real-Time)"
	depends on EXPERT && ARCH_SUPPORTS_RT
endchoice
choice
	prompt "Timer frequency"
	default HZ_250
config HZ_100
	bool "100 HZ"
config HZ_250
	bool "250 HZ"
config HZ_1000
	bool "1000 HZ"
endchoice
config HZ
	int
	default 100 if HZ_100
	default 250 if HZ_250
	default 1000 if HZ_1000
config LOG_BUF_SHIFT
	int "Kernel log buffer size"
	range 12 25
	default 17
)KCONFIG";

}  // namespace

TEST_CASE(
    "label options through the kernel's own kconfig: merged, olddefconfig, the choice and HZ "
    "follow, a dependency not met or a value out of range refused",
    "[kbuild][label-options]") {
    const auto conf = kernel_conf_tool();
    if (!conf) CONTEST_SKIP("no /usr/src/linux-source-*.tar.* (make deps-kernel)");
    StandIn s;
    write_file(s.tree / "Kconfig", kTinyKconfig);
    // Its olddefconfig is the kernel's: `conf --olddefconfig Kconfig`, as
    // scripts/kconfig/Makefile runs it.
    write_file(s.tree / "Makefile",
               std::string("O ?= .\nolddefconfig:\n\tmkdir -p $(O) && touch $(O)/.config\n\t"
                           "KCONFIG_CONFIG=$(O)/.config ") +
                   conf->string() +
                   " --olddefconfig Kconfig\nbzImage:\n\tmkdir -p "
                   "$(O)/arch/x86/boot && cp image.bin "
                   "$(O)/arch/x86/boot/bzImage\n\techo built >> $(O)/builds\n");
    sh(s.tree, "git add -A && git -c user.name=t -c user.email=t@t commit -qm kconfig");
    const fs::path config = s.scratch / "base.config";
    write_file(config, "CONFIG_EXPERT=y\nCONFIG_HZ_250=y\n");
    const std::string tree = s.tree.string();
    const auto built = s.build({{"hz100", tree + "@main%CONFIG_HZ_100=y"},
                                {"hz1000", tree + "@main%CONFIG_HZ_1000=y"},
                                {"full", tree + "@main%CONFIG_HZ_100=y%CONFIG_PREEMPT=y"}},
                               config);
    REQUIRE(built[1]);
    const std::string dot = test::slurp(fs::path(built[1]->record.image) / ".config");
    CHECK_THAT(dot, Catch::Contains("\nCONFIG_HZ=1000\n"));
    CHECK_THAT(dot, Catch::Contains("# CONFIG_HZ_250 is not set"));
    CHECK(config_changes_line(built[1]->record) ==
          "hz1000's .config against hz100's: 3 options differ: CONFIG_HZ: 100 -> 1000, "
          "CONFIG_HZ_100: y -> unset, CONFIG_HZ_1000: unset -> y");
    CHECK(config_changes_line(built[2]->record) ==
          "full's .config against hz100's: 2 options differ: CONFIG_PREEMPT: unset -> y, "
          "CONFIG_PREEMPT_VOLUNTARY: y -> unset");
    const auto refused = [&](const std::string& options) {
        try {
            s.build({{"x", tree + "@main" + options}}, config);
        } catch (const StepFailed& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK_THAT(refused("%CONFIG_PREEMPT_RT=y"),
               Catch::Contains("option CONFIG_PREEMPT_RT=y (now unset)"));
    CHECK_THAT(refused("%CONFIG_LOG_BUF_SHIFT=40"),
               Catch::Contains("option CONFIG_LOG_BUF_SHIFT=40 (now 17)"));
    CHECK(s.builds_count() == "3");
}
