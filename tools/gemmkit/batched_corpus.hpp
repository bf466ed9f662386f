// The batched corpus of `gemmkit bench --suite batched`: the five BF16 strided batches
// and a few more (odd sizes, a shared B, padded strides, TN, pointer arrays), each timed for the
// shape suite's five types (corpus_types(), shape_corpus.hpp) against cuBLAS's batched calls
// (bench_batched.cpp). Data, layout and byte arithmetic only, no device; tested on the host
// (tests/host/batched_corpus_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmkit/gemmkit.h"

namespace gemmkit::cli {

// One row: `batch` problems of one column-major GEMM, C (m x n) = op(A) op(B), cuBLAS's terms.
struct BatchedShape {
    const char* row_class;        // one of batched_classes()
    int64_t batch, m, n, k;
    gemmkit_op a, b;              // op(A), op(B)
    int64_t ld_pad = 0;           // lda, ldb and ldc exceed the stored rows by this many elements
    int64_t stride_pad = 0;       // each stride exceeds ld * (stored columns) by this many elements
    bool broadcast_b = false;     // stride_b = 0: every problem reads the same B (shared weights)
    bool pointer_arrays = false;  // device arrays of pointers into the strided allocation
                                  // (gemmkit_gemm_batched_ex, cublasGemmBatchedEx)
};

// torch.bmm(x, w) of x (batch, M, K) and w (batch, K, N), contiguous and row-major, is the
// column-major NN GEMM C^T = w^T x^T: m = N, n = M, k = K, lda = N, ldb = K, ldc = N, strides
// K*N, M*K and M*N. That is the call cuBLAS gets from torch, and the one the suite times.
constexpr BatchedShape from_bmm(const char* row_class, int64_t batch, int64_t M, int64_t N, int64_t K) {
    return {row_class, batch, N, M, K, GEMMKIT_OP_N, GEMMKIT_OP_N};
}

// The classes, in the order the corpus first uses them:
//   issue        the five BF16 torch.bmm shapes (from_bmm)
//   odd          odd sizes, no dimension a multiple of a tile
//   broadcast-b  stride_b = 0: a batch of activations times one weight matrix
//   padded       strides beyond the matrices (gaps between problems), and padded leading dimensions
//   ops          a batch of TN (attention scores: Q^T K)
//   pointers     pointer arrays, the same matrices as the 512 x 128^3 row
const std::vector<std::string>& batched_classes();

// The corpus, in run order.
const std::vector<BatchedShape>& batched_corpus();

// Where a row's matrices are: leading dimensions, strides (elements; 0: shared by every problem)
// and each operand's allocation, up to the end of its last problem's matrix.
struct BatchLayout {
    int64_t lda = 0, ldb = 0, ldc = 0;
    int64_t stride_a = 0, stride_b = 0, stride_c = 0;
    int64_t a_elements = 0, b_elements = 0, c_elements = 0;
};
BatchLayout layout_of(const BatchedShape& s);

// Elements from a column-major rows x cols matrix's first to its last (ld (cols - 1) + rows): the
// least a stride must be for the problems' matrices not to overlap.
int64_t matrix_extent(int64_t rows, int64_t cols, int64_t ld);

// "tight", "ld+3 stride+5", "B shared", "pointers": how the row's layout differs from torch's.
std::string layout_name(const BatchedShape& s);

// 2 m n k batch.
double batched_flops(const BatchedShape& s);

// Bytes of every distinct A, B and C, each counted once (a shared B once): the least the batch
// moves (beta = 0 writes C only).
double batched_bytes(const BatchedShape& s, size_t ab_size, size_t c_size);

}  // namespace gemmkit::cli
