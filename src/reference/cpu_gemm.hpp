// CPU reference GEMM with double accumulation (OpenMP over columns of C).
#pragma once

#include <cstdint>

#include "gemmkit/gemmkit.h"

namespace gemmkit::ref {

// out(i,j) = alpha * sum_p op(A)(i,p) op(B)(p,j) + beta * C(i,j), accumulated in double.
// Column-major inputs with their leading dimensions; `out` is m x n with leading dimension m.
// With beta == 0, C is not read (may be NULL). If `scale` is non-NULL it receives
// |alpha| * sum_p |op(A)(i,p)| |op(B)(p,j)| + |beta| |C(i,j)|: the magnitude that rounding
// errors scale with, used for the elementwise error bound (verify/compare.hpp).
template <class T>
void cpu_gemm(gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, double alpha, const T* A,
              int64_t lda, const T* B, int64_t ldb, double beta, const T* C, int64_t ldc, double* out,
              double* scale);

}  // namespace gemmkit::ref
