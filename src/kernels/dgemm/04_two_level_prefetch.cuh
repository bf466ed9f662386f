// dgemm.04_two_level_prefetch — shared->register fragments double-buffered as well.
//
// Changed from 03: the 8 op(A) and 8 op(B) doubles of step p+1 are read from shared memory into
// a second set of fragment registers while the 64 DFMAs of step p run; the first step of the
// next slab is read right after the barrier that publishes it. So both levels prefetch:
// global->shared one slab ahead, shared->registers one k step ahead.
// Bottleneck it removes: shared-memory latency (~30 cycles) in front of every k step's DFMAs.
// Cost: a second fragment set, 16 doubles = 32 registers: 128 (accumulators) + 64 (fragments)
// + 16 (the prefetched slab) + addresses stays under the 255 a thread may have at 256 threads
// per block (ptxas, CUDA 13.0, sm_90a: 230-242 over the 8 instantiations, no spills). Steps
// 01-03 already use 214-240: ptxas spends the spare registers hoisting shared loads, so the
// occupancy (one block of 8 warps per SM) does not change.
// Preconditions: none for correctness; full speed with 16-byte alignment and even ld.
// Measured: docs/ladder/fp64.md#step-04. Within noise of step 03.
#pragma once

#include "kernels/dgemm/common.cuh"
#include "kernels/launch_tiles.cuh"

namespace gemmkit::dgemm {

struct TwoLevelPrefetchCfg {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
    static constexpr int kPad = 2;  // doubles: rows of 130 stay 16-byte aligned, transposing stores conflict-free
    static constexpr int kPairStride = 32;  // rows (columns) between a thread's pairs: 16 threads x 2
    static_assert(BM % TM == 0 && BN % TN == 0 && TM % 2 == 0 && TN % 2 == 0, "thread tiles are whole pairs");
    static_assert(BM / TM * 2 == kPairStride && BM == kPairStride * TM / 2, "16 thread rows x 4 pairs cover BM");
    static_assert(BN == kPairStride * TN / 2, "16 thread columns x 4 pairs cover BN");
    static_assert(BK % 2 == 0, "fragment buffers alternate; each slab must start on fragment buffer 0");
};

template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(TwoLevelPrefetchCfg::kThreads) two_level_prefetch_kernel(GemmArgs<double> g) {
    using Cfg = TwoLevelPrefetchCfg;
    constexpr int SA = Cfg::BM + Cfg::kPad, SB = Cfg::BN + Cfg::kPad;
    constexpr int kPS = Cfg::kPairStride;
    __shared__ __align__(16) double sA[2][Cfg::BK][SA];  // [buffer][p][i], padded
    __shared__ __align__(16) double sB[2][Cfg::BK][SB];  // [buffer][p][j], padded
    PairLoader<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec> loadA;
    PairLoader<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec> loadB;

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    constexpr int kThreadRows = Cfg::BM / Cfg::TM;  // 16
    const int ti = threadIdx.x % kThreadRows * 2;   // rows ti + 32q + {0, 1}
    const int tj = threadIdx.x / kThreadRows * 2;   // cols tj + 32q + {0, 1}
    auto load_slab_to_registers = [&](int p0) {
        loadA.load(g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda, g.m - i0, g.k - p0);
        loadB.load(g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb, g.n - j0, g.k - p0);
    };
    auto store_slab = [&](int buf) {
        loadA.template store<SA>(&sA[buf][0][0]);
        loadB.template store<SB>(&sB[buf][0][0]);
    };
    double rA[2][Cfg::TM], rB[2][Cfg::TN];  // [fragment buffer][value]
    auto load_fragments = [&](int frag, int buf, int p) {
#pragma unroll
        for (int q = 0; q < Cfg::TM / 2; ++q)
            *reinterpret_cast<double2*>(&rA[frag][2 * q]) = *reinterpret_cast<const double2*>(&sA[buf][p][ti + q * kPS]);
#pragma unroll
        for (int q = 0; q < Cfg::TN / 2; ++q)
            *reinterpret_cast<double2*>(&rB[frag][2 * q]) = *reinterpret_cast<const double2*>(&sB[buf][p][tj + q * kPS]);
    };

    double acc[Cfg::TM][Cfg::TN] = {};  // acc[r][c] is C(i0 + ti + 32(r/2) + r%2, j0 + tj + 32(c/2) + c%2)
    load_slab_to_registers(0);
    store_slab(0);
    __syncthreads();
    load_fragments(0, 0, 0);
    int buf = 0;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        const bool has_next = p0 + Cfg::BK < g.k;
        if (has_next) load_slab_to_registers(p0 + Cfg::BK);  // in flight during the DFMAs below
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            // p is a compile-time constant here, so fragment indices stay in registers.
            if (p + 1 < Cfg::BK) load_fragments((p + 1) % 2, buf, p + 1);
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] = fma(rA[p % 2][r], rB[p % 2][c], acc[r][c]);
        }
        if (has_next) {
            store_slab(buf ^ 1);  // the other buffer: nobody reads it this slab
            __syncthreads();
            buf ^= 1;
            load_fragments(0, buf, 0);  // step 0 of the next slab
        }
    }
    // For each (q, c) a half-warp writes 16 consecutive double2s of one column: 256 bytes.
    const bool vec_c = aligned16<double>(g.C, g.ldc);
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
#pragma unroll
    for (int c = 0; c < Cfg::TN; ++c) {
        const int j = j0 + tj + c / 2 * kPS + c % 2;
        if (j >= g.n) continue;
#pragma unroll
        for (int q = 0; q < Cfg::TM / 2; ++q) {
            const int i = i0 + ti + q * kPS;
            if (i < g.m)
                store_c2(g, epi, i, j, acc[2 * q][c], acc[2 * q + 1][c], vec_c);
        }
    }
    finish_pair_tile<Cfg::TM, Cfg::TN, kPS>(g, i0 + ti, j0 + tj);
}

inline cudaError_t launch_two_level_prefetch(const Problem& p, cudaStream_t stream) {
    using Cfg = TwoLevelPrefetchCfg;
    return launch_tiles_vec<double>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return two_level_prefetch_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::dgemm
