// Timing for the bench: CUDA events around each call, an L2 flush before each call, and
// contenders interleaved (A B B A A B ...) so drift in clocks or temperature hits both alike.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "analysis/device_info.hpp"
#include "gemmkit/gemmkit.hpp"

namespace gemmkit::cli {

// One timed call: its place in the interleaved sequence of all contenders' calls (0, 1, ...;
// the warm-up calls not counted) and its time.
struct Sample {
    int call = 0;
    double ms = 0;
};

struct Timing {
    double min_ms = 0, median_ms = 0, max_ms = 0;
    int samples = 0;
    std::vector<Sample> calls;  // in call order (time_interleaved fills it; summarize does not)
};

// Evicts the L2 before a timed call: by writing a buffer twice its size (a memset), or by
// reading one. Written, the L2 is left full of dirty lines, whose write-back the next call pays
// for as it evicts them: on the H100 ~9 us more for FP64 4096 x 16 x 4096 (one pass over 134 MB of
// A), nothing measurable for calls that are not bound by DRAM. Read, it holds only clean lines.
class L2Flusher {
public:
    L2Flusher(const analysis::DeviceInfo& dev, bool by_reading);  // its L2 size and SM count
    void flush(cudaStream_t stream);
    const char* how() const { return by_reading_ ? "read" : "written"; }

private:
    DeviceBuffer<char> buffer_;
    DeviceBuffer<unsigned> sink_{1};
    bool by_reading_;
    int sm_count_;
};

struct TimingPlan {
    int warmup = 3;             // untimed calls of each contender first
    int iters = 20;             // timed calls of each contender
    double max_seconds = 3.0;   // stop early (after at least 3 rounds) once this much GPU time is spent
};

// One thing to time: its name (the NVTX range around each of its calls, so Nsight Systems
// timelines are readable) and the call, which returns false if it failed.
struct Contender {
    std::string name;
    std::function<bool()> run;
};

// Times each contender `plan.iters` times, interleaved, each call preceded by an L2 flush.
// A failed call stops timing with std::runtime_error.
std::vector<Timing> time_interleaved(const std::vector<Contender>& contenders, const TimingPlan& plan,
                                     L2Flusher& flusher, cudaStream_t stream);

// min / median / max of a list of samples (median of an even count: mean of the middle two).
Timing summarize(std::vector<double> samples_ms);

}  // namespace gemmkit::cli
