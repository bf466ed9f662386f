// sgemm.02_coalesced — one thread per element of C, a warp along a column of C.
//
// Changed from 01: threadIdx.x now walks the rows i. In column-major storage the 32
// threads of a warp then write 32 consecutive floats of C (one 128-byte line) and read
// 32 consecutive floats of A (op N); B(p, j) is the same address for the whole warp (a broadcast).
// Bottleneck it removes: uncoalesced global accesses of step 01.
// What remains: every operand element is re-read from global memory (L1/L2) by each
// thread that needs it: 2 loads per FMA, about 0.25 FLOP per byte.
// Preconditions: none. Full speed with op(A) = N (with T, A's reads stride by lda).
// Measured: docs/ladder/fp32.md#step-02.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct CoalescedCfg {
    static constexpr int kBlock = 32;  // 32 x 32 = 1024 threads, one per C element
};

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(CoalescedCfg::kBlock * CoalescedCfg::kBlock) coalesced_kernel(GemmArgs<float> g) {
    const int i = blockIdx.x * CoalescedCfg::kBlock + threadIdx.x;  // row: varies fastest in a warp
    const int j = blockIdx.y * CoalescedCfg::kBlock + threadIdx.y;
    if (i >= g.m || j >= g.n) return;
    float acc = 0.0f;
    for (int p = 0; p < g.k; ++p)
        acc += g.A[op_offset<kTransA>(i, p, g.lda)] * g.B[op_offset<kTransB>(p, j, g.ldb)];
    store_c(g, i, j, acc);
}

inline cudaError_t launch_coalesced(const Problem& p, cudaStream_t stream) {
    using Cfg = CoalescedCfg;
    const dim3 block(Cfg::kBlock, Cfg::kBlock);  // one thread a C element
    return launch_tiles<float>(p, Cfg::kBlock, Cfg::kBlock, block, stream, [](auto ta, auto tb) {
        return coalesced_kernel<decltype(ta)::value, decltype(tb)::value>;
    });
}

}  // namespace gemmkit::sgemm
