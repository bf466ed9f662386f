// Hopper step 6 (level 11): the epilogue through shared memory and TMA stores.
//
// What changed since step 5: a consumer warpgroup no longer stores its 64 x 256 tile to C
// value by value (128 scattered 2-byte stores a thread, with the tensor cores idle until the
// last one issues). It writes the tile, scaled and rounded, into a swizzled staging buffer in
// 64 x 64 pieces, and one thread has the copy engine store each piece (epilogue_tma.cuh),
// clipped to m x n; the warpgroup returns to its wgmmas while C is written. Measured on the
// register epilogue, the per-tile cost was ~4 us, which is what a k = 1024 problem misses most.
// Used when beta == 0 (C is not read), m * sizeof(C) is a multiple of 16 bytes (TMA clips
// columns to whole 16-byte chunks) and TMA can address C; where only beta == 0 holds, the
// pieces are staged alike and the warpgroup copies them out (out.staged_store); otherwise the
// block takes step 5's register epilogue (a uniform branch). FP32 C is staged in 64 x 32
// pieces (epilogue_tma.cuh).
// Preconditions: none. Operands TMA cannot read are first copied into aligned workspaces
// (pad_copy.cu, launch.cuh); with no memory for them, step 05's kernels run.
// Two staging buffers a warpgroup (kStagingBuffers): a piece is written while the copy engine
// still reads the previous one; one buffer measured slower (docs/ladder/hopper.md#lab-steps-06-14).
// Measured: docs/ladder/hopper.md#step-11 (4097^3, its operands copied: #lab-steps-06-14).
#pragma once

#include "kernels/hopper/05_cluster_multicast.cuh"
#include "kernels/hopper/epilogue_tma.cuh"

namespace gemmkit::hopper {

struct TmaStoreCfg : ClusterMulticastCfg {
    static constexpr int kStagingBytes = kConsumers * staging_bytes();  // 16 KiB a warpgroup
};

template <class TC>
struct TmaStoreEpilogue {
    const OutputArgs<TC>& out;
    const CUtensorMap* map_c;
    template <int kAccs>
    __device__ void store(const float (&acc)[kAccs], uint32_t staging, int slice, int z, int row0, int col0) const {
        // A tile narrower than a staged piece (step 10's 16 columns) writes C from registers.
        if constexpr (2 * kAccs % c_box_cols(sizeof(TC)) == 0) {
            if (out.tma_store || out.staged_store) {
                store_warpgroup_tile_staged<2 * kAccs, TC>(acc, map_c, staging + slice * staging_bytes(), 1 + slice,
                                                           out, z, row0, col0);
                return;
            }
        }
        store_warpgroup_tile<2 * kAccs>(acc, out, z, row0, col0);
    }
    // The block's last stores must be complete before it exits.
    __device__ void finish(uint32_t /*staging*/, int /*slice*/) const {
        if (threadIdx.x % 128 == 0) ptx::bulk_wait<0>();
    }
};

// Cfg: TmaStoreCfg, or a configuration derived from it with other tiles (step 10's small ones).
template <class T, class TC, bool kTransA, bool kTransB, class Cfg = TmaStoreCfg>
__global__ void GEMMKIT_CLUSTER_DIMS(Cfg::kCluster, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    tma_store_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out) {
#if GEMMKIT_HOPPER_CODE
    cluster_multicast_body<Cfg, T, TC, kTransA, kTransB>(&map_a, &map_b, out, TmaStoreEpilogue<TC>{out, &map_c},
                                                        whole_tiles<Cfg>(out));
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper
