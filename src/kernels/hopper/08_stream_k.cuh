// Hopper step 8 (level 12 of the f16 and bf16 families, level 8 of tf32): stream-K for the
// last round of tiles.
//
// What changed since steps 6 and 7: with whole tiles, the last of the grid's rounds leaves
// clusters idle whenever the pair-tiles do not divide evenly among them (4097^3: 289 pair-tiles
// on 66 clusters, 4.38 rounds of work in 5). Here the tiles of that last round are shared out
// along k in equal runs of slabs, one a cluster, after the whole rounds (stream-K: stream_k.hpp
// has the arithmetic, the plan and its reasons). The kernel body is step 6's with one more
// decision after each unit of work (StreamKSchedule::settle):
//  - a piece that does not end its tile leaves its FP32 sums in a workspace slot of its own
//    (64 KiB a warpgroup, stored with .cg: they are read once, from L2) and raises a flag;
//  - a tile's last piece waits for the flags of the tile's earlier pieces, adds their sums in a
//    fixed order, and writes C through step 6's epilogue.
// Both add along a binary tree (TileSumTree, stream_k.hpp): an earlier piece may first add the
// sums of some before it, so that the last piece adds about log2 of the tile's pieces, not every
// one of them in turn.
// With fewer pair-tiles than clusters, the "last round" is every tile, shared out over all the
// clusters (the whole-tile grid would leave the others idle), or, where its slabs cannot give
// each cluster 4, over as many as they can. Splitting costs more than it
// looks (the partial sums' round trip, a second prologue and epilogue a piece), so it is done
// only where the last round after whole rounds is at least half idle (a single round: however
// busy) and the slabs it saves outweigh a fitted cost (stream_k_plan); elsewhere step 6's (or
// 7's) kernel runs, on no more clusters than
// pair-tiles. Measured: docs/ladder/hopper.md#step-12 (and #lab-step-12).
// Preconditions: as step 6 (7 for TF32). The workspace (at most 128 KiB a CTA, from the
// library's pool) is allocated and its flags zeroed on the stream before each launch; without
// the memory the kernel runs whole tiles.
#pragma once

#include "kernels/hopper/06_tma_store.cuh"
#include "kernels/hopper/07_tf32.cuh"
#include "kernels/hopper/stream_k.hpp"
#include "kernels/hopper/tile_sums.cuh"
#include "kernels/workspace.hpp"
#include "plan/plan.hpp"

namespace gemmkit::hopper {

// What step 8 needs besides step 6's arguments.
struct StreamKArgs {
    StreamKSplit split;
    float4* partials;  // [CTA][slice][kAccs / 4][128]: a warpgroup's sums, thread t's at [..][t]
    int* ready;        // [CTA][slice]: raised once that partial is written (zero at launch)
};

// Workspace bytes of a grid of `ctas` CTAs: the flags (rounded up to 256 bytes), then the sums.
template <class Cfg>
constexpr size_t stream_k_flag_bytes(int ctas) {
    return workspace_flag_bytes(static_cast<size_t>(ctas) * Cfg::kConsumers);
}
template <class Cfg>
constexpr size_t stream_k_workspace_bytes(int ctas) {
    return stream_k_flag_bytes<Cfg>(ctas) + static_cast<size_t>(ctas) * Cfg::kConsumers * 64 * Cfg::BN * sizeof(float);
}

template <class Cfg>
struct StreamKSchedule {
    const StreamKArgs& args;
    __device__ StreamKSplit::List of(int cluster, int clusters) const { return args.split.of(cluster, clusters); }

