// Hopper step 5 (level 10): thread-block clusters of 2 with TMA multicast of the shared B slab.
//
// What changed since step 4: CTAs run in pairs (a cluster of 2 along m) on tiles (2i, j) and
// (2i + 1, j), which need the same B slabs. Each CTA asks TMA for its own A slab and for half
// of the B slab, multicast into both CTAs' shared memory: per stage each CTA reads 16 + 16 KiB
// from L2 instead of 16 + 32 KiB, a third less L2 traffic. A stage is now free only when the
// consumers of both CTAs are done with it (the partner's copy writes into it too), so each
// consumer warp arrives on the "empty" barrier of both CTAs, and each producer waits for both.
// The pair walks pair-tiles (256 x 256) in grouped order, as step 4's blocks walk tiles.
// (Step 10's narrow 128 x 64 tiles pair up along n instead and share A: kClusterAlongN.)
// A cluster barrier at the start: the partner's mbarriers exist before anyone signals them. It
// is split into a relaxed arrive and a wait, and the first ring of slabs, loaded without
// multicast, goes out in between: those copies do not wait for the barrier (~1500 cycles at the
// start), and the relaxed arrive has no MEMBAR. At the end no CTA may leave while its
// partner can still signal it: one consumer thread waits until the consumers of both CTAs have
// released every stage. A second cluster barrier would do it too, but its release arrive puts a
// MEMBAR.GPU in every thread: ~1100 cycles at each CTA's end (docs/ladder/hopper.md#lab-cluster-start-end).
// Preconditions: as step 1.
// Measured: docs/ladder/hopper.md#step-10: within noise of step 4 (L2 serves these sizes).
// Remote arrivals use CTA scope: with cluster-scope release each costs a MEMBAR.
// The pipeline itself (pair-tiles, multicast loads, cluster_multicast_body) is in
// cluster_pipeline.cuh: steps 6-10 run it with their own epilogues and schedules.
#pragma once

#include "kernels/hopper/04_persistent.cuh"
#include "kernels/hopper/cluster_pipeline.cuh"

namespace gemmkit::hopper {

struct ClusterMulticastCfg : PersistentCfg {
    static constexpr int kCluster = 2;  // CTAs per cluster, along m
    static constexpr int kStagingBytes = 0;  // shared bytes between the ring and its barriers
};

// Step 5 writes C from registers.
template <class TC>
struct RegisterEpilogue {
    const OutputArgs<TC>& out;
    template <int kAccs>
    __device__ void store(const float (&acc)[kAccs], uint32_t /*staging*/, int /*slice*/, int z, int row0,
                          int col0) const {
        store_warpgroup_tile<2 * kAccs>(acc, out, z, row0, col0);
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
