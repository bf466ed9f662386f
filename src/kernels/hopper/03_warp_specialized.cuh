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
#pragma once

#include "kernels/hopper/02_tma_ring.cuh"
#include "ptx/setmaxnreg.cuh"

namespace gemmkit::hopper {

struct WarpSpecializedCfg {
    static constexpr int BM = 128, BN = 256, BK = 64, kStages = 4;
    static constexpr int kConsumers = BM / 64;
    static constexpr int kThreads = 128 * (1 + kConsumers);  // warpgroup 0 produces
    static constexpr int kProducerRegs = 40, kConsumerRegs = 232;
};

// Whether Cfg's register split fits its block's pool. setmaxnreg only moves registers among the
// block's warps: the pool is what the block got at launch, kThreads times the count
// __launch_bounds__(kThreads, 1) allows (65536 / kThreads rounded down to 8: 168 for 384
// threads, a pool of 64512), not the SM's 65536. A split that asks for more leaves the
// consumers' setmaxnreg.inc retrying forever (a hang, seen with 32 / 240).
template <class Cfg>
constexpr bool registers_fit_launch_pool() {
    constexpr int kLaunchPool = Cfg::kThreads * (65536 / Cfg::kThreads / 8 * 8);
    return 128 * (Cfg::kProducerRegs + Cfg::kConsumers * Cfg::kConsumerRegs) <= kLaunchPool;
}
static_assert(registers_fit_launch_pool<WarpSpecializedCfg>(), "the block's registers at launch");

// The ring's mbarriers: full[st] completes when stage st's slabs have landed (the producer's
// arrival plus TMA's bytes), empty[st] when every consumer warp has finished reading it.
struct RingBarriers {
    uint32_t full, empty;  // shared addresses of kStages barriers each, 8 bytes apart
    __device__ uint32_t full_of(int st) const { return full + 8 * st; }
    __device__ uint32_t empty_of(int st) const { return empty + 8 * st; }

    template <int kStages, int kConsumerWarps>
    __device__ void init() const {
        for (int st = 0; st < kStages; ++st) {
            ptx::mbarrier_init(full_of(st), 1);
            ptx::mbarrier_init(empty_of(st), kConsumerWarps);
        }
        ptx::fence_mbarrier_init();
    }

    // Use `s` of the ring (s counts uses over the block's life) may fill its stage: the use
    // before it on that stage has been released. A fresh barrier passes parity 1.
    template <int kStages>
    __device__ void wait_free(int s) const {
        ptx::mbarrier_wait(empty_of(s % kStages), (s / kStages % 2) ^ 1);
    }
    // The slabs of use `s` have landed.
    template <int kStages>
    __device__ void wait_full(int s) const {
        ptx::mbarrier_wait(full_of(s % kStages), s / kStages % 2);
    }
    // Every stage has been released after `uses` uses of the ring: the waits a producer would
    // make before its next kStages fills.
    template <int kStages>
    __device__ void wait_all_released(int uses) const {
        for (int s = uses; s < uses + kStages; ++s) wait_free<kStages>(s);
    }
};

// The producer's loop body for use `s` of the ring (s counts slabs over the block's life):
// waits until stage s % kStages is free, then has TMA fill it with A and B from (mn0, k0).
template <class SlabA, class SlabB, int kStages>
__device__ __forceinline__ void produce_slab(const RingBarriers& bars, uint32_t ring, int s, const CUtensorMap* map_a,
                                             const CUtensorMap* map_b, int m0, int n0, int k0) {
    constexpr int kStageBytes = SlabA::kBytes + SlabB::kBytes;
    const int st = s % kStages;
    bars.wait_free<kStages>(s);
    const uint32_t a = ring + st * kStageBytes, full = bars.full_of(st);
    ptx::mbarrier_arrive_expect_tx(full, kStageBytes);
    SlabA::load(a, map_a, m0, k0, 0, full);
    SlabB::load(a + SlabA::kBytes, map_b, n0, k0, 0, full);
}

// The consumer warpgroup's part of use `s`: waits for the stage, then issues (and commits as
// one group) the wgmmas that multiply its 64-row slice of the A slab (rows 64 * slice) by the
// whole B slab. They run asynchronously: the stage is in use until ptx::wgmma_wait says done.
// (TF32 with A of op N: `frags`, the fragment sets of tf32_mma.cuh.)
template <class T, class SlabA, class SlabB, int kStages, class Frags = NoFragments>
__device__ __forceinline__ void issue_slab_mma(const RingBarriers& bars, uint32_t ring, int s, int slice,
                                               float (&acc)[SlabB::MN / 2], bool accumulate = true,
                                               Frags* frags = nullptr) {
    constexpr int kStageBytes = SlabA::kBytes + SlabB::kBytes;
    const int st = s % kStages;
    bars.wait_full<kStages>(s);
    const uint32_t a = ring + st * kStageBytes;
    mma_slab<T, SlabA, SlabB>(acc, a, a + SlabA::kBytes, slice, accumulate, frags, s);
}

// Tells the producer that this warp has finished reading the stage of use `s`.
template <int kStages>
__device__ __forceinline__ void release_stage(const RingBarriers& bars, int s) {
    if (threadIdx.x % 32 == 0) ptx::mbarrier_arrive(bars.empty_of(s % kStages));
}

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