    // After unit w of this warpgroup (`slice`): whether acc holds its tile's whole sum. Earlier
    // piece a of the tile ran on cluster w.earlier_from + a, its sums in the slot of the CTA there
    // that holds the same half of the pair-tile.
    template <int kAccs>
    __device__ bool settle(const WorkUnit& w, float (&acc)[kAccs], int slice, int cluster) const {
        const int rank = blockIdx.x % Cfg::kCluster;
        auto slot_of_cta = [&](int cta) { return cta * Cfg::kConsumers + slice; };
        auto slot_of = [&](int a) { return slot_of_cta((w.earlier_from + a) * Cfg::kCluster + rank); };
        const TileSumTree tree{cluster - w.earlier_from, args.split.ends_tile(w)};
        return settle_tile_sums<128, kAccs>(tree, acc, threadIdx.x % 128, slot_of, slot_of_cta(blockIdx.x), args.partials,
                                            args.ready, [&] { ptx::named_barrier_sync<128>(1 + slice); });
    }
};

template <class T, class TC, bool kTransA, bool kTransB, class Cfg = TmaStoreCfg>  // Cfg: as step 6's kernel
__global__ void GEMMKIT_CLUSTER_DIMS(Cfg::kCluster, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    stream_k_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out,
                    const __grid_constant__ StreamKArgs sk) {
#if GEMMKIT_HOPPER_CODE
    cluster_multicast_body<Cfg, T, TC, kTransA, kTransB>(&map_a, &map_b, out, TmaStoreEpilogue<TC>{out, &map_c},
                                                        StreamKSchedule<Cfg>{sk});
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

// Step 7's TF32 kernel with the same schedule.
template <class T, class TC, bool kTransA, bool kTransB, class Cfg = Tf32Cfg>  // Cfg: as step 7's kernel
__global__ void GEMMKIT_CLUSTER_DIMS(Cfg::kCluster, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    tf32_stream_k_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out,
                         const __grid_constant__ StreamKArgs sk) {
    static_assert(std::is_same_v<T, float> && std::is_same_v<TC, float> && !kTransB, "FP32 data, B K-major");
#if GEMMKIT_HOPPER_CODE
    cluster_multicast_body<Cfg, T, TC, kTransA, kTransB>(&map_a, &map_b, out, TmaStoreEpilogue<TC>{out, &map_c},
                                                        StreamKSchedule<Cfg>{sk});
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

// Launches a step-8 kernel on `clusters` clusters with the plan's split (plan_hopper_step,
// src/plan/hopper_rules.cu: `pieces` of the pair-tiles cut over `workers` clusters). Where there
// is a split, it takes its workspace from the pool and zeroes its flags first, all on `stream`.
// Where nothing is split (or there is no memory for the workspace) it launches `whole`, the step
// it builds on, on no more clusters than pair-tiles. The plan counted one cluster for every
// kCluster SMs; where fewer fit at once (the driver's answer, ClusterGrid::clusters), the split
// is worked out again for those, so that every share's cluster is resident.
template <class Cfg, class Kernel, class WholeKernel, class... MapsAndOut>
cudaError_t launch_stream_k(Kernel kernel, WholeKernel whole, int clusters, int planned_clusters, int smem_bytes,
                            const Problem& p, const SplitPlan& split, cudaStream_t stream,
                            MapsAndOut... maps_and_out) {
    const int64_t pairs = batch_pair_tiles<Cfg>(p.m, p.n, p.batch.count);
    const dim3 whole_grid(static_cast<unsigned>((pairs < clusters ? pairs : clusters) * Cfg::kCluster));
    const int slabs = slab_count<Cfg>(p.k);
    StreamKPlan plan = {split.pieces, split.workers, 0, 0};
    if (clusters < planned_clusters) plan = stream_k_plan(pairs, clusters, slabs, tile_scale<Cfg>());
    StreamKArgs sk = {{static_cast<int>(pairs), slabs, static_cast<int>(plan.split_pairs)}, nullptr, nullptr};
    const int ctas = static_cast<int>(plan.split_pairs > 0 ? plan.clusters : clusters) * Cfg::kCluster;
    const dim3 grid(static_cast<unsigned>(ctas));
    void* workspace = nullptr;
    const size_t flag_bytes = stream_k_flag_bytes<Cfg>(ctas);
    if (sk.split.split_pairs > 0 &&
        allocate_workspace(&workspace, stream_k_workspace_bytes<Cfg>(ctas), stream) != cudaSuccess) {
        cudaGetLastError();  // no memory: whole tiles, which need none
        workspace = nullptr;
    }
    if (workspace != nullptr && cudaMemsetAsync(workspace, 0, flag_bytes, stream) != cudaSuccess) {
        cudaGetLastError();
        cudaFreeAsync(workspace, stream);
        workspace = nullptr;
    }
    if (workspace == nullptr)
        return launch_with_smem(whole, whole_grid, Cfg::kThreads, smem_bytes, stream, maps_and_out...);
    sk.ready = static_cast<int*>(workspace);
    sk.partials = reinterpret_cast<float4*>(static_cast<char*>(workspace) + flag_bytes);
    const cudaError_t err = launch_with_smem(kernel, grid, Cfg::kThreads, smem_bytes, stream, maps_and_out..., sk);
    cudaFreeAsync(workspace, stream);  // after the GEMM, in stream order
    return err;
}

}  // namespace gemmkit::hopper
