// The few-vectors kernel's geometry (few_vectors.cuh), shared by the kernel, its launcher and the
// plan's rule (src/plan/few_vectors_rules.cu).
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__

namespace gemmkit::skinny {

constexpr int kMaxVectors = 16;        // vectors (columns of X) a block serves; more use gridDim.z
constexpr int kDotRowsPerWarp = 4;     // dot form: rows of W a warp reads together
constexpr int kSmemBytes = 64 * 1024;  // X's staged slice, later the partial sums being added
constexpr int kSplitAlign = 16;        // k of a split is a multiple of this (every load width divides it)

// Elements of W a lane loads at once: 16 bytes in the dot form; in the axpy form 4 rows (2 for
// FP64), whose accumulators (rows x 16 vectors) must stay in registers.
__host__ __device__ constexpr int vec_of(int elem_bytes, bool dot) { return dot ? 16 / elem_bytes : (elem_bytes == 8 ? 2 : 4); }

// Threads a block: 512 in the dot form, so that 64 rows of W share each staged slice of X (with
// 256, 32 rows, X was half as many bytes as W: docs/ladder/few_vectors.md#block-size), except
// FP64's, whose ~200 registers a thread allow no more than 256; 256 in the axpy form.
__host__ __device__ constexpr int threads_of(int elem_bytes, bool dot) { return dot && elem_bytes != 8 ? 512 : 256; }

// Rows of W a block covers.
__host__ __device__ constexpr int block_rows(int elem_bytes, bool dot) {
    return dot ? threads_of(elem_bytes, true) / 32 * kDotRowsPerWarp : 32 * vec_of(elem_bytes, false);
}

// Blocks an SM holds at once (ptxas on sm_90a, docs/ladder/few_vectors.md#resources): the dot
// form's 512 threads of 128 registers (FP64: 256 of ~200) fill the register file, the axpy form's
// 256 of 128 half of it.
__host__ __device__ constexpr int blocks_per_sm(bool dot) { return dot ? 1 : 2; }

// X's slice in shared memory, in the layout each form reads with 16-byte loads, padded by 16 bytes
// so that the staging stores spread over the banks (docs/ladder/few_vectors.md#staging):
//  dot form, xs[v][kk]: a vector's k run of x_stride(acc, true) entries;
//  axpy form, xs[kk][v]: a k's 16 vectors in x_stride(acc, false) entries.
__host__ __device__ constexpr int x_stride(int acc_bytes, bool dot) {
    return dot ? kSmemBytes / (kMaxVectors * acc_bytes) - 16 / acc_bytes : (kMaxVectors * acc_bytes + 16) / acc_bytes;
}
// k of the slice staged at once: what fits the buffer, a multiple of kSplitAlign.
__host__ __device__ constexpr int chunk_k(int acc_bytes, bool dot) {
    return dot ? (x_stride(acc_bytes, true) - 16 / acc_bytes) / kSplitAlign * kSplitAlign
               : kSmemBytes / (x_stride(acc_bytes, false) * acc_bytes) / kSplitAlign * kSplitAlign;
}

// The plan's configuration of a few-vectors row (Plan::config): bits of these.
constexpr int kConfigDot = 1;      // W's k is contiguous: the dot form (else the axpy form)
constexpr int kConfigSwapped = 2;  // few rows: the kernel forms C^T = op(B)^T op(A)^T

}  // namespace gemmkit::skinny
