// sgemm.04_register_blocking_1d — each thread computes 8 elements of one row of C.
//
// Changed from 03: a thread keeps TN = 8 accumulators C(i, j0..j0+7). Per k it loads one
// op(A) value from shared memory into a register and reuses it for 8 FMAs, against 8
// broadcast op(B) loads: 9 shared loads per 8 FMAs instead of 16. The tile grows to
// 64x64 with BK = 8, so global traffic per FLOP halves again (16 FLOP per byte).
// Bottleneck it removes: half of the shared-memory loads of step 03.
// What remains: the op(B) values are still reloaded for every row: step 05 blocks both ways.
// Preconditions: none. Full speed for all four ops.
// Measured: docs/ladder/fp32.md#step-04.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct RegisterBlocking1dCfg {
    static constexpr int BM = 64, BN = 64, BK = 8, TN = 8;
    static constexpr int kThreads = BM * BN / TN;  // 512
    static_assert(BN % TN == 0, "a thread's TN columns lie inside the tile");
    static_assert(BM % 32 == 0, "a warp's 32 threads share one column group, so op(B) reads broadcast");
};

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(RegisterBlocking1dCfg::kThreads) register_blocking_1d_kernel(GemmArgs<float> g) {
    using Cfg = RegisterBlocking1dCfg;
    __shared__ float sA[Cfg::BK][Cfg::BM];  // sA[p][i]
    __shared__ float sB[Cfg::BK][Cfg::BN];  // sB[p][j]

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    const int ti = threadIdx.x % Cfg::BM;             // this thread's row in the tile
    const int tj = threadIdx.x / Cfg::BM * Cfg::TN;   // its first column
    float acc[Cfg::TN] = {};
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        load_slab<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA>(&sA[0][0], g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda,
                                                            g.m - i0, g.k - p0);
        load_slab<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB>(&sB[0][0], g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb,
                                                           g.n - j0, g.k - p0);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            const float a = sA[p][ti];
#pragma unroll
            for (int c = 0; c < Cfg::TN; ++c) acc[c] += a * sB[p][tj + c];
        }
        __syncthreads();
    }
    const int i = i0 + ti;
    if (i >= g.m) return;
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
#pragma unroll
    for (int c = 0; c < Cfg::TN; ++c) {
        const int j = j0 + tj + c;
        if (j < g.n) store_c_biased(g, epi, i, j, acc[c]);
    }
    finish_stored(epi, g.C, g.ldc, g.m, g.n, Cfg::TN, [&](int c) { return make_int2(i, j0 + tj + c); });
}

inline cudaError_t launch_register_blocking_1d(const Problem& p, cudaStream_t stream) {
    using Cfg = RegisterBlocking1dCfg;
    return launch_tiles<float>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb) {
        return register_blocking_1d_kernel<decltype(ta)::value, decltype(tb)::value>;
    });
}

}  // namespace gemmkit::sgemm
