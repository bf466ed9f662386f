// sgemm.07_bank_conflict_free — every shared-memory access of a warp hits distinct banks.
//
// Changed from 06: (1) a thread's 8x8 tile is split into four 4x4 quadrants 64 rows and
// 64 columns apart, so the 8 lanes of each quarter-warp read 8 consecutive float4s of sA
// (128 bytes, all 32 banks) instead of float4s 32 bytes apart (2 lanes per bank);
// (2) shared rows are padded by 4 floats (BM + 4), so the transposing stores of step 06
// (groups along k, four rows apart) land in distinct banks too.
// C is now written one float4 per column quadrant when C is 16-byte aligned.
// Bottleneck it removes: 2-way conflicts on every op(A) read, and up to 2-way on stores.
// What remains: one barrier pair per K-slab with nothing in flight across it: the SM idles
// while the next slab loads. Step 08 double-buffers.
// Preconditions: none for correctness; full speed with 16-byte alignment.
// Measured: docs/ladder/fp32.md#step-07.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct BankConflictFreeCfg {
    static constexpr int BM = 128, BN = 128, BK = 8;
    static constexpr int kQuad = 4;                        // a thread tile is 2x2 quadrants of 4x4
    static constexpr int kThreads = (BM / 8) * (BN / 8);   // 256, each owning 8x8 results
    static constexpr int kPad = 4;                         // floats: keeps rows 16-byte aligned
    static_assert((BM + kPad) % 32 != 0, "padded rows must shift banks");
};

template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(BankConflictFreeCfg::kThreads) bank_conflict_free_kernel(GemmArgs<float> g) {
    using Cfg = BankConflictFreeCfg;
    constexpr int SA = Cfg::BM + Cfg::kPad, SB = Cfg::BN + Cfg::kPad;
    __shared__ __align__(16) float sA[Cfg::BK][SA];  // sA[p][i], padded
    __shared__ __align__(16) float sB[Cfg::BK][SB];  // sB[p][j], padded
    SlabLoader<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec> loadA;
    SlabLoader<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec> loadB;

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    constexpr int kThreadRows = Cfg::BM / 8;                    // 16
    const int ti = threadIdx.x % kThreadRows * Cfg::kQuad;      // rows ti..ti+3 and ti+BM/2..
    const int tj = threadIdx.x / kThreadRows * Cfg::kQuad;      // cols tj..tj+3 and tj+BN/2..
    float acc[8][8] = {};  // [row quadrant*4 + r][col quadrant*4 + c]
    float rA[8], rB[8];
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        loadA.load(g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda, g.m - i0, g.k - p0);
        loadB.load(g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb, g.n - j0, g.k - p0);
        loadA.template store<SA>(&sA[0][0]);
        loadB.template store<SB>(&sB[0][0]);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            *reinterpret_cast<float4*>(&rA[0]) = *reinterpret_cast<const float4*>(&sA[p][ti]);
            *reinterpret_cast<float4*>(&rA[4]) = *reinterpret_cast<const float4*>(&sA[p][ti + Cfg::BM / 2]);
            *reinterpret_cast<float4*>(&rB[0]) = *reinterpret_cast<const float4*>(&sB[p][tj]);
            *reinterpret_cast<float4*>(&rB[4]) = *reinterpret_cast<const float4*>(&sB[p][tj + Cfg::BN / 2]);
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[r][c] += rA[r] * rB[c];
        }
        __syncthreads();
    }
    store_quadrants<Cfg::BM / 2, Cfg::BN / 2>(g, acc, i0 + ti, j0 + tj);
}

inline cudaError_t launch_bank_conflict_free(const Problem& p, cudaStream_t stream) {
    using Cfg = BankConflictFreeCfg;
    return launch_tiles_vec<float>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return bank_conflict_free_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::sgemm
