// Hopper step 3 (level 8): producer/consumer warp specialization with setmaxnreg.
//
// What changed since step 2: a third warpgroup does nothing but copy. Its thread 0 walks the
// slabs, waits on a stage's "empty" mbarrier, asks TMA for the slab, and moves on; the two
// consumer warpgroups wait on "full", run their wgmmas and arrive on "empty" when done. No
// __syncthreads() remains in the main loop: the copies run as far ahead as the ring allows,
// and each consumer warpgroup proceeds at its own pace (while one waits for its wgmmas, the
// other's keep the tensor cores busy). The producer needs few registers; setmaxnreg hands
// them to the consumers (40 + 2 x 232 per thread of each warpgroup, within the SM's 64 K).
// Preconditions: as step 1.
// Measured: docs/ladder/hopper.md#step-08: the largest single gain of the ladder.
// Its building blocks (RingBarriers, produce_slab, issue_slab_mma, release_stage) are in ring.cuh,
// which later steps share.
#pragma once

#include "kernels/hopper/epilogue.cuh"
#include "kernels/hopper/ring.cuh"
#include "kernels/hopper/slab.cuh"
#include "ptx/setmaxnreg.cuh"

namespace gemmkit::hopper {

struct WarpSpecializedCfg {
    static constexpr int BM = 128, BN = 256, BK = 64, kStages = 4;
    static constexpr int kConsumers = BM / 64;
    static constexpr int kThreads = 128 * (1 + kConsumers);  // warpgroup 0 produces
    static constexpr int kProducerRegs = 40, kConsumerRegs = 232;
};

// setmaxnreg moves registers only within the block's launch pool (registers_fit_launch_pool).
static_assert(registers_fit_launch_pool<WarpSpecializedCfg>(), "the block's registers at launch");

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(WarpSpecializedCfg::kThreads, 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                            OutputArgs<TC> out) {
#if GEMMKIT_HOPPER_CODE
    using Cfg = WarpSpecializedCfg;
    using SlabA = SlabOfA<T, Cfg, kTransA>;
    using SlabB = SlabOfB<T, Cfg, kTransB>;
    extern __shared__ unsigned char smem[];
    const uint32_t ring = align_slabs(ptx::smem_addr(smem));
    const uint32_t full = ring + Cfg::kStages * (SlabA::kBytes + SlabB::kBytes);
    const RingBarriers bars{full, full + 8 * Cfg::kStages};
    const int m0 = blockIdx.x * Cfg::BM, n0 = blockIdx.y * Cfg::BN;
    const int warpgroup = threadIdx.x / 128;
    const int slabs = (out.k + Cfg::BK - 1) / Cfg::BK;

    if (threadIdx.x == 0) bars.init<Cfg::kStages, 4 * Cfg::kConsumers>();
    __syncthreads();

    if (warpgroup == 0) {
        ptx::setmaxnreg_dec<Cfg::kProducerRegs>();
        if (threadIdx.x == 0) {
            ptx::tma_prefetch_map(&map_a);
            ptx::tma_prefetch_map(&map_b);
            for (int s = 0; s < slabs; ++s)
                produce_slab<SlabA, SlabB, Cfg::kStages>(bars, ring, s, &map_a, &map_b, m0, n0, s * Cfg::BK);
        }
    } else {
        ptx::setmaxnreg_inc<Cfg::kConsumerRegs>();
        const int slice = warpgroup - 1;
        float acc[Cfg::BN / 2] = {};
        for (int s = 0; s < slabs; ++s) {
            issue_slab_mma<T, SlabA, SlabB, Cfg::kStages>(bars, ring, s, slice, acc);
            ptx::wgmma_wait<0>();
            release_stage<Cfg::kStages>(bars, s);
        }
        store_warpgroup_tile<Cfg::BN>(acc, out, 0, m0 + 64 * slice, n0);
    }
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper
