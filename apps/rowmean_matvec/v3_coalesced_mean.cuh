// rowmean v3 — coalesced averaging: a warp per row, lanes stride over M, warp-shuffle sum.
//
// Changed from v2: warp w averages rows w, w + warps, ...; lane l reads row[l], row[l + 32],
// ..., so each warp request is 32 consecutive floats, one 128-byte line (4 sectors, all used),
// and the 32 lane sums meet in 5 SHFL.BFLY steps (warp_sum), not in shared memory. The block
// is L threads rounded up to whole warps (the shuffles need all 32 lanes); the mat-vec is
// still v1's shared-memory tree per output element.
// Bottleneck it removes: v2's uncoalesced loads: 4 L1 wavefronts per request instead of 32,
// and no line has to survive 8 steps in L1, so X streams from DRAM once, at line granularity.
// What remains: the mat-vec trees, 512 x 11 = 5632 barriers per batch (L = 512) for only
// 512 x 512 x 4 B = 1 MiB of X per batch, with most threads idle inside each tree.
// Preconditions: L + blockDim floats of shared memory within 48 KiB (L <= 11264).
// Measured (H200, commit a4e98fc): 512x512x1024 in 1.93 ms, 1.46x v2, 559 GB/s (11.6% of DRAM).
// ncu (gemmkit profile rowmean.v3): SM throughput 74%, DRAM 11.7%: compute-bound in the mat-vec tree.
#pragma once

#include <algorithm>

#include "rowmean_matvec/v2_block_per_batch.cuh"

namespace gemmkit::rowmean {

// The sum over a warp, in every lane: 5 butterfly steps of SHFL.BFLY, no shared memory, no
// barrier. All 32 lanes must be present (the launches use whole warps).
__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// The mean of row[0, M), computed by the calling warp; every lane gets it.
__device__ __forceinline__ float warp_row_mean(const float* row, int M) {
    const int lane = threadIdx.x % kWarp;
    float sum = 0.0f;
    // Unrolled so that 4 independent loads per lane (4 lines per warp) are in flight at once;
    // one load at a time would leave the warp waiting a DRAM latency per 128 bytes.
#pragma unroll 4
    for (int j = lane; j < M; j += kWarp) sum += row[j];
    return warp_sum(sum) / static_cast<float>(M);
}

// sMean[k] = mean of row k of X_b, a warp per row.
__device__ __forceinline__ void mean_rows_warp_per_row(const float* gXb, int L, int M, float* sMean) {
    const int warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
    for (int k = warp; k < L; k += warps) {
        const float mean = warp_row_mean(gXb + static_cast<int64_t>(k) * M, M);
        if (threadIdx.x % kWarp == 0) sMean[k] = mean;
    }
}

__global__ void __launch_bounds__(kMaxThreads) rowmean_v3_kernel(Args a) {
    extern __shared__ float smem[];
    float* sMean = smem;        // [L]
    float* sPart = smem + a.L;  // [blockDim.x]
    const int b = blockIdx.x;
    mean_rows_warp_per_row(a.X + static_cast<int64_t>(b) * a.L * a.M, a.L, a.M, sMean);  // v2: thread per row
    __syncthreads();
    matvec_tree(a.W, sMean, a.L, sPart, a.Y + static_cast<int64_t>(b) * a.L);
}

// v3 and v4: L threads rounded up to whole warps, at most a full block.
inline int warp_per_row_threads(int64_t L) {
    return round_up(static_cast<int>(std::min<int64_t>(L, kMaxThreads)), kWarp);
}

inline int64_t v3_smem_bytes(int64_t L) {
    return (L + warp_per_row_threads(L)) * static_cast<int64_t>(sizeof(float));
}

// Whether `bytes` of dynamic shared memory fit without an opt-in; otherwise *why says so.
inline bool fits_default_smem(const Sizes& s, int64_t bytes, std::string* why) {
    if (bytes <= kDefaultSmemBytes) return true;
    *why = "L = " + std::to_string(s.L) + " needs " + std::to_string(bytes) +
           " bytes of shared memory per block; the limit without an opt-in is " + std::to_string(kDefaultSmemBytes);
    return false;
}

inline bool supports_v3(const Sizes& s, std::string* why) { return fits_default_smem(s, v3_smem_bytes(s.L), why); }

inline cudaError_t run_v3(const Args& a, cudaStream_t stream) {
    rowmean_v3_kernel<<<a.N, warp_per_row_threads(a.L), v3_smem_bytes(a.L), stream>>>(a);
    return cudaGetLastError();
}

}  // namespace gemmkit::rowmean
