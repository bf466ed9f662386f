// dgemm.01_unroll_prefetch — register-blocked FP64 GEMM with the next K-slab prefetched.
//
// The first FP64 step starts where the FP32 ladder's step 05 ended: a 128x128 block tile,
// BK = 8, 256 threads each owning 8x8 results, so every global element feeds 128 FMAs. Two
// things are added on top. (1) Every loop over the thread tile and the K-slab is unrolled, so
// the 64 DFMAs of a k step are straight-line code with compile-time register indices.
// (2) The next K-slab is loaded from global memory into registers right after the current one
// is published in shared memory, so those loads are in flight during the current slab's 512
// DFMAs instead of stalling the block at the top of the next slab.
// Bottleneck it removes: global-memory latency in front of every slab (one shared buffer still
// needs two barriers per slab: one to publish it, one before it is overwritten).
// Accumulators: 8x8 doubles = 128 of the 255 registers a thread may have; __launch_bounds__(256)
// lets ptxas use them all (one block of 8 warps per SM).
// Shared layout, conflict-free: a thread's rows are ti + 16r (r = 0..7), not 8 consecutive
// rows, so for each r a half-warp reads 16 consecutive doubles of sA (all 32 banks once); its
// columns tj + 16c are the same for a whole half-warp (one broadcast). Consecutive rows would
// put lanes 64 bytes apart: 8-way conflicts. Rows are padded to 130 doubles for the stores.
// Preconditions: none (any size, ld, op, 8-byte alignment); 8-byte loads everywhere.
// Measured: docs/ladder/fp64.md#step-01.
#pragma once

#include "kernels/dgemm/common.cuh"
#include "kernels/launch_tiles.cuh"

namespace gemmkit::dgemm {

struct UnrollPrefetchCfg {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
    static constexpr int kPad = 2;  // doubles: rows of 130 make the transposing slab stores conflict-free
    static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles cover the block tile exactly");
    static_assert(BM / TM == 16, "a half-warp spans the 16 thread rows: conflict-free sA reads, broadcast sB");
    // 8 x 130 doubles x 2 operands = 16.3 KiB of static shared memory.
};

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(UnrollPrefetchCfg::kThreads) unroll_prefetch_kernel(GemmArgs<double> g) {
    using Cfg = UnrollPrefetchCfg;
    constexpr int SA = Cfg::BM + Cfg::kPad, SB = Cfg::BN + Cfg::kPad;
    __shared__ double sA[Cfg::BK][SA];  // [p][i], padded
    __shared__ double sB[Cfg::BK][SB];  // [p][j], padded
    ElementLoader<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA> loadA;
    ElementLoader<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB> loadB;

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    constexpr int kThreadRows = Cfg::BM / Cfg::TM;  // 16
    const int ti = threadIdx.x % kThreadRows;       // rows ti, ti+16, ..., ti+112
    const int tj = threadIdx.x / kThreadRows;       // cols tj, tj+16, ..., tj+112
    auto load_slab_to_registers = [&](int p0) {
        loadA.load(g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda, g.m - i0, g.k - p0);
        loadB.load(g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb, g.n - j0, g.k - p0);
    };

    double acc[Cfg::TM][Cfg::TN] = {};  // acc[r][c] is C(i0 + ti + 16r, j0 + tj + 16c)
    double rA[Cfg::TM], rB[Cfg::TN];
    load_slab_to_registers(0);
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        loadA.template store<SA>(&sA[0][0]);
        loadB.template store<SB>(&sB[0][0]);
        __syncthreads();
        if (p0 + Cfg::BK < g.k) load_slab_to_registers(p0 + Cfg::BK);  // in flight during the DFMAs below
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r) rA[r] = sA[p][ti + r * kThreadRows];
#pragma unroll
            for (int c = 0; c < Cfg::TN; ++c) rB[c] = sB[p][tj + c * kThreadRows];
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] = fma(rA[r], rB[c], acc[r][c]);
        }
        __syncthreads();  // everyone is done with the slab before the next one overwrites it
    }
    // For each (r, c) a half-warp writes 16 consecutive doubles of one column: 128 bytes.
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
#pragma unroll
    for (int c = 0; c < Cfg::TN; ++c) {
        const int j = j0 + tj + c * kThreadRows;
        if (j >= g.n) continue;
#pragma unroll
        for (int r = 0; r < Cfg::TM; ++r) {
            const int i = i0 + ti + r * kThreadRows;
            if (i < g.m) store_c_biased(g, epi, i, j, acc[r][c]);
        }
    }
    finish_stored(epi, g.C, g.ldc, g.m, g.n, Cfg::TM * Cfg::TN, [&](int v) {
        return make_int2(i0 + ti + v % Cfg::TM * kThreadRows, j0 + tj + v / Cfg::TM * kThreadRows);
    });
}

inline cudaError_t launch_unroll_prefetch(const Problem& p, cudaStream_t stream) {
    using Cfg = UnrollPrefetchCfg;
    return launch_tiles<double>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb) {
        return unroll_prefetch_kernel<decltype(ta)::value, decltype(tb)::value>;
    });
}

}  // namespace gemmkit::dgemm
