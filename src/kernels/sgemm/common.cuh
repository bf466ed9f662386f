// Device helpers shared by the FP32 SIMT ladder (column-major, cuBLAS semantics).
#pragma once

#include <cstdint>

#include "kernels/launch_common.cuh"

namespace gemmkit::sgemm {

// Offset of op(X)(row, col) in a column-major X: op N reads X[row + col*ld], op T reads X[col + row*ld].
template <bool kTrans>
__device__ __forceinline__ int64_t op_offset(int row, int col, int64_t ld) {
    return kTrans ? col + row * ld : row + col * ld;
}

// C = alpha*acc + beta*C, without reading C when beta == 0 (NaN in C must not leak).
__device__ __forceinline__ void store_c(float* c, float acc, float alpha, float beta) {
    *c = beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * *c);
}

// Copies one K-slab of an operand into shared memory: s[p][mn] for p < BK, mn < BMN,
// zero-filling past mn_count / k_count so the FMA loop needs no bounds checks.
// `x` points at the slab's first element. "mn" is the row of op(A) or the column of op(B):
//   kMnContiguous  -> element (mn, p) at x[mn + p*ld]   (A with op N, B with op T)
//   !kMnContiguous -> element (mn, p) at x[p + mn*ld]   (A with op T, B with op N)
// Consecutive threads take consecutive global addresses in both cases, so loads coalesce.
// Equivalent to: for each (p, mn) in the slab: s[p][mn] = in range ? x(mn, p) : 0.
template <int BK, int BMN, int kThreads, bool kMnContiguous, int kRowStride = BMN>
__device__ __forceinline__ void load_slab(float* s, const float* x, int64_t ld, int mn_count, int k_count) {
    static_assert(BK * BMN % kThreads == 0, "every thread copies the same number of elements");
    const int tid = threadIdx.x + threadIdx.y * blockDim.x;
#pragma unroll
    for (int it = 0; it < BK * BMN / kThreads; ++it) {
        const int e = tid + it * kThreads;
        const int mn = kMnContiguous ? e % BMN : e / BK;
        const int p = kMnContiguous ? e / BMN : e % BK;
        const bool inside = mn < mn_count && p < k_count;
        s[p * kRowStride + mn] = inside ? x[kMnContiguous ? mn + p * ld : p + mn * ld] : 0.0f;
    }
}

}  // namespace gemmkit::sgemm
