// FP8 quantization for the scaled GEMM's operands (gemmkit_quantize_fp8): the amax of the
// tensor, of each column or of each block of 128 of k, its scale, and x / scale rounded to FP8
// with saturation. A helper, not a ladder step: plain loads, one value a thread a step. A
// tensor's amax needs every block, so per tensor it takes three launches in stream order (amax,
// values, scale); per column one block does a column's all, per block of 128 of k one warp (1
// column) or one CTA (128 columns) does the block's all.
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

// The largest of the warp's values, in every lane (NaN if any is).
__device__ float warp_max(float v) {
    for (int o = 16; o > 0; o /= 2) v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// The largest of the block's values, in every thread (NaN if any is), for blocks of Threads.
template <int Threads = kThreads>
__device__ float block_max(float v) {
    static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, one warp_maxes slot a lane at most");
    __shared__ float warp_maxes[Threads / 32];
    v = warp_max(v);
    __syncthreads();  // the last call's readers are done with warp_maxes
    if (threadIdx.x % 32 == 0) warp_maxes[threadIdx.x / 32] = v;
    __syncthreads();
    return warp_max(threadIdx.x % 32 < Threads / 32 ? warp_maxes[threadIdx.x % 32] : 0.0f);
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

// The block kernel's CTA: 8 warps, a block each (BlockMn 1), or 32 sharing one (128): 4 columns,
// 16 values a thread, so that registers leave room for 64 warps an SM (8 warps of 64 values a
// thread left 16).
template <int BlockMn>
constexpr int kBlockThreads = BlockMn == 1 ? 256 : 1024;

// Per block of kScaleBlockK of k and BlockMn columns: with BlockMn 1 a warp owns a block, with
// 128 the CTA does, each warp 4 of its columns. A warp reads a column's 128 values 4 a lane,
// lane + 32 t (each step coalesced), and keeps them in registers for the second pass; past k or
// mn they read as 0, which no amax notices.
template <class T, gemmkit_dtype Q, int BlockMn>
__global__ void __launch_bounds__(kBlockThreads<BlockMn>)
    block_values(const T* x, int64_t ldx, uint8_t* q, int64_t ldq, int64_t k, int64_t mn, float* scales) {
    constexpr int kThreadsHere = kBlockThreads<BlockMn>, kWarps = kThreadsHere / 32;
    static_assert(BlockMn == 1 || BlockMn % kWarps == 0, "the CTA's warps split a block's columns evenly");
    static_assert(kScaleBlockK == 4 * 32, "4 values a lane cover a block's k");
    constexpr int kCols = BlockMn == 1 ? 1 : BlockMn / kWarps;  // columns a warp
    constexpr int kUnitsPerCta = BlockMn == 1 ? kWarps : 1;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t k_blocks = (k + kScaleBlockK - 1) / kScaleBlockK, mn_blocks = (mn + BlockMn - 1) / BlockMn;
    const int64_t units = k_blocks * mn_blocks, step = static_cast<int64_t>(gridDim.x) * kUnitsPerCta;
    // Uniform across the warp (BlockMn 1) or the CTA (128): block_max's barriers see every thread.
    for (int64_t u = blockIdx.x * static_cast<int64_t>(kUnitsPerCta) + (BlockMn == 1 ? warp : 0); u < units;
         u += step) {
        const int64_t kb = u % k_blocks, jb = u / k_blocks;  // neighbours read neighbouring k
        const int64_t i0 = kb * kScaleBlockK + lane, j0 = jb * BlockMn + (BlockMn == 1 ? 0 : warp);
        float v[kCols][4];  // column j0 + kWarps c, row i0 + 32 t
        float m = 0.0f;
#pragma unroll
        for (int c = 0; c < kCols; ++c)
#pragma unroll
            for (int t = 0; t < 4; ++t) {
                const int64_t i = i0 + 32 * t, j = j0 + static_cast<int64_t>(kWarps) * c;
                v[c][t] = i < k && j < mn ? to_float(x[j * ldx + i]) : 0.0f;
                m = nan_max(m, fabsf(v[c][t]));
            }
        const float scale = fp8_scale_of(BlockMn == 1 ? warp_max(m) : block_max<kThreadsHere>(m), Q);
        if (threadIdx.x % (BlockMn == 1 ? 32 : kThreadsHere) == 0) scales[kb * mn_blocks + jb] = scale;
        const float inv = 1.0f / scale;
#pragma unroll
        for (int c = 0; c < kCols; ++c)
#pragma unroll
            for (int t = 0; t < 4; ++t) {
                const int64_t i = i0 + 32 * t, j = j0 + static_cast<int64_t>(kWarps) * c;
                if (i < k && j < mn) q[j * ldq + i] = to_fp8<Q>(v[c][t] * inv);
            }
    }
}

template <class T, gemmkit_dtype Q, int BlockMn>
cudaError_t launch_blocks(const QuantizeArgs& a, cudaStream_t stream) {
    constexpr int64_t kUnitsPerCta = BlockMn == 1 ? kBlockThreads<BlockMn> / 32 : 1;
    const int64_t wanted = (quantize_scale_count(a) + kUnitsPerCta - 1) / kUnitsPerCta;
    const unsigned blocks = static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
    block_values<T, Q, BlockMn><<<blocks, kBlockThreads<BlockMn>, 0, stream>>>(
        static_cast<const T*>(a.x), a.ldx, static_cast<uint8_t*>(a.q), a.ldq, a.k, a.mn, a.scales);
    return cudaGetLastError();
}

template <class T, gemmkit_dtype Q>
cudaError_t launch_typed(const QuantizeArgs& a, cudaStream_t stream) {
    if (a.block_mn == 1) return launch_blocks<T, Q, 1>(a, stream);
    if (a.block_mn == 128) return launch_blocks<T, Q, 128>(a, stream);
    if (a.block_mn != 0) return cudaErrorInvalidValue;  // the entry point's checks let no other width through
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
