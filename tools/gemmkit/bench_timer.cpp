#include "bench_timer.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/check.hpp"
#include "l2_flush.hpp"
#include "nvtx_range.hpp"

namespace gemmkit::cli {

L2Flusher::L2Flusher(const analysis::DeviceInfo& dev, bool by_reading)
    : buffer_(2 * std::max<size_t>(static_cast<size_t>(dev.l2_bytes), 1 << 20)),
      by_reading_(by_reading),
      sm_count_(dev.sm_count) {
    // Each flush by writing sets the buffer itself; the reads expect zeros.
    if (by_reading_) CUDA_CHECK(cudaMemset(buffer_.data(), 0, buffer_.size()));
}

void L2Flusher::flush(cudaStream_t stream) {
    if (by_reading_)
        CUDA_CHECK(read_buffer_through_l2(buffer_.data(), buffer_.size() / 16 * 16, sink_.data(), sm_count_, stream));
    else
        CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, buffer_.size(), stream));
}

Timing summarize(std::vector<double> samples_ms) {
    Timing t;
    t.samples = static_cast<int>(samples_ms.size());
    if (samples_ms.empty()) return t;
    std::sort(samples_ms.begin(), samples_ms.end());
    const size_t n = samples_ms.size();
    t.min_ms = samples_ms.front();
    t.max_ms = samples_ms.back();
    t.median_ms = n % 2 == 1 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
    return t;
}

std::vector<Timing> time_interleaved(const std::vector<Contender>& contenders, const TimingPlan& plan,
                                     L2Flusher& flusher, cudaStream_t stream) {
    const size_t count = contenders.size();
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    auto call = [&](size_t which) {
        const NvtxRange range(contenders[which].name);
        if (!contenders[which].run()) throw std::runtime_error(contenders[which].name + ": a timed call failed");
    };
    std::vector<std::vector<Sample>> calls(count);
    try {
        for (int w = 0; w < plan.warmup; ++w)
            for (size_t c = 0; c < count; ++c) call(c);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        double spent_ms = 0;
        for (int round = 0; round < plan.iters; ++round) {
            for (size_t slot = 0; slot < count; ++slot) {
                // Odd rounds run the contenders in reverse: A B, B A, A B, ...
                const size_t c = round % 2 == 0 ? slot : count - 1 - slot;
                flusher.flush(stream);
                CUDA_CHECK(cudaEventRecord(start, stream));
                call(c);
                CUDA_CHECK(cudaEventRecord(stop, stream));
                CUDA_CHECK(cudaEventSynchronize(stop));
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
                calls[c].push_back({static_cast<int>(round * count + slot), ms});
                spent_ms += ms;
            }
            if (round + 1 >= 3 && spent_ms > plan.max_seconds * 1e3) break;
        }
    } catch (...) {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        throw;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::vector<Timing> out;
    for (auto& c : calls) {
        std::vector<double> ms;
        for (const Sample& s : c) ms.push_back(s.ms);
        out.push_back(summarize(std::move(ms)));
        out.back().calls = std::move(c);
    }
    return out;
}

}  // namespace gemmkit::cli
