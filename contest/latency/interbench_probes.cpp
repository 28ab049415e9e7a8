// audio and video: interbench's interactive loads, a period's work to get
// done by its deadline; what a late one costs is a dropout or a dropped frame.
#include "contest/latency/probe_table.h"

namespace contest::latency {

namespace {

// interbench: a 50 ms buffer, 5% of a CPU to fill it.
void configure_audio(ProbeOptions& o, const ProbeSettings&) {
    o.period_ns = 50'000'000;
    o.cpu_share = 0.05;
}

// interbench: 60 frames a second, 40% of a CPU to draw them.
void configure_video(ProbeOptions& o, const ProbeSettings&) {
    o.period_ns = 16'700'000;
    o.cpu_share = 0.40;
}

}  // namespace

extern const ProbeInfo kAudioProbe{
    .name = "audio",
    .help =
        "interbench's audio: 5% of a CPU of work every 50 ms, missed when it is not done "
        "in time (a dropout)",
    .configure = configure_audio,
};

extern const ProbeInfo kVideoProbe{
    .name = "video",
    .help =
        "interbench's video: 40% of a CPU of work every 16.7 ms, missed when it is not "
        "done in time (a dropped frame)",
    .configure = configure_video,
};

}  // namespace contest::latency
