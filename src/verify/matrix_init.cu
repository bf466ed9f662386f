#include "verify/matrix_init.hpp"

#include <stdexcept>
#include <string>

namespace gemmkit::verify {
namespace {

// splitmix64: a counter-based generator, so element i's value depends on (seed, i) only.
__host__ __device__ inline uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in [-1, 1) with 53 random bits.
__host__ __device__ inline double uniform(uint64_t seed, int64_t i) {
    const uint64_t bits = mix(mix(seed) ^ static_cast<uint64_t>(i));
    return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
}

template <class T>
__global__ void fill_uniform_kernel(T* x, uint64_t seed, int64_t count) {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
        x[i] = static_cast<T>(uniform(seed, i));
}

template <class T>
__global__ void fill_nan_kernel(T* x, int64_t count) {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
        x[i] = static_cast<T>(NAN);
}

template <bool kAbs>
__global__ void widen_kernel(const float* src, double* dst, int64_t count) {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
        dst[i] = kAbs ? fabs(static_cast<double>(src[i])) : static_cast<double>(src[i]);
}

// A grid-stride launch over `count` elements (the kernel's last argument): enough blocks to
// fill any current GPU, never more than needed.
template <class... Params, class... Args>
void launch(const char* what, void (*kernel)(Params...), int64_t count, cudaStream_t stream, Args... args) {
    if (count <= 0) return;
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((count + 255) / 256, 4096));
    kernel<<<blocks, 256, 0, stream>>>(args..., count);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

}  // namespace

double uniform_value(uint64_t seed, int64_t index) { return uniform(seed, index); }

void fill_uniform(float* d_x, int64_t count, uint64_t seed, cudaStream_t stream) {
    launch("fill_uniform", fill_uniform_kernel<float>, count, stream, d_x, seed);
}
void fill_uniform(double* d_x, int64_t count, uint64_t seed, cudaStream_t stream) {
    launch("fill_uniform", fill_uniform_kernel<double>, count, stream, d_x, seed);
}
void fill_nan(float* d_x, int64_t count, cudaStream_t stream) { launch("fill_nan", fill_nan_kernel<float>, count, stream, d_x); }
void fill_nan(double* d_x, int64_t count, cudaStream_t stream) { launch("fill_nan", fill_nan_kernel<double>, count, stream, d_x); }
void widen(const float* d_src, double* d_dst, int64_t count, cudaStream_t stream) {
    launch("widen", widen_kernel<false>, count, stream, d_src, d_dst);
}
void widen_abs(const float* d_src, double* d_dst, int64_t count, cudaStream_t stream) {
    launch("widen_abs", widen_kernel<true>, count, stream, d_src, d_dst);
}

}  // namespace gemmkit::verify
