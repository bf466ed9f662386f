// FP8 quantization for the scaled GEMM's operands (gemmkit_quantize_fp8): the amax of the
// tensor or of each column, its scale, and x / scale rounded to FP8 with saturation. A helper,
// not a ladder step: plain loads, one value a thread a step. A tensor's amax needs every block,
// so per tensor it takes three launches in stream order (amax, values, scale); per column one
// block does a column's all.
#include "kernels/fp8/quantize.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/epilogue_ops.cuh"  // to_float

namespace gemmkit {
namespace {

constexpr int kThreads = 256;

template <gemmkit_dtype Q>
__device__ __forceinline__ uint8_t to_fp8(float v) {
    return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, Q == GEMMKIT_R_8F_E4M3 ? __NV_E4M3 : __NV_E5M2);
}

// The largest of the block's values, in every thread (NaN if any is).
__device__ float block_max(float v) {
    __shared__ float warp_max[kThreads / 32];
    for (int o = 16; o > 0; o /= 2) v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();  // the last call's readers are done with warp_max
    if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x % 32 < kThreads / 32 ? warp_max[threadIdx.x % 32] : 0.0f;
    for (int o = 16; o > 0; o /= 2) v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Per tensor, 1: the amax of all of x into *amax_bits (zeroed before), as a float's bits. The
// bits of floats >= 0 order as the floats do, and a NaN's (after fabsf) above infinity's.
template <class T>
__global__ void __launch_bounds__(kThreads) tensor_amax(const T* x, int64_t ldx, int64_t k, int64_t mn,
                                                        unsigned* amax_bits) {
    float m = 0.0f;
    const int64_t total = k * mn, step = static_cast<int64_t>(gridDim.x) * kThreads;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(kThreads) + threadIdx.x; e < total; e += step)
        m = nan_max(m, fabsf(to_float(x[e / k * ldx + e % k])));
    m = block_max(m);
    if (threadIdx.x == 0) atomicMax(amax_bits, __float_as_uint(m));
}

// Per tensor, 2: every value over the scale of the amax in *amax.
template <class T, gemmkit_dtype Q>
__global__ void __launch_bounds__(kThreads) tensor_values(const T* x, int64_t ldx, uint8_t* q, int64_t ldq,
                                                          int64_t k, int64_t mn, const float* amax) {
    const float inv = 1.0f / fp8_scale_of(*amax, Q);
    const int64_t total = k * mn, step = static_cast<int64_t>(gridDim.x) * kThreads;
    for (int64_t e = blockIdx.x * static_cast<int64_t>(kThreads) + threadIdx.x; e < total; e += step) {
        const int64_t i = e % k, j = e / k;
        q[j * ldq + i] = to_fp8<Q>(to_float(x[j * ldx + i]) * inv);
    }
}

// Per tensor, 3: the amax in scales[0] becomes its scale (after step 2 has read it).
template <gemmkit_dtype Q>
__global__ void tensor_scale(float* scales) {
    scales[0] = fp8_scale_of(scales[0], Q);
}

// Per column: a block a column (and on, by the grid's stride), its amax, scale and values.
template <class T, gemmkit_dtype Q>
__global__ void __launch_bounds__(kThreads) column_values(const T* x, int64_t ldx, uint8_t* q, int64_t ldq,
                                                          int64_t k, int64_t mn, float* scales) {
    for (int64_t j = blockIdx.x; j < mn; j += gridDim.x) {
        const T* col = x + j * ldx;
        float m = 0.0f;
        for (int64_t i = threadIdx.x; i < k; i += kThreads) m = nan_max(m, fabsf(to_float(col[i])));
        const float scale = fp8_scale_of(block_max(m), Q);
        if (threadIdx.x == 0) scales[j] = scale;
        const float inv = 1.0f / scale;
        for (int64_t i = threadIdx.x; i < k; i += kThreads) q[j * ldq + i] = to_fp8<Q>(to_float(col[i]) * inv);
    }
}

template <class T, gemmkit_dtype Q>
cudaError_t launch_typed(const QuantizeArgs& a, cudaStream_t stream) {
    const T* x = static_cast<const T*>(a.x);
    uint8_t* q = static_cast<uint8_t*>(a.q);
    if (a.mode == GEMMKIT_SCALE_OUTER) {
        const unsigned blocks = static_cast<unsigned>(a.mn < 65535 ? a.mn : 65535);
        column_values<T, Q><<<blocks, kThreads, 0, stream>>>(x, a.ldx, q, a.ldq, a.k, a.mn, a.scales);
        return cudaGetLastError();
    }
    const int64_t total = a.k * a.mn, wanted = (total + kThreads - 1) / kThreads;
    const unsigned blocks = static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
    if (cudaError_t err = cudaMemsetAsync(a.scales, 0, sizeof(float), stream); err != cudaSuccess) return err;
    tensor_amax<T><<<blocks, kThreads, 0, stream>>>(x, a.ldx, a.k, a.mn, reinterpret_cast<unsigned*>(a.scales));
    tensor_values<T, Q><<<blocks, kThreads, 0, stream>>>(x, a.ldx, q, a.ldq, a.k, a.mn, a.scales);
    tensor_scale<Q><<<1, 1, 0, stream>>>(a.scales);
    return cudaGetLastError();
}

template <class T>
cudaError_t launch_for_x(const QuantizeArgs& a, cudaStream_t stream) {
    return a.q_type == GEMMKIT_R_8F_E4M3 ? launch_typed<T, GEMMKIT_R_8F_E4M3>(a, stream)
                                         : launch_typed<T, GEMMKIT_R_8F_E5M2>(a, stream);
}

}  // namespace

cudaError_t launch_quantize_fp8(const QuantizeArgs& a, cudaStream_t stream) {
    switch (a.x_type) {
        case GEMMKIT_R_32F: return launch_for_x<float>(a, stream);
        case GEMMKIT_R_16F: return launch_for_x<__half>(a, stream);
        case GEMMKIT_R_16BF: return launch_for_x<__nv_bfloat16>(a, stream);
        default: return cudaErrorInvalidValue;  // the entry point's checks let no other type through
    }
}

}  // namespace gemmkit
