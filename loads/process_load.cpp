// process_load: contest's ring. N processes (4 x CPUs by default), each
// reading records from its pipe and writing them to the next one's; a few
// records injected at the start circulate for ever. Every forward is a hop;
// hops/s is how much scheduling the ring got. Most members sleep in read()
// at any moment, so this loads the scheduler's wakeup paths, not the CPUs.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/spawn.h"
#include "loads/load_files.h"
#include "loads/registry.h"

namespace contest {
namespace {

// Hops are added in small batches: one shared cache line bounced between
// every member on every hop would become the load itself.
constexpr std::uint64_t kHopBatch = 16;

constexpr LoadOption kRingProcesses{
    .name = "ring-processes",
    .value_name = "N",
    .help = "processes in the ring (default: 4 x online CPUs)",
    .kind = LoadOptionKind::number,
    .min = 1,
    .max = 16384,  // beyond that a fork storm, not a load
    .whole = true,
};
constexpr LoadOption kRingRecords{
    .name = "ring-records",
    .value_name = "N",
    .help = "records injected into the ring",
    .default_value = "2",
    .kind = LoadOptionKind::number,
    .min = 1,
    .max = 16384,
    .whole = true,
};
constexpr LoadOption kRecordBytes{
    .name = "record-bytes",
    .value_name = "B",
    .help = "bytes per record",
    .default_value = "8192",
    .kind = LoadOptionKind::number,
    .min = 1,
    .max = 1 << 20,
    .whole = true,
};
constexpr const LoadOption* kProcessLoadOptions[] = {&kRingProcesses, &kRingRecords, &kRecordBytes};

bool read_full(int fd, char* buf, std::size_t n) {
    while (n > 0) {
        ssize_t r = ::read(fd, buf, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        buf += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

class ProcessLoad final : public Load {
  public:
    ProcessLoad(unsigned processes, unsigned records, std::size_t record_bytes)
        : processes_(processes), records_(records), record_bytes_(record_bytes) {}

    void prepare() override {
        if (processes_ < 2) throw UsageError("process_load needs a ring of 2 or more processes");
        if (records_ < 1 || records_ > processes_)
            throw UsageError("process_load: --ring-records must be from 1 to the ring size");
    }

    void run(LoadCounters& counters) override {
        // pipes[i] feeds member i.
        std::vector<UniqueFd> rd(processes_), wr(processes_);
        for (unsigned i = 0; i < processes_; ++i) {
            int p[2];
            if (::pipe2(p, O_CLOEXEC) != 0) {
                counters.fail(std::string("pipe: ") + std::strerror(errno));
                return;
            }
            rd[i].reset(p[0]);
            wr[i].reset(p[1]);
        }
        auto member = [&](unsigned i) {
            // Keep only this member's two ends, so a dead neighbour is seen as EOF/EPIPE.
            for (unsigned k = 0; k < processes_; ++k) {
                if (k != i) rd[k].reset();
                if (k != (i + 1) % processes_) wr[k].reset();
            }
            forward(counters, rd[i].get(), wr[(i + 1) % processes_].get());
        };
        for (unsigned i = 1; i < processes_; ++i)
            fork_function(
                [&, i] {
                    member(i);
                    return 0;
                },
                ChildTies::in_callers_group());
        std::vector<char> record(record_bytes_, 'r');
        for (unsigned r = 0; r < records_; ++r) {
            if (write_all(wr[0].get(), record.data(), record.size()) != record.size()) {
                counters.fail("cannot inject a record into the ring");
                return;
            }
        }
        member(0);
        counters.fail("the ring broke (a member died)");
    }

    nlohmann::json facts() const override {
        return {{"processes", processes_}, {"records", records_}, {"record_bytes", record_bytes_}};
    }

  private:
    void forward(LoadCounters& counters, int in, int out) {
        std::vector<char> buf(record_bytes_);
        std::uint64_t pending = 0;
        while (read_full(in, buf.data(), buf.size()) &&
               write_all(out, buf.data(), buf.size()) == buf.size()) {
            if (++pending == kHopBatch) {
                counters.units.fetch_add(pending, std::memory_order_relaxed);
                pending = 0;
            }
        }
    }

    unsigned processes_;
    unsigned records_;
    std::size_t record_bytes_;
};

std::unique_ptr<Load> make_process_load(const LoadEnv& env) {
    const LoadOptions& o = env.options;
    auto processes = static_cast<unsigned>(o.number(kRingProcesses).value_or(0));
    if (processes == 0) processes = contest_parallelism(env.cpus);
    auto records = static_cast<unsigned>(*o.number(kRingRecords));
    auto record_bytes = static_cast<std::size_t>(*o.number(kRecordBytes));
    return std::make_unique<ProcessLoad>(processes, records, record_bytes);
}

}  // namespace

extern const LoadInfo kProcessLoad{
    .name = "process_load",
    .help = "4 x CPUs processes in a ring of pipes passing a few 8 KiB records round",
    .unit = "ring hops",
    .classes = LoadClass::scheduler,
    .options = kProcessLoadOptions,
    .make = make_process_load,
};

}  // namespace contest
