// rowmean v4 — the mat-vec with warp shuffles instead of shared-memory trees.
//
// Changed from v3: warp w computes output elements i = w, w + warps, ...: lane l forms
// W(i, k) * mean_k for k = l, l + 32, ... (row i of W: one 128-byte line per request; the means
// from shared memory, 32 consecutive words: no bank conflict) and warp_sum adds the 32
// partial sums. The block's only barrier is the one between averaging and mat-vec.
// Bottleneck it removes: v3's 5632 barriers per batch (L = 512) and its idle tree threads;
// now every warp streams independently and the mat-vec overlaps the next block's loads.
// What remains: the memory traffic. X once from DRAM (1 GiB at 512x512x1024, at least 0.32 ms
// at the H100 SXM's 3.35 TB/s), but W is re-read by every block: 1 MiB x 1024 batches = 1 GiB
// from L2 (4 GiB at 1024^3), as much as X, and L2 bandwidth is only a few times DRAM's.
// Preconditions: L floats of shared memory within 48 KiB (L <= 12288).
// Measured (H200, commit a4e98fc): 512x512x1024 in 0.338 ms, 5.7x v3, 3184 GB/s (66% of DRAM);
// 1024^3 in 1.27 ms (3383 GB/s, 70%).
#pragma once

#include "rowmean_matvec/v3_coalesced_mean.cuh"

namespace gemmkit::rowmean {

// gYb[i] = sum_k W(i, k) * sMean[k] for i < L, a warp per output element.
__device__ __forceinline__ void matvec_warp_per_row(const float* gW, const float* sMean, int L, float* gYb) {
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp, warps = blockDim.x / kWarp;
    for (int i = warp; i < L; i += warps) {
        const float* w = gW + static_cast<int64_t>(i) * L;
        float part = 0.0f;
        for (int k = lane; k < L; k += kWarp) part += w[k] * sMean[k];
        const float dot = warp_sum(part);
        if (lane == 0) gYb[i] = dot;
    }
}

__global__ void __launch_bounds__(kMaxThreads) rowmean_v4_kernel(Args a) {
    extern __shared__ float smem[];
    float* sMean = smem;  // [L]; v3 also needed [blockDim.x] for the tree
    const int b = blockIdx.x;
    mean_rows_warp_per_row(a.X + static_cast<int64_t>(b) * a.L * a.M, a.L, a.M, sMean);
    __syncthreads();
    matvec_warp_per_row(a.W, sMean, a.L, a.Y + static_cast<int64_t>(b) * a.L);  // v3: matvec_tree
}

inline int64_t v4_smem_bytes(int64_t L) { return L * static_cast<int64_t>(sizeof(float)); }

inline bool supports_v4(const Sizes& s, std::string* why) { return fits_default_smem(s, v4_smem_bytes(s.L), why); }

inline cudaError_t run_v4(const Args& a, cudaStream_t stream) {
    rowmean_v4_kernel<<<a.N, warp_per_row_threads(a.L), v4_smem_bytes(a.L), stream>>>(a);
    return cudaGetLastError();
}

}  // namespace gemmkit::rowmean
