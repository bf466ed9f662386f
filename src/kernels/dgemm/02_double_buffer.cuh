// dgemm.02_double_buffer — two shared buffers: one barrier per K-slab.
//
// Changed from 01: sA and sB have two buffers each. The slab computed now sits in one buffer
// while the prefetched registers are stored into the other after the DFMAs, so a single
// __syncthreads() per slab both publishes the new buffer and retires the old one (no thread can
// still be reading the buffer that the next slab overwrites: it was last read a barrier ago).
// Bottleneck it removes: the second barrier per slab, where all 8 warps wait for the slowest
// before any store may begin; with one block per SM nothing else covers that wait.
// What remains: 8-byte shared accesses (16 LDS.64 per 64 DFMAs) and 8-byte global loads.
// Preconditions: none (any size, ld, op, 8-byte alignment).
// Measured: docs/ladder/fp64.md#step-02. No gain over step 01: the shared-memory
// fragment loads, not the barrier, limit.
#pragma once

#include "kernels/dgemm/common.cuh"
#include "kernels/launch_tiles.cuh"

namespace gemmkit::dgemm {

struct DoubleBufferCfg {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
    static constexpr int kPad = 2;  // doubles: rows of 130 make the transposing slab stores conflict-free
    static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles cover the block tile exactly");
    static_assert(BM / TM == 16, "a half-warp spans the 16 thread rows: conflict-free sA reads, broadcast sB");
    // 2 buffers x 8 x 130 doubles x 2 operands = 32.5 KiB: under the 48 KiB static limit.
};

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(DoubleBufferCfg::kThreads) double_buffer_kernel(GemmArgs<double> g) {
    using Cfg = DoubleBufferCfg;
    constexpr int SA = Cfg::BM + Cfg::kPad, SB = Cfg::BN + Cfg::kPad;
    __shared__ double sA[2][Cfg::BK][SA];  // [buffer][p][i], padded
    __shared__ double sB[2][Cfg::BK][SB];  // [buffer][p][j], padded
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
    auto store_slab = [&](int buf) {
        loadA.template store<SA>(&sA[buf][0][0]);
        loadB.template store<SB>(&sB[buf][0][0]);
    };

    double acc[Cfg::TM][Cfg::TN] = {};  // acc[r][c] is C(i0 + ti + 16r, j0 + tj + 16c)
    double rA[Cfg::TM], rB[Cfg::TN];
    load_slab_to_registers(0);
    store_slab(0);
    __syncthreads();
    int buf = 0;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        const bool has_next = p0 + Cfg::BK < g.k;
        if (has_next) load_slab_to_registers(p0 + Cfg::BK);  // in flight during the DFMAs below
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r) rA[r] = sA[buf][p][ti + r * kThreadRows];
#pragma unroll
            for (int c = 0; c < Cfg::TN; ++c) rB[c] = sB[buf][p][tj + c * kThreadRows];
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] = fma(rA[r], rB[c], acc[r][c]);
        }
        if (has_next) store_slab(buf ^ 1);  // the other buffer: nobody reads it this slab
        __syncthreads();
        buf ^= 1;
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

inline cudaError_t launch_double_buffer(const Problem& p, cudaStream_t stream) {
    using Cfg = DoubleBufferCfg;
    return launch_tiles<double>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb) {
        return double_buffer_kernel<decltype(ta)::value, decltype(tb)::value>;
    });
}

}  // namespace gemmkit::dgemm
