// The loop both bandwidth kernels share: y[i] = op(x[i], y[i]) over n floats, one pass, built to
// keep DRAM busy and nothing else. saxpy.cuh and copy.cuh supply the op.
//
// - float4 accesses when x and y are both 16-byte aligned (cudaMalloc gives 256): one LDG.128 or
//   STG.128 moves 4 floats, so a warp moves 512 bytes (four 128-byte lines) per instruction and the
//   SM issues a quarter of the memory instructions (and address arithmetic) of a float loop.
// - a grid-stride loop over one full wave (resident blocks per SM x SMs, from the occupancy API):
//   every block starts at once and walks the array in grid-sized strides, so there is no tail wave
//   of half-empty SMs and no block-launch cost per 256 x 4 floats.
// - enough bytes in flight without unrolling: at 2048 threads per SM, each with x and y loads of 16
//   bytes outstanding, an SM has 64 KB in flight; Little's law asks for about 25 KB per SM (H200:
//   4.8 TB/s x ~700 ns DRAM latency / 132 SMs).
// - the n % 4 (at most 3) trailing floats go to the first threads, one float each.
// Preconditions: x and y do not overlap (or are the same array); n >= 0.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cuda_runtime.h>

namespace gemmkit::bandwidth {

// 256 threads = 8 warps: 8 blocks fill the 2048 threads of an sm_80/sm_90 SM (6 the 1536 of
// sm_86/89), far below the 32-block limit, so occupancy is limited by threads only.
constexpr int kStreamThreads = 256;
// 8 resident blocks of 256 threads cap the kernel at 65536 / 2048 = 32 registers (it needs 32 on
// sm_90a), so a compiler change cannot quietly cost a block per SM.
constexpr int kStreamMinBlocks = 8;

// Op: `float operator()(float x, float y) const` and `static constexpr bool kReadsY` (false: y is
// only written, so the loop does not load it).
template <class Op, bool kVec4>
__global__ void __launch_bounds__(kStreamThreads, kStreamMinBlocks)
    stream_kernel(int64_t n, const float* x, float* y, Op op) {
    const int64_t tid = int64_t{blockIdx.x} * kStreamThreads + threadIdx.x;
    const int64_t stride = int64_t{gridDim.x} * kStreamThreads;
    if constexpr (kVec4) {
        const int64_t n4 = n / 4;
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float4* y4 = reinterpret_cast<float4*>(y);
        for (int64_t i = tid; i < n4; i += stride) {
            const float4 xv = x4[i];
            float4 yv{};
            if constexpr (Op::kReadsY) yv = y4[i];
            y4[i] = float4{op(xv.x, yv.x), op(xv.y, yv.y), op(xv.z, yv.z), op(xv.w, yv.w)};
        }
        const int64_t t = 4 * n4 + tid;
        if (t < n) y[t] = op(x[t], Op::kReadsY ? y[t] : 0.0f);
    } else {
        for (int64_t i = tid; i < n; i += stride) y[i] = op(x[i], Op::kReadsY ? y[i] : 0.0f);
    }
}

// Blocks of one full wave of the float4 kernel on the current device (what launch_stream's
// max_blocks should be): resident blocks per SM x SMs.
template <class Op>
cudaError_t stream_full_wave(int* blocks) {
    int device = 0, sms = 0, per_sm = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_kernel<Op, true>, kStreamThreads, 0);
    if (err == cudaSuccess && per_sm * sms < 1) err = cudaErrorInvalidConfiguration;
    if (err == cudaSuccess) *blocks = per_sm * sms;
    return err;
}

// y[i] = op(x[i], y[i]) for i < n on `stream`, at most max_blocks blocks (fewer when the array
// needs fewer): float4 when x and y are 16-byte aligned, float otherwise. Returns the launch error.
template <class Op>
cudaError_t launch_stream(int64_t n, const float* x, float* y, Op op, int max_blocks, cudaStream_t stream) {
    if (n < 0 || max_blocks < 1 || (n > 0 && (x == nullptr || y == nullptr))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    const bool vec4 = (reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) % sizeof(float4) == 0;
    // Work items: float4s (at least one block for a 1-3 float tail) or floats.
    const int64_t items = vec4 ? std::max<int64_t>(n / 4, 1) : n;
    const int blocks = static_cast<int>(std::min<int64_t>(max_blocks, (items + kStreamThreads - 1) / kStreamThreads));
    if (vec4) stream_kernel<Op, true><<<blocks, kStreamThreads, 0, stream>>>(n, x, y, op);
    else stream_kernel<Op, false><<<blocks, kStreamThreads, 0, stream>>>(n, x, y, op);
    return cudaGetLastError();
}

}  // namespace gemmkit::bandwidth
