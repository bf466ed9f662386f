// sgemm.01_naive — one thread per element of C.
//
// Idea: thread (x, y) of a 32x32 block computes C(i, j) = alpha * sum_p op(A)(i,p) op(B)(p,j) + beta*C(i,j)
// straight from global memory.
// Bottleneck it shows: threadIdx.x walks the *columns* j of a column-major C, so the 32
// threads of a warp write C ldc floats apart and read B ldb floats apart: 32 separate
// 32-byte sectors per access where one 128-byte line would do. Step 02 only swaps x and y.
// Preconditions: none (any m, n, k, ld, op, 4-byte alignment).
// Measured: docs/ladder/fp32.md#step-01.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct NaiveCfg {
    static constexpr int kBlock = 32;  // 32 x 32 = 1024 threads, one per C element
};

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(NaiveCfg::kBlock * NaiveCfg::kBlock) naive_kernel(GemmArgs<float> g) {
    const int j = blockIdx.y * NaiveCfg::kBlock + threadIdx.x;  // column: varies fastest in a warp
    const int i = blockIdx.x * NaiveCfg::kBlock + threadIdx.y;
    if (i >= g.m || j >= g.n) return;
    float acc = 0.0f;
    for (int p = 0; p < g.k; ++p)
        acc += g.A[op_offset<kTransA>(i, p, g.lda)] * g.B[op_offset<kTransB>(p, j, g.ldb)];
    store_c(g, i, j, acc);
}

inline cudaError_t launch_naive(const Problem& p, cudaStream_t stream) {
    using Cfg = NaiveCfg;
    const dim3 block(Cfg::kBlock, Cfg::kBlock);  // one thread a C element
    return launch_tiles<float>(p, Cfg::kBlock, Cfg::kBlock, block, stream, [](auto ta, auto tb) {
        return naive_kernel<decltype(ta)::value, decltype(tb)::value>;
    });
}

}  // namespace gemmkit::sgemm
