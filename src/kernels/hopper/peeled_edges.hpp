// Peeling C's last few rows and columns off a TF32 GEMM whose operands are copied (pad_copy.hpp).
//
// At 4097^3 the last row and column of C cost a whole ring of tiles: 17 x 17 pair-tiles of
// 256 x 256 instead of 16 x 16: 289 / 256, 13% more tensor-core work even with stream-K.
// Where an operand is copied anyway, every element of it passes through the copy kernel once,
// so the copy can also form what the peeled strips need from it at no extra memory traffic:
//   C's last rows  (m' <= i < m, all j):  C(i, j) = alpha sum_kk op(A)(i, kk) op(B)(kk, j), which
//                  reads all of B and only `rows` rows of op(A): formed by B's copy;
//   C's last columns (all i, n' <= j < n): reads all of A and `cols` columns of op(B): A's copy.
// The GEMM then runs on the aligned m' x n' part of C, and a last small kernel writes the
// strips (alpha, beta) from the copies' partial sums, which are summed in a fixed order: the
// result does not depend on the run.
// TF32 only (FP32 A, B and C): there the GEMM saves more than the copies that also form dot
// products cost over the plain ones. For FP16/BF16 the saving is half as large against copies
// as slow, and the peel lost on some shapes (docs/ladder/hopper.md#lab-peel).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/hopper/pad_copy.hpp"
#include "problem.hpp"

namespace gemmkit::hopper {

// Rows or columns peeled at most: a strip wider than this is left to the GEMM.
constexpr int64_t kMaxPeeled = 4;
// The edge of the tiles whose last ring a peel saves (a pair-tile, 2 x 128 along m and 256 along n).
constexpr int64_t kPeelEdge = 256;

// C's last `rows` rows and `cols` columns, formed beside the GEMM instead of by it.
struct EdgePeel {
    int64_t rows = 0;
    int64_t cols = 0;
    bool any() const { return rows > 0 || cols > 0; }
};

// What to peel off p, whose A (copies_a) and B (copies_b) are or are not copied: the rows past
// the last whole 256 where there are 1 to kMaxPeeled of them and B is copied (its copy forms
// them); likewise the columns, with A's copy. Only where the rest of C still has `min_tiles`
// tiles of 256 x 256 (the launcher: as many as SMs, two rounds of clusters of 2): with one round
// the peel has little to save (2049^3 lost to it: docs/ladder/hopper.md#lab-peel). FP32 operands only
// (the TF32 GEMM, above).
inline EdgePeel plan_edge_peel(const Problem& p, bool copies_a, bool copies_b, int64_t min_tiles) {
    EdgePeel peel;
    if (!reads_ab(p) || p.a_type != GEMMKIT_R_32F || p.b_type != GEMMKIT_R_32F || p.c_type != GEMMKIT_R_32F)
        return peel;
    const int64_t rows = p.m % kPeelEdge, cols = p.n % kPeelEdge;
    if (copies_b && rows >= 1 && rows <= kMaxPeeled) peel.rows = rows;
    if (copies_a && cols >= 1 && cols <= kMaxPeeled) peel.cols = cols;
    const int64_t tiles = (p.m - peel.rows + kPeelEdge - 1) / kPeelEdge * ((p.n - peel.cols + kPeelEdge - 1) / kPeelEdge);
    if (tiles < min_tiles || p.m - peel.rows <= 0 || p.n - peel.cols <= 0) return EdgePeel{};
    return peel;
}

// Copies that also form the peeled strips, and the strips' store, for one call of p.
class PeeledEdges {
public:
    // Allocates the partial sums (from the library's pool, on `stream`), for copies sized to a
    // GPU of `sm_count` SMs. On failure nothing stays allocated and no error is pending.
    cudaError_t allocate(const Problem& p, EdgePeel peel, int sm_count, cudaStream_t stream);
    // pad_operand for A (B): the copy, and the partial sums of the strip it forms.
    cudaError_t copy_a(PaddedOperand* out);
    cudaError_t copy_b(PaddedOperand* out);
    // C's peeled strips from the partial sums, enqueued after both copies.
    cudaError_t store_strips();
    // Frees the partial sums after the work enqueued so far (stream order). Safe to call twice.
    void release();

private:
    Problem p_;
    EdgePeel peel_;
    int sm_count_ = 0;
    cudaStream_t stream_ = nullptr;
    float* sums_a_ = nullptr;  // [range of k][i][column]: A's copy, C's last columns
    float* sums_b_ = nullptr;  // [range of k][j][row]: B's copy, C's last rows
    int64_t ranges_a_ = 0, ranges_b_ = 0;  // k ranges the copies split into
    void* workspace_ = nullptr;
};

}  // namespace gemmkit::hopper
