#include "dist/trace.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace gemmkit::dist {

Trace::Trace(int rank, cudaStream_t origin_stream) : rank_(rank) {
    const char* env = std::getenv("GEMMKIT_DIST_TRACE");
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    // Never inside a graph capture: print() waits for the work, which capture does not run.
    on_ = env != nullptr && *env != '\0' && *env != '0' &&
          cudaStreamIsCapturing(origin_stream, &capture) == cudaSuccess && capture == cudaStreamCaptureStatusNone;
    if (on_ && (cudaEventCreate(&origin_) != cudaSuccess || cudaEventRecord(origin_, origin_stream) != cudaSuccess))
        on_ = false;
    cudaGetLastError();
}

Trace::~Trace() {
    for (Span& s : spans_) {
        if (s.start != nullptr) cudaEventDestroy(s.start);
        if (s.stop != nullptr) cudaEventDestroy(s.stop);
    }
    if (origin_ != nullptr) cudaEventDestroy(origin_);
}

void Trace::begin(cudaStream_t stream, std::string name) {
    if (!on_) return;
    Span s{std::move(name)};
    if (cudaEventCreate(&s.start) == cudaSuccess) cudaEventRecord(s.start, stream);
    spans_.push_back(std::move(s));
}

void Trace::end(cudaStream_t stream) {
    if (!on_ || spans_.empty()) return;
    Span& s = spans_.back();
    if (cudaEventCreate(&s.stop) == cudaSuccess) cudaEventRecord(s.stop, stream);
}

void Trace::print() {
    if (!on_) return;
    std::string line = "gemmkit_dist trace, rank " + std::to_string(rank_) + " (us):";
    for (const Span& s : spans_) {
        float from = 0, to = 0;
        if (s.stop == nullptr || cudaEventSynchronize(s.stop) != cudaSuccess ||
            cudaEventElapsedTime(&from, origin_, s.start) != cudaSuccess ||
            cudaEventElapsedTime(&to, origin_, s.stop) != cudaSuccess)
            continue;
        char buf[160];
        std::snprintf(buf, sizeof buf, " %s %.0f-%.0f;", s.name.c_str(), 1e3 * from, 1e3 * to);
        line += buf;
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    cudaGetLastError();
}

}  // namespace gemmkit::dist
