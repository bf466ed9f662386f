// Hopper step 2 (level 7): a multi-stage TMA ring with mbarrier phase waits; two warpgroups.
//
// What changed since step 1: kStages slabs of A and B live in a ring of shared buffers, each
// with its own "full" mbarrier. Thread 0 keeps kStages - 1 slabs in flight ahead of the math,
// so the copy of slab s + 3 overlaps the wgmmas of slab s. The warps wait on a stage's barrier
// by the parity of its use count (stage s % kStages, phase s / kStages): the barrier needs no
// resetting between uses. Two warpgroups share each B slab (a 128 x 256 block tile, each
// warpgroup 64 x 256), which halves the B traffic per flop.
// What is left: a __syncthreads() per slab, so that thread 0 refills a stage only when both
// warpgroups have finished reading it; and thread 0 issues copies between its own wgmmas.
// Preconditions: as step 1.
// Measured: docs/ladder/hopper.md#step-07.
#pragma once

#include "kernels/hopper/epilogue.cuh"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/wgmma_slab.cuh"
#include "ptx/mbarrier.cuh"

namespace gemmkit::hopper {

struct TmaRingCfg {
    static constexpr int BM = 128, BN = 256, BK = 64, kStages = 4;
    static constexpr int kConsumers = BM / 64;  // warpgroups, each a 64-row slice of the tile
    static constexpr int kThreads = 128 * kConsumers;
};

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(TmaRingCfg::kThreads)
    tma_ring_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                    OutputArgs<TC> out) {
#if GEMMKIT_HOPPER_CODE
    using Cfg = TmaRingCfg;
    using SlabA = SlabOfA<T, Cfg, kTransA>;
    using SlabB = SlabOfB<T, Cfg, kTransB>;
    constexpr int kStageBytes = SlabA::kBytes + SlabB::kBytes;  // stage: A slab, then B slab
    extern __shared__ unsigned char smem[];
    const uint32_t ring = align_slabs(ptx::smem_addr(smem));
    const uint32_t full = ring + Cfg::kStages * kStageBytes;  // kStages mbarriers, 8 bytes each
    const int m0 = blockIdx.x * Cfg::BM, n0 = blockIdx.y * Cfg::BN;
    const int warpgroup = threadIdx.x / 128;
    const int slabs = (out.k + Cfg::BK - 1) / Cfg::BK;

    if (threadIdx.x == 0) {
        for (int st = 0; st < Cfg::kStages; ++st) ptx::mbarrier_init(full + 8 * st, 1);
        ptx::fence_mbarrier_init();
    }
    __syncthreads();

    auto issue = [&](int s) {  // thread 0: slab s into stage s % kStages
        const int st = s % Cfg::kStages;
        const uint32_t a = ring + st * kStageBytes, bar = full + 8 * st;
        ptx::mbarrier_arrive_expect_tx(bar, kStageBytes);
        SlabA::load(a, &map_a, m0, s * Cfg::BK, 0, bar);
        SlabB::load(a + SlabA::kBytes, &map_b, n0, s * Cfg::BK, 0, bar);
    };
    if (threadIdx.x == 0)
        for (int s = 0; s < Cfg::kStages - 1 && s < slabs; ++s) issue(s);

    float acc[Cfg::BN / 2] = {};
    for (int s = 0; s < slabs; ++s) {
        __syncthreads();  // both warpgroups are done with slab s - 1: its stage may be refilled
        if (threadIdx.x == 0 && s + Cfg::kStages - 1 < slabs) issue(s + Cfg::kStages - 1);
        const int st = s % Cfg::kStages;
        ptx::mbarrier_wait(full + 8 * st, s / Cfg::kStages % 2);
        const uint32_t a = ring + st * kStageBytes;
        mma_slab<T, SlabA, SlabB>(acc, a, a + SlabA::kBytes, warpgroup);
        ptx::wgmma_wait<0>();
    }
    store_warpgroup_tile<Cfg::BN>(acc, out, 0, m0 + 64 * warpgroup, n0);
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper
