// Seeded random matrices on the device, and the poison that marks unwritten output.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gemmkit::verify {

// x[i] = uniform in [-1, 1), a pure function of (seed, i): the same on every run and device.
void fill_uniform(float* d_x, int64_t count, uint64_t seed, cudaStream_t stream);
void fill_uniform(double* d_x, int64_t count, uint64_t seed, cudaStream_t stream);

// x[i] = quiet NaN: any element a kernel fails to write stays NaN and fails the comparison.
void fill_nan(float* d_x, int64_t count, cudaStream_t stream);
void fill_nan(double* d_x, int64_t count, cudaStream_t stream);

// Host twin of fill_uniform (same values), for tests of the generator itself.
double uniform_value(uint64_t seed, int64_t index);

// dst[i] = double(src[i]); dst[i] = |src[i]| for the abs variant. For the FP64 reference.
void widen(const float* d_src, double* d_dst, int64_t count, cudaStream_t stream);
void widen_abs(const float* d_src, double* d_dst, int64_t count, cudaStream_t stream);

}  // namespace gemmkit::verify
