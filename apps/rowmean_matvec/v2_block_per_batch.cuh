// rowmean v2 — one block per batch (grid = N).
//
// Changed from v1: the loop over batches becomes the grid, b = blockIdx.x; the block's work
// (thread-per-row averaging, one shared-memory tree per output element) is v1's, unchanged.
// Bottleneck it removes: v1's single SM. 1024 blocks of 512 threads spread over all SMs, 4
// resident per SM (2048 threads), so 132 SMs run 528 at once: 1.94 waves. Predicted gain up
// to ~100x, the SM count less the tail of the second wave.
// What remains, now that all SMs load at once: the uncoalesced averaging. Per SM, 4 blocks x
// 16 warps x 32 rows x 128-byte lines = 256 KiB of lines in use, more than the L1 beside the
// shared memory, so lines are evicted before their 8 floats per sector are used and each
// sector may be fetched again from L2/DRAM; plus v1's 5632 barriers per batch.
// Preconditions: as v1 (L <= 1024, 2*L floats of shared memory per block).
// Measured (H200, commit a4e98fc): 512x512x1024 in 2.81 ms, 222x v1, 383 GB/s (8% of DRAM);
// 1024^3 in 12.2 ms (353 GB/s). Every SM busy now; the row-per-thread reads still waste sectors.
#pragma once

#include "rowmean_matvec/v1_single_block.cuh"

namespace gemmkit::rowmean {

__global__ void __launch_bounds__(kMaxThreads) rowmean_v2_kernel(Args a) {
    extern __shared__ float smem[];
    float* sMean = smem;        // [L]
    float* sPart = smem + a.L;  // [blockDim.x]
    const int b = blockIdx.x;   // v1: for (int b = 0; b < a.N; ++b)
    mean_rows_thread_per_row(a.X + static_cast<int64_t>(b) * a.L * a.M, a.L, a.M, sMean);
    __syncthreads();
    matvec_tree(a.W, sMean, a.L, sPart, a.Y + static_cast<int64_t>(b) * a.L);
}

inline cudaError_t run_v2(const Args& a, cudaStream_t stream) {
    rowmean_v2_kernel<<<a.N, a.L, thread_per_row_smem_bytes(a.L), stream>>>(a);
    return cudaGetLastError();
}

}  // namespace gemmkit::rowmean
