// rowmean v5 — an averaging kernel, then one gemmkit SGEMM for all batches.
//
// Changed from v4: the two phases split. rowmean_v5_mean_kernel averages all N*L rows of X,
// a warp per row (v3's warp_row_mean), into avg (L x N column-major: column b is batch b's
// mean vector); then a single gemmkit_sgemm computes Y = W * avg, an L x L x N GEMM.
// Bottleneck it removes: v4's per-batch mat-vec, which re-reads W (1 MiB at L = 512) for
// each of the N batches, 1 GiB of L2 traffic, and does 2*L*L FLOPs per batch with no reuse.
// The GEMM tiles the product, so each W element is loaded once per column tile of Y: 16 times
// with the 64-wide tiles auto picks for 512 x 1024 x 512 (src/tuning/sgemm_table.csv, class
// tiles<=64/k<=1024), not 1024 times; its 2*L*L*N = 0.54 GFLOP take ~17 us at the 31 TFLOP/s
// the table records for that class. What remains is the averaging kernel, a pure stream of X:
// at best 1 GiB at the DRAM bandwidth, ~0.32 ms on an H100 SXM (the averages add 2 x 2 MiB of
// traffic, 0.4%). At 1024^3: 4 GiB of X, ~1.3 ms, against ~70 us of GEMM.
// Preconditions: L*N floats of workspace for the averages; gemmkit_sgemm's (none here).
// Measured (H200, commit a4e98fc): 512x512x1024 in 0.283 ms, 1.20x v4, 3809 GB/s (79% of DRAM);
// 1024^3 in 1.02 ms, 4238 GB/s (88% of DRAM), 126x the CPU.
//
// The GEMM in gemmkit's column-major terms: W is row-major, and a row-major L x L matrix read
// column-major (ld = L) is its transpose, W^T; so op(A) = T with A = W gives W. avg is already
// column-major L x N (op(B) = N, ldb = L), and C = Y column-major L x N (ldc = L):
//     Y(i, b) = sum_k op(A)(i, k) * avg(k, b) = sum_k W(i, k) * mean_k of batch b.
// Same layout as every other version: Y(i, b) at Y[i + b*L].
#pragma once

#include "gemmkit/gemmkit.h"
#include "rowmean_matvec/v3_coalesced_mean.cuh"

namespace gemmkit::rowmean {

constexpr int kV5MeanThreads = 256;  // 8 warps, 8 rows per block: any L, small blocks fill every SM

// avg[r] = mean of row r of X for r < rows = N*L (row r is X_b(k, .) with r = b*L + k, and
// avg[r] is avg(k, b) in column-major L x N).
__global__ void __launch_bounds__(kV5MeanThreads) rowmean_v5_mean_kernel(const float* X, int64_t rows, int M,
                                                                         float* avg) {
    const int64_t r = static_cast<int64_t>(blockIdx.x) * (kV5MeanThreads / kWarp) + threadIdx.x / kWarp;
    if (r >= rows) return;  // r is the same in all 32 lanes: whole warps leave, warp_sum stays full
    const float mean = warp_row_mean(X + r * M, M);
    if (threadIdx.x % kWarp == 0) avg[r] = mean;
}

inline int64_t v5_workspace_floats(const Sizes& s) { return s.L * s.N; }

inline int64_t v5_mean_blocks(const Sizes& s) {
    constexpr int64_t kRowsPerBlock = kV5MeanThreads / kWarp;
    return (s.L * s.N + kRowsPerBlock - 1) / kRowsPerBlock;
}

inline bool supports_v5(const Sizes& s, std::string* why) {
    constexpr int64_t kMaxGridX = 2147483647;  // gridDim.x limit
    if (v5_mean_blocks(s) <= kMaxGridX) return true;
    *why = "L x N = " + std::to_string(s.L * s.N) + " rows need more than 2^31 - 1 blocks of " +
           std::to_string(kV5MeanThreads / kWarp) + " rows";
    return false;
}

// gemmkit statuses as CUDA errors, for the version table's one return type; the command prints
// gemmkit_last_error() beside it, which keeps the library's message.
inline cudaError_t cuda_error_of(gemmkit_status s) {
    switch (s) {
        case GEMMKIT_SUCCESS: return cudaSuccess;
        case GEMMKIT_INVALID_VALUE: return cudaErrorInvalidValue;
        case GEMMKIT_ALLOC_FAILED: return cudaErrorMemoryAllocation;
        case GEMMKIT_NOT_SUPPORTED:
        case GEMMKIT_UNKNOWN_KERNEL: return cudaErrorNotSupported;
        default: return cudaErrorUnknown;
    }
}

inline cudaError_t run_v5(const Args& a, cudaStream_t stream) {
    const Sizes s{a.L, a.M, a.N};
    const unsigned blocks = static_cast<unsigned>(v5_mean_blocks(s));
    rowmean_v5_mean_kernel<<<blocks, kV5MeanThreads, 0, stream>>>(a.X, s.L * s.N, a.M, a.workspace);
    if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
    const float one = 1.0f, zero = 0.0f;  // beta = 0: Y is never read, so its NaN poison cannot leak in
    return cuda_error_of(gemmkit_sgemm(stream, GEMMKIT_OP_T, GEMMKIT_OP_N, s.L, s.N, s.L, &one, a.W, s.L,
                                       a.workspace, s.L, &zero, a.Y, s.L));
}

}  // namespace gemmkit::rowmean
