// dgemm.03_vector_smem — 16-byte shared and global accesses.
//
// Changed from 02: a thread's 8 rows are now 4 pairs, 2ti + 32q + {0, 1} (q = 0..3), and its
// columns likewise, so each k step reads its fragments as 4 + 4 double2s (LDS.128) instead of
// 16 LDS.64. A quarter-warp's 8 lanes read 8 consecutive double2s of sA (128 bytes, all 32
// banks once); the sB pairs are the same for a whole half-warp (broadcast): conflict-free.
// Pairs 32 rows apart, not 8 consecutive rows, are what keeps it so: consecutive rows would put
// a quarter-warp's lanes 64 bytes apart, 4 of them on the same 4 banks (4-way conflicts).
// Slabs move in pairs of elements that are consecutive in global memory (PairLoader): one
// 16-byte global load per pair when A and B are 16-byte aligned with even lda, ldb (a template
// flag chosen at launch), else two 8-byte loads; pairs along mn are stored as one double2.
// C is written one double2 per row pair when C is 16-byte aligned with even ldc.
// Bottleneck it removes: shared-memory instruction count (16 -> 8 per 64 DFMAs, half the
// LSU issue slots) and half the global load instructions.
// What remains: each k step's LDS.128s sit right before the DFMAs that need them, so shared
// latency is exposed 8 times per slab. Step 04 prefetches those too.
// Preconditions: none for correctness; full speed with 16-byte alignment and even ld.
// Measured: docs/ladder/fp64.md#step-03.
#pragma once

#include "kernels/dgemm/common.cuh"
#include "kernels/launch_tiles.cuh"

namespace gemmkit::dgemm {

struct VectorSmemCfg {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
    static constexpr int kPad = 2;  // doubles: rows of 130 stay 16-byte aligned, transposing stores conflict-free
    static constexpr int kPairStride = 32;  // rows (columns) between a thread's pairs: 16 threads x 2
    static_assert(BM % TM == 0 && BN % TN == 0 && TM % 2 == 0 && TN % 2 == 0, "thread tiles are whole pairs");
    static_assert(BM / TM * 2 == kPairStride && BM == kPairStride * TM / 2, "16 thread rows x 4 pairs cover BM");
    static_assert(BN == kPairStride * TN / 2, "16 thread columns x 4 pairs cover BN");
    // 2 buffers x 8 x 130 doubles x 2 operands = 32.5 KiB: under the 48 KiB static limit.
};

template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(VectorSmemCfg::kThreads) vector_smem_kernel(GemmArgs<double> g) {
    using Cfg = VectorSmemCfg;
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

    double acc[Cfg::TM][Cfg::TN] = {};  // acc[r][c] is C(i0 + ti + 32(r/2) + r%2, j0 + tj + 32(c/2) + c%2)
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
            for (int q = 0; q < Cfg::TM / 2; ++q)
                *reinterpret_cast<double2*>(&rA[2 * q]) = *reinterpret_cast<const double2*>(&sA[buf][p][ti + q * kPS]);
#pragma unroll
            for (int q = 0; q < Cfg::TN / 2; ++q)
                *reinterpret_cast<double2*>(&rB[2 * q]) = *reinterpret_cast<const double2*>(&sB[buf][p][tj + q * kPS]);
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] = fma(rA[r], rB[c], acc[r][c]);
        }
        if (has_next) store_slab(buf ^ 1);  // the other buffer: nobody reads it this slab
        __syncthreads();
        buf ^= 1;
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

inline cudaError_t launch_vector_smem(const Problem& p, cudaStream_t stream) {
    using Cfg = VectorSmemCfg;
    return launch_tiles_vec<double>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return vector_smem_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::dgemm
