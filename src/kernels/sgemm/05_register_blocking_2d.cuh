// sgemm.05_register_blocking_2d — each thread computes an 8x8 block of C.
//
// Changed from 04: a thread keeps TM x TN = 8x8 accumulators. Per k it loads 8 op(A) and
// 8 op(B) values into registers and does their 64 outer-product FMAs: 16 shared loads per
// 64 FMAs (was 9 per 8). The block tile is 128x128 with BK = 8 and 256 threads, so each
// global element feeds 128 FMAs: 32 FLOP per byte of global traffic.
// Bottleneck it removes: shared-memory bandwidth per FMA (4x less than step 04).
// What remains: scalar loads, and a warp's op(A) reads fall 4 to a bank (16 threads read
// addresses 8 floats apart): step 06 vectorizes, step 07 removes the conflicts.
// Preconditions: none. Full speed for all four ops.
// Measured: docs/ladder/fp32.md#step-05.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct RegisterBlocking2dCfg {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
    static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles cover the block tile exactly");
    static_assert(BK * BM % kThreads == 0 && BK * BN % kThreads == 0, "slabs split evenly over the threads");
};

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(RegisterBlocking2dCfg::kThreads) register_blocking_2d_kernel(GemmArgs<float> g) {
    using Cfg = RegisterBlocking2dCfg;
    __shared__ float sA[Cfg::BK][Cfg::BM];  // sA[p][i]
    __shared__ float sB[Cfg::BK][Cfg::BN];  // sB[p][j]

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    constexpr int kThreadRows = Cfg::BM / Cfg::TM;           // 16 thread tiles down a column
    const int ti = threadIdx.x % kThreadRows * Cfg::TM;      // first row of this thread's 8x8 tile
    const int tj = threadIdx.x / kThreadRows * Cfg::TN;      // first column
    float acc[Cfg::TM][Cfg::TN] = {};
    float rA[Cfg::TM], rB[Cfg::TN];
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        load_slab<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA>(&sA[0][0], g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda,
                                                            g.m - i0, g.k - p0);
        load_slab<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB>(&sB[0][0], g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb,
                                                           g.n - j0, g.k - p0);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r) rA[r] = sA[p][ti + r];
#pragma unroll
            for (int c = 0; c < Cfg::TN; ++c) rB[c] = sB[p][tj + c];
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] += rA[r] * rB[c];
        }
        __syncthreads();
    }
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
#pragma unroll
    for (int c = 0; c < Cfg::TN; ++c) {
        const int j = j0 + tj + c;
#pragma unroll
        for (int r = 0; r < Cfg::TM; ++r) {
            const int i = i0 + ti + r;
            if (i < g.m && j < g.n) store_c_biased(g, epi, i, j, acc[r][c]);
        }
    }
    finish_stored(epi, g.C, g.ldc, g.m, g.n, Cfg::TM * Cfg::TN,
                  [&](int v) { return make_int2(i0 + ti + v % Cfg::TM, j0 + tj + v / Cfg::TM); });
}

inline cudaError_t launch_register_blocking_2d(const Problem& p, cudaStream_t stream) {
    using Cfg = RegisterBlocking2dCfg;
    return launch_tiles<float>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb) {
        return register_blocking_2d_kernel<decltype(ta)::value, decltype(tb)::value>;
    });
}

}  // namespace gemmkit::sgemm
