// sgemm.10_warp_tiling — block tile -> warp tile -> thread tile, as in CUTLASS.
//
// Changed from 09: each warp owns a WM x WN = 64x32 sub-tile of the 128x128 block tile; its
// 32 lanes are an 8x4 grid of threads whose 4x4 quadrants repeat 32 rows and 16 columns
// apart inside the warp tile. Per k step a warp now reads 64 op(A) + 32 op(B) floats
// (8 and 4 distinct float4s, each a broadcast or a full 128-byte row: no conflicts) instead
// of 128 + 16: a third less shared traffic for the same 2048 FMAs.
// Bottleneck it removes: shared-memory bandwidth per FMA, and the scattered footprint of a
// warp's C writes (a 64x32 window instead of one spanning all 128 rows).
// Preconditions: none for correctness; full speed with 16-byte alignment.
// Measured: docs/ladder/fp32.md#step-10. Slower than 08, against the prediction: the extra
// registers leave one block (8 warps) per SM instead of two (gemmkit explain shows it).
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct WarpTilingCfg {
    static constexpr int BM = 128, BN = 128, BK = 8;
    static constexpr int WM = 64, WN = 32;            // warp tile
    static constexpr int kLanesM = 8, kLanesN = 4;    // lane grid inside a warp
    static constexpr int kQuad = 4;                   // thread tile = 2x2 quadrants of 4x4
    static constexpr int kWarps = (BM / WM) * (BN / WN);  // 8
    static constexpr int kThreads = 32 * kWarps;          // 256
    static constexpr int kPad = 4;
    static_assert(kLanesM * kLanesN == 32, "one warp");
    static_assert(WM == 2 * kLanesM * kQuad && WN == 2 * kLanesN * kQuad, "2x2 quadrants cover the warp tile");
};

template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(WarpTilingCfg::kThreads) warp_tiling_kernel(GemmArgs<float> g) {
    using Cfg = WarpTilingCfg;
    constexpr int SA = Cfg::BM + Cfg::kPad, SB = Cfg::BN + Cfg::kPad;
    __shared__ __align__(16) float sA[2][Cfg::BK][SA];  // [buffer][p][i]
    __shared__ __align__(16) float sB[2][Cfg::BK][SB];  // [buffer][p][j]
    SlabLoader<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec> loadA;
    SlabLoader<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec> loadB;

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int kRowStep = Cfg::WM / 2, kColStep = Cfg::WN / 2;  // quadrant spacing: 32 rows, 16 columns
    const int ti = warp % (Cfg::BM / Cfg::WM) * Cfg::WM + lane % Cfg::kLanesM * Cfg::kQuad;
    const int tj = warp / (Cfg::BM / Cfg::WM) * Cfg::WN + lane / Cfg::kLanesM * Cfg::kQuad;
    auto load_slab_to_registers = [&](int p0) {
        loadA.load(g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda, g.m - i0, g.k - p0);
        loadB.load(g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb, g.n - j0, g.k - p0);
    };
    auto store_slab = [&](int buf) {
        loadA.template store<SA>(&sA[buf][0][0]);
        loadB.template store<SB>(&sB[buf][0][0]);
    };
    float rA[2][8], rB[2][8];
    auto load_fragments = [&](int frag, int buf, int p) {
        *reinterpret_cast<float4*>(&rA[frag][0]) = *reinterpret_cast<const float4*>(&sA[buf][p][ti]);
        *reinterpret_cast<float4*>(&rA[frag][4]) = *reinterpret_cast<const float4*>(&sA[buf][p][ti + kRowStep]);
        *reinterpret_cast<float4*>(&rB[frag][0]) = *reinterpret_cast<const float4*>(&sB[buf][p][tj]);
        *reinterpret_cast<float4*>(&rB[frag][4]) = *reinterpret_cast<const float4*>(&sB[buf][p][tj + kColStep]);
    };

    float acc[8][8] = {};
    load_slab_to_registers(0);
    store_slab(0);
    __syncthreads();
    load_fragments(0, 0, 0);
    int buf = 0;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        const bool has_next = p0 + Cfg::BK < g.k;
        if (has_next) load_slab_to_registers(p0 + Cfg::BK);
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            if (p + 1 < Cfg::BK) load_fragments((p + 1) % 2, buf, p + 1);
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[r][c] += rA[p % 2][r] * rB[p % 2][c];
        }
        if (has_next) {
            store_slab(buf ^ 1);
            __syncthreads();
            buf ^= 1;
            load_fragments(0, buf, 0);
        }
    }
    static_assert(Cfg::BK % 2 == 0, "fragment buffers alternate; the next slab must start on buffer 0");
    store_quadrants<kRowStep, kColStep>(g, acc, i0 + ti, j0 + tj);
}

inline cudaError_t launch_warp_tiling(const Problem& p, cudaStream_t stream) {
    using Cfg = WarpTilingCfg;
    return launch_tiles_vec<float>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return warp_tiling_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::sgemm
