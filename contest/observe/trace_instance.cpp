#include "contest/observe/trace_instance.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <thread>

#include "contest/sys/process.h"
#include "contest/sys/text_file.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

constexpr const char* kInstancePrefix = "contest-";

std::string errno_text(int error) {
    return std::strerror(error);
}

// Writes value to a file of the instance, as `echo value > file` does; the
// error's text, "" when it went.
std::string write_setting(const std::string& file, const std::string& value) {
    const UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
    if (fd.get() < 0) return file + ": " + errno_text(errno);
    if (!write_all(fd.get(), value + "\n")) return file + ": " + errno_text(errno);
    return "";
}

bool is_directory(const std::string& path, int& error) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        error = errno;
        return false;
    }
    error = 0;
    return S_ISDIR(st.st_mode);
}

// rmdir of an instance; tracefs refuses (EBUSY) while a reader holds one of
// its files open, so it is tried for a while.
bool remove_instance_folder(const std::string& path) {
    for (int attempt = 0; attempt < 50; ++attempt) {
        if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return true;
        if (errno != EBUSY) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

// The inode of pid's pid namespace ("4026531836" of "pid:[4026531836]"),
// "" when it cannot be read.
std::string pid_namespace_of(pid_t pid) {
    std::error_code ec;
    const std::string link =
        std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/ns/pid", ec).string();
    const auto open = link.find('['), close = link.rfind(']');
    if (ec || open == std::string::npos || close == std::string::npos || close <= open + 1)
        return "";
    return link.substr(open + 1, close - open - 1);
}

// What an instance's name says of the contest that made it.
struct InstanceOwner {
    pid_t pid = 0;
    unsigned long long start_time = 0;
    std::string pid_namespace;
};

// "contest-<pid>-<start time>-<pid namespace>": nullopt for any other name
// (one of an older contest, "contest-<pid>", says too little to be proven stale).
std::optional<InstanceOwner> owner_of(std::string_view name) {
    if (!name.starts_with(kInstancePrefix)) return std::nullopt;
    name.remove_prefix(std::string_view(kInstancePrefix).size());
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
        const auto dash = name.find('-', at);
        parts.push_back(name.substr(at, dash == std::string_view::npos ? dash : dash - at));
        if (dash == std::string_view::npos) break;
        at = dash + 1;
    }
    InstanceOwner owner;
    if (parts.size() != 3 || parts[2].empty()) return std::nullopt;
    const auto number = [](std::string_view text, auto& value) {
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        return ec == std::errc() && end == text.data() + text.size() && value > 0;
    };
    if (!number(parts[0], owner.pid) || !number(parts[1], owner.start_time)) return std::nullopt;
    owner.pid_namespace = std::string(parts[2]);
    return owner;
}

std::string no_tracefs(const std::string& root) {
    return "no tracefs at " + root + " (as root: mount -t tracefs nodev " + kTracefsRoot + ")";
}

}  // namespace

const std::vector<std::string>& flight_recorder_events() {
    static const std::vector<std::string> events{
        "sched:sched_waking",
        "sched:sched_wakeup",
        "sched:sched_switch",
        "irq:irq_handler_entry",
        "irq:irq_handler_exit",
        "irq:softirq_entry",
        "irq:softirq_exit",
        "irq_vectors:local_timer_entry",
        "irq_vectors:local_timer_exit",
        "irq_vectors:reschedule_entry",
        "irq_vectors:reschedule_exit",
        "timer:hrtimer_expire_entry",
        "sched:sched_process_fork",
        // Where a woken probe moved before it ran (the late time is that
        // CPU's, not the one it woke on).
        "sched:sched_migrate_task",
    };
    return events;
}

std::string cpu_mask_text(const std::vector<int>& cpus) {
    std::vector<std::uint32_t> words;
    for (int cpu : cpus) {
        if (cpu < 0) continue;
        const auto word = static_cast<std::size_t>(cpu / 32);
        if (words.size() <= word) words.resize(word + 1, 0);
        words[word] |= std::uint32_t{1} << (cpu % 32);
    }
    if (words.empty()) return "0";
    std::string text;
    char buffer[16];
    for (auto w = words.size(); w-- > 0;) {
        std::snprintf(buffer, sizeof buffer, w + 1 == words.size() ? "%x" : ",%08x", words[w]);
        text += buffer;
    }
    return text;
}

std::unique_ptr<TraceInstance> TraceInstance::make(const TraceInstanceOptions& options,
                                                   std::string& why) {
    const std::string instances = options.tracefs_root + "/instances";
    int error = 0;
    if (!is_directory(instances, error)) {
        why = error == EACCES || error == EPERM
                  ? "no permission to read " + options.tracefs_root + " (tracefs needs root)"
                  : no_tracefs(options.tracefs_root);
        return nullptr;
    }
    const std::string path = instances + "/" + trace_instance_name(::getpid());
    if (::mkdir(path.c_str(), 0700) != 0) {
        const int e = errno;
        why = e == EACCES || e == EPERM
                  ? "no permission to make a tracing instance under " + instances +
                        " (tracefs needs root)"
                  : "cannot make the tracing instance " + path + ": " + errno_text(e);
        return nullptr;
    }
    std::unique_ptr<TraceInstance> instance(new TraceInstance(path));
    if (!instance->configure(options, why)) return nullptr;  // its destructor removes it
    return instance;
}

bool TraceInstance::configure(const TraceInstanceOptions& options, std::string& why) {
    // A new instance records from the start: off until start().
    std::string error = write_setting(path_ + "/tracing_on", "0");
    if (error.empty())
        error = write_setting(path_ + "/buffer_size_kb", std::to_string(options.buffer_size_kb));
    if (error.empty()) error = write_setting(path_ + "/options/overwrite", "1");
    if (error.empty()) error = write_setting(path_ + "/trace_clock", "mono");
    if (error.empty() && !options.cpus.empty()) {
        cpumask_ = cpu_mask_text(options.cpus);
        error = write_setting(path_ + "/tracing_cpumask", cpumask_);
    }
    for (const auto& event : flight_recorder_events()) {
        if (!error.empty()) break;
        const auto colon = event.find(':');
        const std::string enable =
            path_ + "/events/" + event.substr(0, colon) + "/" + event.substr(colon + 1) + "/enable";
        if (::access(enable.c_str(), F_OK) != 0)
            missing_events_.push_back(event);
        else
            error = write_setting(enable, "1");
    }
    if (!error.empty()) {
        why = "cannot set up the tracing instance: " + error;
        return false;
    }
    const auto size = read_first_line(path_ + "/buffer_size_kb");
    // "7 (expanded: 1408)" before the buffer is first used; a number once set.
    buffer_size_kb_ = size ? std::strtoull(size->c_str(), nullptr, 10) : 0;
    if (cpumask_.empty()) cpumask_ = read_first_line(path_ + "/tracing_cpumask").value_or("");
    return true;
}

TraceInstance::~TraceInstance() {
    close();
}

bool TraceInstance::start(std::string* why) {
    const std::string error = open_ ? write_setting(path_ + "/tracing_on", "1") : "closed";
    if (why) *why = error;
    return error.empty();
}

bool TraceInstance::stop(std::string* why) {
    const std::string error = open_ ? write_setting(path_ + "/tracing_on", "0") : "closed";
    if (why) *why = error;
    return error.empty();
}

TraceText TraceInstance::read(std::size_t max_mib) const {
    return read_trace_tail(path_ + "/trace", max_mib << 20);
}

TraceText read_trace_tail(const std::string& file, std::size_t limit) {
    TraceText out;
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (fd.get() < 0) {
        out.why = file + ": " + errno_text(errno);
        return out;
    }
    // tracefs reports a size of 0 and cannot seek: read to the end, keeping
    // the last `limit` bytes (the front cut at twice that, so that each
    // byte is moved once at most on average).
    const auto keep_tail = [&](std::size_t keep) {
        if (out.text.size() <= keep) return;
        out.text.erase(0, out.text.size() - keep);
        out.truncated = true;
    };
    std::string chunk(64 * 1024, '\0');
    for (;;) {
        const ssize_t n = ::read(fd.get(), chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out.why = file + ": " + errno_text(errno);
            return out;
        }
        if (n == 0) break;
        out.text.append(chunk.data(), static_cast<std::size_t>(n));
        if (out.text.size() > 2 * limit) keep_tail(limit);
    }
    keep_tail(limit);
    // The cut left part of a line at the front: from the next whole one.
    if (out.truncated) out.text.erase(0, std::min(out.text.size(), out.text.find('\n') + 1));
    return out;
}

void TraceInstance::close() noexcept {
    if (!open_) return;
    open_ = false;
    try {
        write_setting(path_ + "/events/enable", "0");
        write_setting(path_ + "/tracing_on", "0");
        remove_instance_folder(path_);
    } catch (...) {
        // Out of memory for a path: the folder stays for remove_stale_instances.
    }
}

std::string trace_instance_name(pid_t pid) {
    return kInstancePrefix + std::to_string(pid) + "-" + std::to_string(process_start_time(pid)) +
           "-" + pid_namespace_of(pid);
}

std::vector<std::string> remove_stale_instances(const std::string& tracefs_root) {
    std::vector<std::string> removed;
    const std::string own_namespace = pid_namespace_of(::getpid());
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(tracefs_root + "/instances", ec)) {
        const std::string name = e.path().filename().string();
        // Stale when proven so: made in this pid namespace (another's pids
        // are not this one's) by a process that is not there now.
        const auto owner = owner_of(name);
        if (!owner || own_namespace.empty() || owner->pid_namespace != own_namespace ||
            !e.is_directory(ec) || !contest_gone(owner->pid, owner->start_time))
            continue;
        if (remove_instance_folder(e.path().string()))
            removed.push_back(e.path().string() + " (tracing instance of contest pid " +
                              std::to_string(owner->pid) + ", which is gone)");
    }
    return removed;
}

void mount_tracefs_if_absent(const std::string& tracefs_root) {
    std::error_code ec;
    if (tracefs_root != kTracefsRoot ||
        std::filesystem::exists(std::filesystem::path(tracefs_root) / "instances", ec))
        return;
    ::mount("nodev", tracefs_root.c_str(), "tracefs", 0, nullptr);
}

}  // namespace contest
