// CPU reference GEMM with double accumulation (OpenMP over columns of C), and the fused
// epilogue (gemmkit_epilogue) applied to its output.
#pragma once

#include <cstdint>

#include "gemmkit/gemmkit.h"

namespace gemmkit::ref {

// Below this many multiply-adds (or elements) the references and the comparison run on the
// calling thread: a batch test checks tens of thousands of tiny problems, and a thread team for
// each of them, in several test processes at once on one host, made a 70,000-problem test run
// for minutes (docs/results/2026-11-28-dist-copy-engines/, call 7's GPU suite).
inline constexpr int64_t kWorthAThreadTeam = int64_t{1} << 15;

// out(i,j) = alpha * sum_p op(A)(i,p) op(B)(p,j) + beta * C(i,j), accumulated in double.
// Column-major inputs with their leading dimensions; `out` is m x n with leading dimension m.
// With beta == 0, C is not read (may be NULL). If `scale` is non-NULL it receives
// |alpha| * sum_p |op(A)(i,p)| |op(B)(p,j)| + |beta| |C(i,j)|: the magnitude that rounding
// errors scale with, used for the elementwise error bound (verify/compare.hpp).
template <class T>
void cpu_gemm(gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, double alpha, const T* A,
              int64_t lda, const T* B, int64_t ldb, double beta, const T* C, int64_t ldc, double* out,
              double* scale);

// The activation of v in double, by the formulas of gemmkit.h (gemmkit_activation): ReLU keeps
// NaN (v < 0 is false for it); an unknown value is the identity, as NONE.
double activation_ref(gemmkit_activation act, double v);

// The fused epilogue on a reference output, in place: `out` (m x n, ld m, cpu_gemm's) gets
// bias[i] added to row i (bias: m values, or NULL for none), is copied to `pre_activation` (m x n,
// ld m; NULL: not written), then goes through the activation. `scale` (cpu_gemm's, NULL: none)
// gains |bias[i]|, the magnitude the added bias contributes to the rounding errors; the
// activation leaves it as it is (the caller allows for the activation's slope).
void cpu_epilogue(gemmkit_activation act, const double* bias, int64_t m, int64_t n, double* out, double* scale,
                  double* pre_activation);

}  // namespace gemmkit::ref
