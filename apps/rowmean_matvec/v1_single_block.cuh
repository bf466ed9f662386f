// rowmean v1 — one block of L threads loops over all N batches: the article's starting point.
//
// What it does: for b = 0, 1, ..., N-1 in turn, thread k sums row k of X_b along j and stores
// the mean in shared memory; then, for each of the L output elements, thread k forms
// W(i, k) * mean_k and the block adds the L products with a shared-memory tree.
// Bottlenecks, predicted from the access pattern (measured figures below):
//  - One block: 1 SM of the 132 on an H100 SXM does all the work while 131 idle. X (1 GiB at
//    512x512x1024) streams through one SM's load path, a few tens of GB/s at best: tens of ms.
//  - Uncoalesced averaging: at each step j the 32 lanes of a warp read 32 floats M*4 = 2 KiB
//    apart, 32 sectors for 128 useful bytes. L1 keeps the other 7 floats of each sector for
//    the next steps while it can hold 16 warps x 32 rows x 128 B = 64 KiB (L = 512), so DRAM
//    traffic stays near 1x, but every request costs 32 L1 wavefronts instead of 4.
//  - The mat-vec: one tree per output element, ceil(log2 512) + 2 = 11 barriers each, so
//    5632 __syncthreads per batch and 5.8 M in all, with most threads idle after step one.
// Preconditions: L <= 1024 (a thread per row); 2*L floats of dynamic shared memory.
// Measured (H200, commit a4e98fc): 512x512x1024 in 623.6 ms (1.7 GB/s, 0.07x the 16-thread CPU);
// 1024^3 in 2000 ms. ncu (gemmkit profile rowmean.v1): one block on one of 132 SMs, 0.04% of DRAM.
#pragma once

#include <string>

#include "rowmean_matvec/common.cuh"

namespace gemmkit::rowmean {

// sMean[k] = mean of row k of X_b, one thread per row walking along it (k = thread, thread +
// blockDim, ... so any L works; v1 and v2 launch exactly L threads).
__device__ __forceinline__ void mean_rows_thread_per_row(const float* gXb, int L, int M, float* sMean) {
    for (int k = threadIdx.x; k < L; k += blockDim.x) {
        const float* row = gXb + static_cast<int64_t>(k) * M;
        float sum = 0.0f;
        for (int j = 0; j < M; ++j) sum += row[j];  // a warp's lanes: 32 rows, M floats apart
        sMean[k] = sum / static_cast<float>(M);     // one correctly rounded division per row
    }
}

// The sum of one value per thread over the block, by a shared-memory tree: ceil(log2 blockDim)
// halving steps, each a __syncthreads(); any block size (the upper half folds onto the lower,
// an odd middle element waits a step). sPart: [blockDim.x] floats. Every thread of the block
// calls it and gets the sum; sPart may be reused on return.
__device__ __forceinline__ float block_tree_sum(float* sPart, float v) {
    const int t = threadIdx.x;
    sPart[t] = v;
    __syncthreads();
    for (int n = blockDim.x; n > 1;) {
        const int half = (n + 1) / 2;
        if (t < n - half) sPart[t] += sPart[t + half];
        __syncthreads();
        n = half;
    }
    const float sum = sPart[0];
    __syncthreads();  // everyone has read sPart[0] before the next call overwrites it
    return sum;
}

// gYb[i] = sum_k W(i, k) * sMean[k] for i < L: one block-wide tree per output element. The
// last tree's closing barrier also orders every read of sMean before the next batch's writes.
__device__ __forceinline__ void matvec_tree(const float* gW, const float* sMean, int L, float* sPart, float* gYb) {
    for (int i = 0; i < L; ++i) {
        const float* w = gW + static_cast<int64_t>(i) * L;
        float part = 0.0f;
        for (int k = threadIdx.x; k < L; k += blockDim.x) part += w[k] * sMean[k];  // row i of W: coalesced
        const float dot = block_tree_sum(sPart, part);
        if (threadIdx.x == 0) gYb[i] = dot;
    }
}

__global__ void __launch_bounds__(kMaxThreads) rowmean_v1_kernel(Args a) {
    extern __shared__ float smem[];
    float* sMean = smem;        // [L]
    float* sPart = smem + a.L;  // [blockDim.x]
    for (int b = 0; b < a.N; ++b) {
        mean_rows_thread_per_row(a.X + static_cast<int64_t>(b) * a.L * a.M, a.L, a.M, sMean);
        __syncthreads();
        matvec_tree(a.W, sMean, a.L, sPart, a.Y + static_cast<int64_t>(b) * a.L);
    }
}

// v1 and v2: a block of exactly L threads, shared memory for the means and the tree.
inline int64_t thread_per_row_smem_bytes(int64_t L) { return 2 * L * static_cast<int64_t>(sizeof(float)); }

inline bool supports_thread_per_row(const Sizes& s, std::string* why) {
    if (s.L <= kMaxThreads) return true;
    *why = "L = " + std::to_string(s.L) + ": a thread per row needs L <= " + std::to_string(kMaxThreads) +
           " (threads per block)";
    return false;
}

inline cudaError_t run_v1(const Args& a, cudaStream_t stream) {
    rowmean_v1_kernel<<<1, a.L, thread_per_row_smem_bytes(a.L), stream>>>(a);
    return cudaGetLastError();
}

}  // namespace gemmkit::rowmean
