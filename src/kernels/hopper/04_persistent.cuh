// Hopper step 4 (level 9): a persistent kernel with a tile scheduler in L2-friendly order.
//
// What changed since step 3: one block per SM, each walking the tiles b, b + grid, b + 2 grid,
// ... of a grouped order (8 tile-rows at a time, m fastest: the blocks at work share a few A
// and B panels in L2). The producer runs ahead into the next tile while the consumers are still
// writing the last one to C, so the ring never drains between tiles, and no block pays launch,
// barrier set-up and pipeline fill per tile. The ring's use count s runs on across tiles, so
// stage and phase stay consistent between producer and consumers.
// And each consumer keeps one group of wgmmas in flight: it issues slab s before waiting for
// slab s - 1's group (wgmma.wait_group 1), so the tensor core always has its next group queued.
// Preconditions: as step 1.
// Measured: docs/ladder/hopper.md#step-09. At k = 1024 the register epilogue (~4 us a tile)
// shows; step 6 removes it.
#pragma once

#include "kernels/grouped_order.cuh"
#include "kernels/hopper/03_warp_specialized.cuh"

namespace gemmkit::hopper {

struct PersistentCfg : WarpSpecializedCfg {
    using Order = GroupedOrder<8>;
};

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(PersistentCfg::kThreads, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      OutputArgs<TC> out) {
#if GEMMKIT_HOPPER_CODE
    using Cfg = PersistentCfg;
    using SlabA = SlabOfA<T, Cfg, kTransA>;
    using SlabB = SlabOfB<T, Cfg, kTransB>;
    extern __shared__ unsigned char smem[];
    const uint32_t ring = align_slabs(ptx::smem_addr(smem));
    const uint32_t full = ring + Cfg::kStages * (SlabA::kBytes + SlabB::kBytes);
    const RingBarriers bars{full, full + 8 * Cfg::kStages};
    const int warpgroup = threadIdx.x / 128;
    const int slabs = (out.k + Cfg::BK - 1) / Cfg::BK;
    const int tiles_m = (out.m + Cfg::BM - 1) / Cfg::BM, tiles_n = (out.n + Cfg::BN - 1) / Cfg::BN;
    const int tiles = tiles_m * tiles_n;

    if (threadIdx.x == 0) bars.init<Cfg::kStages, 4 * Cfg::kConsumers>();
    __syncthreads();

    int s = 0;  // ring uses so far
    if (warpgroup == 0) {
        ptx::setmaxnreg_dec<Cfg::kProducerRegs>();
        if (threadIdx.x == 0) {
            ptx::tma_prefetch_map(&map_a);
            ptx::tma_prefetch_map(&map_b);
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                const int2 tile = Cfg::Order::tile_of(t, tiles_m, tiles_n);
                for (int ks = 0; ks < slabs; ++ks, ++s)
                    produce_slab<SlabA, SlabB, Cfg::kStages>(bars, ring, s, &map_a, &map_b, tile.x * Cfg::BM,
                                                             tile.y * Cfg::BN, ks * Cfg::BK);
            }
        }
    } else {
        ptx::setmaxnreg_inc<Cfg::kConsumerRegs>();
        const int slice = warpgroup - 1;
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            const int2 tile = Cfg::Order::tile_of(t, tiles_m, tiles_n);
            float acc[Cfg::BN / 2] = {};
            for (int ks = 0; ks < slabs; ++ks, ++s) {
                issue_slab_mma<T, SlabA, SlabB, Cfg::kStages>(bars, ring, s, slice, acc);
                ptx::wgmma_wait<1>();  // the previous slab's group is done: free its stage
                if (ks > 0) release_stage<Cfg::kStages>(bars, s - 1);
            }
            ptx::wgmma_wait<0>();
            release_stage<Cfg::kStages>(bars, s - 1);
            store_warpgroup_tile<Cfg::BN>(acc, out, 0, tile.x * Cfg::BM + 64 * slice, tile.y * Cfg::BN);
        }
    }
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper
