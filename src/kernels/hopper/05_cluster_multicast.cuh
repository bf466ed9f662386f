// Hopper step 5 (level 10): thread-block clusters of 2 with TMA multicast of the shared B slab.
//
// What changed since step 4: CTAs run in pairs (a cluster of 2 along m) on tiles (2i, j) and
// (2i + 1, j), which need the same B slabs. Each CTA asks TMA for its own A slab and for half
// of the B slab, multicast into both CTAs' shared memory: per stage each CTA reads 16 + 16 KiB
// from L2 instead of 16 + 32 KiB, a third less L2 traffic. A stage is now free only when the
// consumers of both CTAs are done with it (the partner's copy writes into it too), so each
// consumer warp arrives on the "empty" barrier of both CTAs, and each producer waits for both.
// The pair walks pair-tiles (256 x 256) in grouped order, as step 4's blocks walk tiles.
// A cluster barrier at the start: the partner's mbarriers exist before anyone signals them. It
// is split into a relaxed arrive and a wait, and the first ring of slabs, loaded without
// multicast, goes out in between: those copies do not wait for the barrier (~1500 cycles at the
// start, measured), and the relaxed arrive has no MEMBAR. At the end no CTA may leave while its
// partner can still signal it: one consumer thread waits until the consumers of both CTAs have
// released every stage. A second cluster barrier would do it too, but its release arrive puts a
// MEMBAR.GPU in every thread: ~1100 cycles at each CTA's end, 5% of a 1024^3 call (measured).
// Preconditions: as step 1.
// Measured (H200, commit 5d6fdac; NN, % of cuBLAS): BF16 4096^3 728 TFLOP/s (91.0%), 8192^3 778
// (96.6%): within noise of step 4 (the 60 MiB L2 serves these sizes). Remote arrivals with
// cluster-scope release cost a MEMBAR each and ran at 53%; CTA scope is enough here.
#pragma once

#include "kernels/hopper/04_persistent.cuh"
#include "kernels/hopper/work_schedule.hpp"
#include "ptx/cluster.cuh"

namespace gemmkit::hopper {

struct ClusterMulticastCfg : PersistentCfg {
    static constexpr int kCluster = 2;  // CTAs per cluster, along m
    static constexpr int kStagingBytes = 0;  // shared bytes between the ring and its barriers
};

// B slab of step 5: two K-major boxes (one per CTA) so that each CTA can load half.
template <class T, class Cfg, bool kTransB>
using SharedSlabOfB = SwizzledSlab<T, Cfg::BN, Cfg::BK, !kTransB, Cfg::kCluster>;

// Pair-tiles of an m x n C (tiles of BM x BN, kCluster of them along m) and slabs of k.
template <class Cfg>
__host__ __device__ constexpr int64_t pair_tiles(int64_t m, int64_t n) {
    return ((m + Cfg::BM - 1) / Cfg::BM + Cfg::kCluster - 1) / Cfg::kCluster * ((n + Cfg::BN - 1) / Cfg::BN);
}
template <class Cfg>
__host__ __device__ constexpr int slab_count(int64_t k) {
    return static_cast<int>((k + Cfg::BK - 1) / Cfg::BK);
}
template <class Cfg, class TC>
__device__ WholeTiles whole_tiles(const OutputArgs<TC>& out) {
    return {static_cast<int>(pair_tiles<Cfg>(out.m, out.n)), slab_count<Cfg>(out.k)};
}

// The kernel body, shared with steps 6-8: `Epilogue` writes each finished tile (see below),
// `Schedule` (WholeTiles or step 8's) hands out the work.
template <class Cfg, class T, class TC, bool kTransA, bool kTransB, class Epilogue, class Schedule>
__device__ __forceinline__ void cluster_multicast_body(const CUtensorMap* map_a, const CUtensorMap* map_b,
                                                       const OutputArgs<TC>& out, Epilogue&& epilogue,
                                                       const Schedule& schedule) {
    using SlabA = SlabOfA<T, Cfg, kTransA>;
    using SlabB = SharedSlabOfB<T, Cfg, kTransB>;
    constexpr int kStages = Cfg::kStages, kStageBytes = SlabA::kBytes + SlabB::kBytes;
    constexpr uint16_t kAllCtas = (1u << Cfg::kCluster) - 1;
    extern __shared__ unsigned char smem[];
    const uint32_t ring = align_slabs(ptx::smem_addr(smem));
    const uint32_t full = ring + kStages * kStageBytes + Cfg::kStagingBytes;  // staging: step 6's
    const RingBarriers bars{full, full + 8 * kStages};
    const int warpgroup = threadIdx.x / 128;
    const uint32_t rank = ptx::cluster_rank();
    const int tiles_m = (out.m + Cfg::BM - 1) / Cfg::BM, tiles_n = (out.n + Cfg::BN - 1) / Cfg::BN;
    const int pairs_m = (tiles_m + Cfg::kCluster - 1) / Cfg::kCluster;
    const int cluster = blockIdx.x / Cfg::kCluster, clusters = gridDim.x / Cfg::kCluster;
    const auto work = schedule.of(cluster, clusters);  // this cluster's units

    // This CTA's tile of a unit: its first row of C and first column.
    auto origin = [&](const WorkUnit& w) {
        const int2 pair = Cfg::Order::tile_of(w.pair, pairs_m, tiles_n);
        return make_int2((pair.x * Cfg::kCluster + static_cast<int>(rank)) * Cfg::BM, pair.y * Cfg::BN);
    };

    if (threadIdx.x == 0) {
        ptx::tma_prefetch_map(map_a);  // the maps are fetched while the barriers are set up
        ptx::tma_prefetch_map(map_b);
        bars.init<kStages, Cfg::kCluster * 4 * Cfg::kConsumers>();
    }
    __syncthreads();
    // Our barriers exist (init fenced them): the partner signals them only after its cluster_wait.
    ptx::cluster_arrive_relaxed();

    int s = 0;  // ring uses so far, the same count in both CTAs
    if (warpgroup == 0) {
        ptx::setmaxnreg_dec<Cfg::kProducerRegs>();
        // The first unit's first ring of slabs needs no partner: each CTA loads the whole B slab
        // itself instead of half of it multicast, so the copies start at once rather than a
        // cluster barrier later (~1500 cycles, measured). Thread 0 waits for the partner before
        // its first multicast; the other producer threads, which load nothing, wait at once.
        bool partner_ready = false;
        if (threadIdx.x == 0) {
            for (int u = 0; u < work.units(); ++u) {
                const WorkUnit w = work.unit(u);
                const int2 c0 = origin(w);
                for (int ks = w.k_begin; ks < w.k_end; ++ks, ++s) {
                    const bool alone = Cfg::kCluster == 1 || (u == 0 && s < kStages);  // no partner
                    if (!alone && !partner_ready) {
                        ptx::cluster_wait();  // the partner's barriers exist: multicast may signal them
                        partner_ready = true;
                    }
                    const int st = s % kStages;
                    bars.wait_free<kStages>(s);
                    const uint32_t a = ring + st * kStageBytes, bar = bars.full_of(st);
                    ptx::mbarrier_arrive_expect_tx(bar, kStageBytes);  // our A, and both halves of B
                    SlabA::load(a, map_a, c0.x, ks * Cfg::BK, bar);
                    if (alone)
                        SlabB::load(a + SlabA::kBytes, map_b, c0.y, ks * Cfg::BK, bar);
                    else
                        SlabB::template load_part_multicast<Cfg::kCluster>(rank, a + SlabA::kBytes, map_b, c0.y,
                                                                           ks * Cfg::BK, bar, kAllCtas);
                }
            }
        }
        if (!partner_ready) ptx::cluster_wait();
    } else {
        ptx::setmaxnreg_inc<Cfg::kConsumerRegs>();
        ptx::cluster_wait();  // the partner's barriers exist: release() may signal them
        const int slice = warpgroup - 1;
        // Both CTAs' producers write this stage: tell both that this warp is done with it.
        auto release = [&](int use) {
            if (threadIdx.x % 32 == 0)
                for (int cta = 0; cta < Cfg::kCluster; ++cta)
                    ptx::mbarrier_arrive_cluster(bars.empty_of(use % kStages), cta);
        };
        const uint32_t staging = ring + kStages * kStageBytes;  // step 6's
        // Each unit's first wgmma overwrites the accumulators (scale-d = 0), so they are not
        // zeroed between tiles: 64 instructions a thread less while the tensor cores wait.
        float acc[Cfg::BN / 2] = {};
        SlabFragments<T, SlabA> frags;  // TF32 with A of op N: its registers (tf32_mma.cuh)
        for (int u = 0; u < work.units(); ++u) {
            const WorkUnit w = work.unit(u);
            const int2 c0 = origin(w);
            for (int ks = w.k_begin; ks < w.k_end; ++ks, ++s) {  // a unit has at least one slab
                issue_slab_mma<T, SlabA, SlabB, kStages>(bars, ring, s, slice, acc, ks > w.k_begin, &frags);
                // Step 9's epilogue stores the last tile while the tensor cores work on this one.
                if constexpr (requires { epilogue.under_mma(staging, slice); }) epilogue.under_mma(staging, slice);
                ptx::wgmma_wait<1>();
                if (ks > w.k_begin) release(s - 1);
            }
            ptx::wgmma_wait<0>();
            release(s - 1);
            if (schedule.settle(w, acc, slice, cluster)) epilogue.store(acc, staging, slice, c0.x + 64 * slice, c0.y);
        }
        epilogue.finish(staging, slice);
        // No CTA leaves while its partner may still signal it. The partner's multicast copies
        // into this CTA have all landed (our consumers waited for each); the partner consumers'
        // last arrivals here have landed once every stage is released. One consumer thread waits
        // for that, after its stores. Made by the producer instead, the same wait passed the
        // tests and memcheck, but racecheck never finished on the TMA-store kernels (measured).
        if (threadIdx.x == 128) bars.wait_all_released<kStages>(s);
    }
}

// Step 5 writes C from registers.
template <class TC>
struct RegisterEpilogue {
    const OutputArgs<TC>& out;
    template <int kAccs>
    __device__ void store(const float (&acc)[kAccs], uint32_t /*staging*/, int /*slice*/, int row0, int col0) const {
        store_warpgroup_tile<2 * kAccs>(acc, out, row0, col0);
    }
    __device__ void finish(uint32_t /*staging*/, int /*slice*/) const {}
};

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void GEMMKIT_CLUSTER_DIMS(ClusterMulticastCfg::kCluster, 1, 1)
    __launch_bounds__(ClusterMulticastCfg::kThreads, 1)
        cluster_multicast_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                                 OutputArgs<TC> out) {
#if GEMMKIT_HOPPER_CODE
    using Cfg = ClusterMulticastCfg;
    cluster_multicast_body<Cfg, T, TC, kTransA, kTransB>(&map_a, &map_b, out, RegisterEpilogue<TC>{out},
                                                         whole_tiles<Cfg>(out));
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper
