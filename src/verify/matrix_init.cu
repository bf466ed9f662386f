#include "verify/matrix_init.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "verify/dtypes.hpp"

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
        x[i] = from_double<T>(uniform(seed, i));
}

template <class T>
__global__ void fill_nan_kernel(T* x, int64_t count) {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
        x[i] = from_double<T>(NAN);
}

template <class T>
__global__ void widen_kernel(const T* src, double* dst, Widening how, int64_t count) {
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x) {
        T v = src[i];
        if constexpr (std::is_same_v<T, float>) v = to_tf32(v, how.tf32);
        const double d = to_double(v);
        dst[i] = how.magnitude ? fabs(d) : d;
    }
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

void fill_uniform(void* d_x, gemmkit_dtype type, int64_t count, uint64_t seed, cudaStream_t stream) {
    visit_dtype(type, [&]<class T>(std::type_identity<T>) {
        launch("fill_uniform", fill_uniform_kernel<T>, count, stream, static_cast<T*>(d_x), seed);
    });
}
void fill_uniform(float* d_x, int64_t count, uint64_t seed, cudaStream_t stream) {
    fill_uniform(d_x, GEMMKIT_R_32F, count, seed, stream);
}
void fill_uniform(double* d_x, int64_t count, uint64_t seed, cudaStream_t stream) {
    fill_uniform(d_x, GEMMKIT_R_64F, count, seed, stream);
}

void fill_nan(void* d_x, gemmkit_dtype type, int64_t count, cudaStream_t stream) {
    visit_dtype(type, [&]<class T>(std::type_identity<T>) {
        launch("fill_nan", fill_nan_kernel<T>, count, stream, static_cast<T*>(d_x));
    });
}
void fill_nan(float* d_x, int64_t count, cudaStream_t stream) { fill_nan(d_x, GEMMKIT_R_32F, count, stream); }
void fill_nan(double* d_x, int64_t count, cudaStream_t stream) { fill_nan(d_x, GEMMKIT_R_64F, count, stream); }

void widen(const void* d_src, gemmkit_dtype type, double* d_dst, int64_t count, Widening how, cudaStream_t stream) {
    visit_dtype(type, [&]<class T>(std::type_identity<T>) {
        launch("widen", widen_kernel<T>, count, stream, static_cast<const T*>(d_src), d_dst, how);
    });
}

std::vector<double> widen_to_host(const void* d_src, gemmkit_dtype type, int64_t count, Tf32Inputs tf32) {
    return visit_dtype(type, [&]<class T>(std::type_identity<T>) {
        std::vector<T> raw(static_cast<size_t>(count));
        if (count > 0) {
            const cudaError_t err = cudaMemcpy(raw.data(), d_src, raw.size() * sizeof(T), cudaMemcpyDeviceToHost);
            if (err != cudaSuccess) throw std::runtime_error(std::string("widen_to_host: ") + cudaGetErrorString(err));
        }
        std::vector<double> out(raw.size());
        for (size_t i = 0; i < raw.size(); ++i) {
            T v = raw[i];
            if constexpr (std::is_same_v<T, float>) v = to_tf32(v, tf32);
            out[i] = to_double(v);
        }
        return out;
    });
}

}  // namespace gemmkit::verify
