// Verifying the bandwidth ops on the device: fresh seeded inputs, one call, the output read back
// at check_runs' elements and compared bit for bit with the CPU (reference.hpp). CUDA errors throw
// std::runtime_error (common/check.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "bandwidth/bandwidth.hpp"
#include "bandwidth/reference.hpp"

namespace gemmkit::bandwidth {

// Fills x[0, n) with seeded uniform values (seed 2 x seed) and y[0, n) with seeded values for
// SAXPY (seed 2 x seed + 1) or NaN for the copies (an element the copy misses stays NaN), runs
// `op` once (a = kSaxpyAlpha, at most max_blocks blocks) and compares y with the reference.
CheckResult verify_op(Op op, int64_t n, float* x, float* y, int max_blocks, uint64_t seed, cudaStream_t stream);

// Every op on odd lengths (1, 3, 5, 1023, 262147: float4 tails of 1 to 3 floats) and with x and/or
// y one float off 16-byte alignment (the scalar loop), which the MiB-sized table never reaches.
// Returns one line per failing case; empty when all pass. *cases (optional) counts the cases run.
std::vector<std::string> verify_edge_cases(uint64_t seed, cudaStream_t stream, int* cases = nullptr);

}  // namespace gemmkit::bandwidth
