// The Hopper steps' ring of slabs between a producer warpgroup and the consumers: its mbarriers,
// the producer's fill of a stage, the consumers' wgmmas on it and their release (Hopper step 3
// introduces them, docs/ladder/hopper.md#step-08).
#pragma once

#include "kernels/hopper/wgmma_slab.cuh"
#include "ptx/mbarrier.cuh"

namespace gemmkit::hopper {

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

}  // namespace gemmkit::hopper
