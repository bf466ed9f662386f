// The FP64 tensor-core steps' configurations (07-09) and step 08's plan of a problem, as plain
// constants and host arithmetic: the kernels (07_dmma.cuh, 08_dmma_stream_k.cuh,
// 09_sized_tiles.cuh) and the plan's rules (src/plan/dgemm_rules.cu) read the same ones. The
// rules include only this file, so that they compile none of the kernels.
#pragma once

#include <cstdint>

#include "kernels/dgemm/stream_k_policy.hpp"

namespace gemmkit::dgemm {

// Shared bytes of a warp ring's mbarriers (warp_ring.cuh): full[kStages], then empty[kStages].
constexpr int warp_ring_barrier_bytes(int stages) { return 2 * stages * 8; }

template <int BM_, int BN_, int WM_, int WN_, int kStages_, int kMinBlocks_, bool kFragsAheadForAT_ = false>
struct DmmaTileCfg {
    static constexpr int BM = BM_, BN = BN_, BK = 16, WM = WM_, WN = WN_, kStages = kStages_;
    static constexpr int kMinBlocks = kMinBlocks_;  // blocks an SM: __launch_bounds__'s register cap
    // Step 07's kernel loads fragments a k8 step ahead where A is op T (DmmaBlock::accumulate).
    // Set for the 128 x 128 tiles alone, where it measured faster for TN and TT; with A op N,
    // step 08's shares and the smaller tiles it lost (docs/ladder/fp64.md#lab-frags-ahead).
    static constexpr bool kFragsAheadForAT = kFragsAheadForAT_;
    // The DMMA blocks' 16-byte copies (steps 07-09) keep each thread's offsets (CopyPlan::keep) in
    // tiles of 1 or 2 blocks an SM: 2-7% less time there; the 64 x 64 tiles (3 blocks) lost 2%
    // at 1000^3 (docs/ladder/fp64.md#lab-copy-plan-kept).
    static constexpr bool kKeepCopyOffsets = kMinBlocks_ < 3;
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
    static constexpr int kWarps = kWarpsM * kWarpsN;
    static constexpr int kThreads = 32 * kWarps;
    static constexpr int MI = WM / 16, NI = WN / 8;           // 4 x 4 mma tiles of 16 x 8 a warp
    static constexpr int kRingBytes = kStages * (BM + BN) * BK * static_cast<int>(sizeof(double));
    static constexpr int kSmemBytes = kRingBytes + warp_ring_barrier_bytes(kStages);
    static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
    static_assert(WM % 16 == 0 && WN % 16 == 0, "whole 16-row blocks; n-tiles pair up (16 columns)");
    static_assert(BK % 16 == 0, "the k relabelling works on groups of 16");
    static_assert(kSmemBytes * kMinBlocks <= 227 * 1024, "the rings fit an sm_90 SM's shared memory");
};
using DmmaCfg = DmmaTileCfg<128, 128, 64, 32, 4, 1, true>;  // step 07
using DmmaStreamKCfg = DmmaCfg;                              // step 08

// Step 09: 64 x 64 tiles (dmma_small_tiles_pay), and for a C of few columns (Cols) or rows (Rows),
// dmma_narrow_tile: 4 warps, as many blocks an SM as the ring allows (the long operand's slabs in
// flight are what such a problem waits on).
using DmmaSmallCfg = DmmaTileCfg<64, 64, 32, 32, 4, 3>;
using DmmaCols16Cfg = DmmaTileCfg<128, 16, 32, 16, 4, 3>;
using DmmaCols32Cfg = DmmaTileCfg<128, 32, 32, 32, 4, 2>;
using DmmaCols64Cfg = DmmaTileCfg<128, 64, 64, 32, 4, 2>;
using DmmaRows16Cfg = DmmaTileCfg<16, 128, 16, 32, 4, 3>;
using DmmaRows32Cfg = DmmaTileCfg<32, 128, 32, 32, 4, 2>;
using DmmaRows64Cfg = DmmaTileCfg<64, 128, 64, 32, 4, 2>;

// How step 08 cuts an m x n x k problem on a GPU of `sm_count` SMs. The launcher and the tests'
// hook (dmma_stream_k_tiles_of, ladder.cu) both ask this one function.
struct DmmaStreamKPlan {
    int tiles_m;    // tiles down a column of tiles
    int64_t tiles;  // tiles in all
    int slabs;      // K-slabs a tile
    int shares;     // blocks of the shares' kernel: as many as the SMs hold at once, or fewer
                    // (dmma_stream_k_blocks)
    int split;      // the last tiles shared out along k; 0: step 07 alone
};
template <class Cfg>
DmmaStreamKPlan dmma_stream_k_plan(int64_t m, int64_t n, int64_t k, int sm_count) {
    DmmaStreamKPlan plan{};
    plan.tiles_m = static_cast<int>((m + Cfg::BM - 1) / Cfg::BM);
    plan.tiles = int64_t{plan.tiles_m} * ((n + Cfg::BN - 1) / Cfg::BN);
    plan.slabs = static_cast<int>((k + Cfg::BK - 1) / Cfg::BK);
    plan.shares = sm_count * Cfg::kMinBlocks;
    const DmmaSplit split = dmma_stream_k_split(plan.tiles, plan.shares, plan.slabs);
    plan.split = static_cast<int>(split.tiles);
    if (split.tiles > 0) plan.shares = static_cast<int>(split.blocks);
    return plan;
}

// Whether step 09 takes its 64 x 64 tiles (dmma_small_tiles_pay, with step 08's plans of both).
template <class Cfg, class SmallCfg>
bool small_dmma_tiles_serve(int64_t m, int64_t n, int64_t k, int sm_count) {
    const DmmaStreamKPlan large = dmma_stream_k_plan<Cfg>(m, n, k, sm_count);
    const DmmaStreamKPlan small = dmma_stream_k_plan<SmallCfg>(m, n, k, sm_count);
    return dmma_small_tiles_pay(large.tiles, large.slabs, large.split, large.shares, small.tiles,
                                int64_t{sm_count} * SmallCfg::kMinBlocks);
}

}  // namespace gemmkit::dgemm
