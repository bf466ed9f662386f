// Grouped GEMM on Hopper (gemmkit_gemm_grouped_ex): a mixture of experts' layer in one launch.
//
// The tokens of every expert lie side by side as C's columns (and op(B)'s); group g is columns
// ends[g - 1] .. ends[g] - 1 and multiplies them by its own A (matrix g of A's tensor map). The
// ends live on the device, so the host cannot cut the work into tiles: the kernel does. It runs
// step 5's persistent body (cluster_pipeline.cuh: clusters of two along m sharing B's slab,
// multicast) on 128 x 128 CTA tiles, whose pair-tiles are numbered group by group. Each CTA
// counts them from the ends when it starts (GroupedTiles, grouped_schedule.hpp), and walks its
// units with a cursor that only moves forward (GroupedTileList::origin), so finding a unit's
// group costs one step per group over the whole kernel, not a search per unit.
// A tile may reach past its group's last column into the next group's tokens, and its first
// column is the group's rounded down to 8 (B's boxes start on 16 bytes: grouped_schedule.hpp):
// TMA loads the other groups' columns, the wgmmas multiply them, and the epilogue writes only
// the group's own columns (register stores; the _tma_store rows TMA-store the tiles whole inside
// their group). Empty groups have no tiles. Ends out of order, negative or past n: no tiles at
// all, so nothing is written.
// Preconditions: A and B as TMA reads them (tma_reads_operands, and stride_a tma_batch_stride).
#pragma once

#include <cstdint>

#include "kernels/hopper/05_cluster_multicast.cuh"
#include "kernels/hopper/epilogue_tma.cuh"
#include "kernels/hopper/grouped_schedule.hpp"

namespace gemmkit::hopper {

// 128 x 128 CTA tiles (pair-tiles of 256 x 128): a group of a few hundred tokens wastes less of
// its last tile than with 256 columns. Six stages, as step 10's 128 x 128 tiles.
struct GroupedCfg : ClusterMulticastCfg {
    static constexpr int BN = 128, kStages = 6;
};

// The same tiles with step 6's staging for C (two 64-column pieces a consumer warpgroup): the
// six stages and the staging take 225 KiB of the 227 an H100 block may have.
struct GroupedTmaStoreCfg : GroupedCfg {
    static constexpr int kStagingBytes = kConsumers * staging_bytes();
};

// The kernel's dynamic shared memory: the ring of Cfg's stages and its staging for C.
template <class T, class Cfg = GroupedCfg>
constexpr int grouped_smem_bytes() {
    return ring_smem_bytes<SlabOfA<T, Cfg, false>, SharedSlabOfB<T, Cfg, false>, Cfg::kStages>() + Cfg::kStagingBytes;
}
static_assert(grouped_smem_bytes<half, GroupedTmaStoreCfg>() <= 227 * 1024, "an H100 block's shared memory");

// Step 5's register epilogue, bounded by the group's own columns: past its last lie the next
// group's, and before its first (a tile starts at it rounded down: grouped_schedule.hpp) the one
// before's. C does not move by group (out.stride_c 0); the bias does (epilogue->bias_stride).
template <class TC>
struct GroupedEpilogue {
    const OutputArgs<TC>& out;
    const int32_t* ends;
    template <int kAccs>
    __device__ void store(const float (&acc)[kAccs], uint32_t /*staging*/, int /*slice*/, int group, int row0,
                          int col0) const {
        OutputArgs<TC> within = out;
        within.n = ends[group];
        store_warpgroup_tile<2 * kAccs, true>(acc, within, group, row0, col0, group_first_column(ends, group));
    }
    __device__ void finish(uint32_t /*staging*/, int /*slice*/) const {}
};

// Step 6's TMA stores for the tiles whole inside their group's columns, where the launcher set
// out.tma_store (beta 0, C as TMA writes it: tma_writes_c); the register epilogue above for the
// others, the first and last tile of a group whose ends are not on a tile's edge. C is one
// matrix (coordinate 0 of C's map); the group picks its bias first.
template <class TC>
struct GroupedTmaStoreEpilogue {
    const OutputArgs<TC>& out;
    const int32_t* ends;
    const CUtensorMap* map_c;
    template <int kAccs>
    __device__ void store(const float (&acc)[kAccs], uint32_t staging, int slice, int group, int row0,
                          int col0) const {
        if (out.tma_store && col0 >= group_first_column(ends, group) && col0 + 2 * kAccs <= ends[group]) {
            OutputArgs<TC> own = out;
            own.epi.select(group);
            store_warpgroup_tile_staged<2 * kAccs, TC>(acc, map_c, staging + slice * staging_bytes(), 1 + slice, own, 0,
                                                       row0, col0);
            return;
        }
        GroupedEpilogue<TC>{out, ends}.store(acc, staging, slice, group, row0, col0);
    }
    // The block's last stores must be complete before it exits.
    __device__ void finish(uint32_t /*staging*/, int /*slice*/) const {
        if (threadIdx.x % 128 == 0) ptx::bulk_wait<0>();
    }
};

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void GEMMKIT_CLUSTER_DIMS(GroupedCfg::kCluster, 1, 1) __launch_bounds__(GroupedCfg::kThreads, 1)
    grouped_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   OutputArgs<TC> out, const int32_t* ends, int groups) {
#if GEMMKIT_HOPPER_CODE
    using Cfg = GroupedCfg;
    cluster_multicast_body<Cfg, T, TC, kTransA, kTransB>(
        &map_a, &map_b, out, GroupedEpilogue<TC>{out, ends},
        GroupedTiles<Cfg>{ends, groups, out.m, out.n, slab_count<Cfg>(out.k)});
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

// The grouped kernel with GroupedTmaStoreEpilogue (f16/bf16.16_grouped_tma_store, named only).
template <class T, class TC, bool kTransA, bool kTransB>
__global__ void GEMMKIT_CLUSTER_DIMS(GroupedTmaStoreCfg::kCluster, 1, 1)
    __launch_bounds__(GroupedTmaStoreCfg::kThreads, 1)
        grouped_tma_store_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                                 const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out, const int32_t* ends,
                                 int groups) {
#if GEMMKIT_HOPPER_CODE
    using Cfg = GroupedTmaStoreCfg;
    cluster_multicast_body<Cfg, T, TC, kTransA, kTransB>(
        &map_a, &map_b, out, GroupedTmaStoreEpilogue<TC>{out, ends, &map_c},
        GroupedTiles<Cfg>{ends, groups, out.m, out.n, slab_count<Cfg>(out.k)});
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper
