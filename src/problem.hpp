// One GEMM call, as the API received it (column-major, cuBLAS semantics).
#pragma once

#include <cstdint>

#include "gemmkit/gemmkit.h"

namespace gemmkit {

struct Problem {
    gemmkit_op transa = GEMMKIT_OP_N;
    gemmkit_op transb = GEMMKIT_OP_N;
    int64_t m = 0, n = 0, k = 0;
    const void* A = nullptr;
    int64_t lda = 1;
    const void* B = nullptr;
    int64_t ldb = 1;
    void* C = nullptr;
    int64_t ldc = 1;
    // Host values of the compute type, widened to double (exact for float).
    double alpha = 1.0, beta = 0.0;
    gemmkit_dtype a_type = GEMMKIT_R_32F, b_type = GEMMKIT_R_32F, c_type = GEMMKIT_R_32F;
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;
};

// Rows of A as stored: m for op N, k for op T (likewise B: k for N, n for T).
inline int64_t stored_rows_a(const Problem& p) { return p.transa == GEMMKIT_OP_N ? p.m : p.k; }
inline int64_t stored_rows_b(const Problem& p) { return p.transb == GEMMKIT_OP_N ? p.k : p.n; }

// "NN", "NT", "TN" or "TT": op(A) then op(B).
inline const char* ops_name(gemmkit_op a, gemmkit_op b) {
    static const char* const kNames[2][2] = {{"NN", "NT"}, {"TN", "TT"}};
    return kNames[a == GEMMKIT_OP_T][b == GEMMKIT_OP_T];
}

// A and B are read only when there is a product to form.
inline bool reads_ab(const Problem& p) { return p.m > 0 && p.n > 0 && p.k > 0 && p.alpha != 0.0; }

// A, B and C start on `bytes` boundaries and each column (lda, ldb, ldc) keeps them there.
bool operands_aligned(const Problem& p, int bytes);

size_t dtype_size(gemmkit_dtype t);      // bytes per element; 0 for an invalid value
const char* dtype_name(gemmkit_dtype t);  // "f32", "f64", "f16", "bf16", or "invalid"

}  // namespace gemmkit
