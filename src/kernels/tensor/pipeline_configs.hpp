// The mma.sync pipeline's configurations (steps 04-06 and the Hopper steps' fallback) as plain
// constants: the kernels (04_cp_async_pipeline.cuh, 05_tuned.cuh, 06_tf32.cuh) and the plan's
// rules (src/plan/tensor_rules.cu) read the same ones. The rules include only this file, so
// that they compile none of the kernels.
#pragma once

namespace gemmkit::tensor {

// The tile shape: BM x BN block tile of C, K-slabs of BK elements, WM x WN per warp.
// The warp tile is MI x NI mma tiles of 16 x 8.
template <int BM_, int BN_, int BK_, int WM_, int WN_>
struct MmaTileCfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_;
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int MI = WM / 16, NI = WN / 8;
    static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
    static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp tile is whole 16 x 16 blocks (NI even: B loads in pairs)");
};

// kEdgeFreeLoop: run the main loop in two copies, the first for the slabs whose refills lie
// wholly inside A and B, with the copies' edge checks compiled out (ptxas otherwise
// if-converts them into every slab). Step 05's loop and TF32 gain with it; FP16/BF16 step 04
// loses with it despite half the instructions a slab, so it keeps one loop
// (docs/ladder/tensor-cores.md#lab-edge-free-loop).
// kCrossSlabFragments: step 05's main loop (05_tuned.cuh) instead of this step's.
template <int BM, int BN, int BK, int WM, int WN, int kStages_, bool kEdgeFreeLoop_ = false,
          bool kCrossSlabFragments_ = false>
struct PipelineCfg : MmaTileCfg<BM, BN, BK, WM, WN> {
    static constexpr int kStages = kStages_;
    static constexpr bool kEdgeFreeLoop = kEdgeFreeLoop_;
    static constexpr bool kCrossSlabFragments = kCrossSlabFragments_;
    static_assert(kStages >= 2, "a ring needs a slab to compute and one in flight");
};

// Step 04's registered configuration: 128 x 128 tiles of 4 warps, two blocks an SM.
using Step04Cfg = PipelineCfg<128, 128, 32, 64, 64, 4>;

// Step 05's registered configuration (and what the Hopper steps fall back to for operands TMA
// cannot read when no workspace is at hand).
using TunedCfg = PipelineCfg<256, 128, 32, 64, 64, 4, /*kEdgeFreeLoop=*/true, /*kCrossSlabFragments=*/true>;
// What problems too small for TunedCfg's tiles run (launch_tuned_typed): step 04's kernel.
using TunedSmallCfg = Step04Cfg;

// Step 06's (TF32): step 05's loop and tiles with 16-k slabs (two k steps of m16n8k8, as step
// 05's 32 16-bit k), and for problems of few tiles step 04's loop on 128 x 128 tiles
// (launch_tuned_typed).
using Tf32PipelineCfg = PipelineCfg<256, 128, 16, 64, 64, 4, /*kEdgeFreeLoop=*/true, /*kCrossSlabFragments=*/true>;
using Tf32SmallCfg = PipelineCfg<128, 128, 16, 64, 64, 4, /*kEdgeFreeLoop=*/true>;

}  // namespace gemmkit::tensor
