// Seeded random matrices on the device, the poison that marks unwritten output, and the
// widening to double that the FP64 references start from. Every gemmkit_dtype is served.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.h"
#include "verify/dtypes.hpp"

namespace gemmkit::verify {

// x[i] = uniform in [-1, 1) rounded to x's type, a pure function of (seed, i): the same on
// every run and device. d_x points to `count` elements of `type`.
void fill_uniform(void* d_x, gemmkit_dtype type, int64_t count, uint64_t seed, cudaStream_t stream);
void fill_uniform(float* d_x, int64_t count, uint64_t seed, cudaStream_t stream);
void fill_uniform(double* d_x, int64_t count, uint64_t seed, cudaStream_t stream);

// x[i] = quiet NaN: any element a kernel fails to write stays NaN and fails the comparison.
void fill_nan(void* d_x, gemmkit_dtype type, int64_t count, cudaStream_t stream);
void fill_nan(float* d_x, int64_t count, cudaStream_t stream);
void fill_nan(double* d_x, int64_t count, cudaStream_t stream);

// Host twin of fill_uniform before rounding (same values), for tests of the generator itself.
double uniform_value(uint64_t seed, int64_t index);

// How a value is widened: cut to TF32 first (FP32 sources only; what tensor cores do to A and B
// under GEMMKIT_COMPUTE_32F_FAST_TF32, rounded or truncated by kernel), and/or its magnitude
// (the error scale).
struct Widening {
    Tf32Inputs tf32 = Tf32Inputs::exact;
    bool magnitude = false;
};

// dst[i] = double(src[i]) on the device, exact for every type; src holds `count` elements of `type`.
void widen(const void* d_src, gemmkit_dtype type, double* d_dst, int64_t count, Widening how, cudaStream_t stream);

// The same on the host: `count` elements of `type` at d_src (device memory), as doubles.
// Synchronous (cudaMemcpy); the caller orders it after the work that wrote d_src.
std::vector<double> widen_to_host(const void* d_src, gemmkit_dtype type, int64_t count, Tf32Inputs tf32);

}  // namespace gemmkit::verify
