// A timeline of one call, for finding out where an overlap loses time: with the environment
// variable GEMMKIT_DIST_TRACE set, the copy-engine schedules record an event pair around each
// GEMM and transfer, wait for the call to finish, and print each span in microseconds from the
// call's start to stderr, one line a rank. Off (the default), it records nothing.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace gemmkit::dist {

class Trace {
public:
    Trace(int rank, cudaStream_t origin_stream);
    ~Trace();
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;
    // Marks the start and the end of a span named `name` on `stream`.
    void begin(cudaStream_t stream, std::string name);
    void end(cudaStream_t stream);
    // Waits for every span and prints them (nothing when off).
    void print();

private:
    struct Span {
        std::string name;
        cudaEvent_t start = nullptr, stop = nullptr;
    };
    bool on_ = false;
    int rank_ = 0;
    cudaEvent_t origin_ = nullptr;
    std::vector<Span> spans_;
};

}  // namespace gemmkit::dist
