// The pipeline of Hopper steps 5-10: clusters whose CTAs share an operand's slabs by TMA
// multicast, the pair-tiles they walk, and the kernel body (cluster_multicast_body) every step
// from 5 on runs with its own epilogue and schedule (Hopper step 5 introduces it,
// docs/ladder/hopper.md#step-10).
#pragma once

#include "kernels/hopper/epilogue.cuh"
#include "kernels/hopper/pair_tiles.hpp"
#include "kernels/hopper/ring.cuh"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/work_schedule.hpp"
#include "ptx/cluster.cuh"
#include "ptx/setmaxnreg.cuh"

namespace gemmkit::hopper {

// Slabs of step 5: a shared operand's K-major slab comes in one box a CTA, so that each CTA can
// load its part (an MN-major slab has a box per 64 rows already).
template <class T, class Cfg, bool kTransA>
using SharedSlabOfA = SwizzledSlab<T, Cfg::BM, Cfg::BK, kTransA, ctas_sharing_a<Cfg>()>;
template <class T, class Cfg, bool kTransB>
using SharedSlabOfB = SwizzledSlab<T, Cfg::BN, Cfg::BK, !kTransB, ctas_sharing_b<Cfg>()>;

// How many of its first slabs a CTA loads whole, without waiting for its partner (below): the
// ring's worth unless Cfg says fewer (a short k wants the multicast sooner).
template <class Cfg>
__host__ __device__ constexpr int slabs_alone() {
    if constexpr (requires { Cfg::kSlabsAlone; })
        return Cfg::kSlabsAlone;
    else
        return Cfg::kStages;
}

// Whether Cfg moves each slab's sums out of the wgmma accumulators into FP32 registers (FP8
// step 2, fp8.cuh): the tensor cores add FP8 products in fewer bits than FP32.
template <class Cfg>
__host__ __device__ constexpr bool promotes_sums() {
    if constexpr (requires { Cfg::kPromote; })
        return Cfg::kPromote;
    else
        return false;
}

template <class Cfg, class TC>
__device__ WholeTiles whole_tiles(const OutputArgs<TC>& out) {
    return {static_cast<int>(batch_pair_tiles<Cfg>(out.m, out.n, out.batch)), slab_count<Cfg>(out.k)};
}

// One operand's slab for stage `bar` (of matrix z of its map's batch): where the cluster's CTAs
// share it (kShared) and the partner is ready (not `alone`), this CTA's part of it, multicast
// into every CTA of the cluster; else the whole slab, into this CTA.
template <class Slab, bool kShared, int kCluster>
__device__ __forceinline__ void load_slab(uint32_t rank, bool alone, uint32_t dst, const CUtensorMap* map, int mn0,
                                          int k0, int z, uint32_t bar) {
    if constexpr (kShared) {
        if (!alone) {
            Slab::template load_part_multicast<kCluster>(rank, dst, map, mn0, k0, z, bar, (1u << kCluster) - 1);
            return;
        }
    }
    Slab::load(dst, map, mn0, k0, z, bar);
}

// Step 5's kernel body, which steps 6-10 run too: `Epilogue` writes each finished tile (step 5's
// RegisterEpilogue, step 6's TmaStoreEpilogue, ...), `Schedule` (WholeTiles or step 8's) hands
// out the work.
template <class Cfg, class T, class TC, bool kTransA, bool kTransB, class Epilogue, class Schedule>
__device__ __forceinline__ void cluster_multicast_body(const CUtensorMap* map_a, const CUtensorMap* map_b,
                                                       const OutputArgs<TC>& out, Epilogue&& epilogue,
                                                       const Schedule& schedule) {
    using SlabA = SharedSlabOfA<T, Cfg, kTransA>;
    using SlabB = SharedSlabOfB<T, Cfg, kTransB>;
    constexpr int kStages = Cfg::kStages, kStageBytes = SlabA::kBytes + SlabB::kBytes;
    constexpr bool kShareA = cluster_along_n<Cfg>();  // else B is the shared operand
    extern __shared__ unsigned char smem[];
    const uint32_t ring = align_slabs(ptx::smem_addr(smem));
    const uint32_t full = ring + kStages * kStageBytes + Cfg::kStagingBytes;  // staging: step 6's
    const RingBarriers bars{full, full + 8 * kStages};
    const int warpgroup = threadIdx.x / 128;
    const uint32_t rank = ptx::cluster_rank();
    const int2 pairs = pair_grid<Cfg>(out.m, out.n);
    const int cluster = blockIdx.x / Cfg::kCluster, clusters = gridDim.x / Cfg::kCluster;
    auto work = schedule.of(cluster, clusters);  // this cluster's units

    // This CTA's tile of a unit: its problem of the batch (the pair-tiles are numbered problem by
    // problem), and its first row of C and first column in that problem. A list that knows better
    // says (grouped.cuh: the groups' pair-tiles, numbered group by group).
    const int problem_pairs = pairs.x * pairs.y;
    auto origin = [&](const WorkUnit& w) {
        if constexpr (requires { work.origin(w, rank); }) return work.origin(w, rank);
        const int z = w.pair / problem_pairs;
        const int2 pair = Cfg::Order::tile_of(w.pair - z * problem_pairs, pairs.x, pairs.y);
        const int along = static_cast<int>(rank);
        if constexpr (kShareA) return make_int3(z, pair.x * Cfg::BM, (pair.y * Cfg::kCluster + along) * Cfg::BN);
        return make_int3(z, (pair.x * Cfg::kCluster + along) * Cfg::BM, pair.y * Cfg::BN);
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
        // The first unit's first ring of slabs (or its first slabs_alone) needs no partner: each
        // CTA loads the whole shared slab itself instead of its part multicast, so the copies
        // start at once rather than a cluster barrier later (~1500 cycles; see
        // docs/ladder/hopper.md#lab-cluster-start-end). Thread 0
        // waits for the partner before its first multicast; the other producer threads, which
        // load nothing, wait at once.
        bool partner_ready = false;
        if (threadIdx.x == 0) {
            for (int u = 0; u < work.units(); ++u) {
                const WorkUnit w = work.unit(u);
                const int3 c0 = origin(w);  // (problem, row, column)
                for (int ks = w.k_begin; ks < w.k_end; ++ks, ++s) {
                    const bool alone = Cfg::kCluster == 1 || (u == 0 && s < slabs_alone<Cfg>());  // no partner
                    if (!alone && !partner_ready) {
                        ptx::cluster_wait();  // the partner's barriers exist: multicast may signal them
                        partner_ready = true;
                    }
                    const int st = s % kStages;
                    bars.wait_free<kStages>(s);
                    const uint32_t a = ring + st * kStageBytes, bar = bars.full_of(st);
                    ptx::mbarrier_arrive_expect_tx(bar, kStageBytes);  // both slabs, whoever loads them
                    load_slab<SlabA, kShareA, Cfg::kCluster>(rank, alone, a, map_a, c0.y, ks * Cfg::BK,
                                                             c0.x * out.a_step, bar);
                    load_slab<SlabB, !kShareA, Cfg::kCluster>(rank, alone, a + SlabA::kBytes, map_b, c0.z,
                                                              ks * Cfg::BK, c0.x * out.b_step, bar);
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
        // zeroed between tiles: 64 instructions a thread less while the tensor cores wait. (FP8
        // step 2's wgmmas write `sums`, not acc: it zeroes acc itself, below.)
        float acc[Cfg::BN / 2] = {};
        SlabFragments<T, SlabA> frags;  // TF32 with A of op N: its registers (tf32_mma.cuh)
        for (int u = 0; u < work.units(); ++u) {
            const WorkUnit w = work.unit(u);
            const int3 c0 = origin(w);  // (problem, row, column)
            if constexpr (promotes_sums<Cfg>()) {
                // FP8 step 2 (docs/ladder/fp8.md#step-02): each slab's wgmmas sum afresh into
                // `sums`, a part of the tile's columns at a time; once they are done, the part is
                // added to acc on the CUDA cores, in FP32. A part rather than the whole tile: two
                // whole sets of accumulators would not fit a thread's registers.
                // With block scales (GEMMKIT_SCALE_BLOCK) each part's sums take their block's
                // factors as they are added: fa for the thread's two rows, fb for the part
                // (docs/ladder/fp8.md#block-scales). They are read a slab ahead, so that their
                // loads wait under the wgmmas; otherwise they are 1.
                constexpr int kParts = Cfg::kPromoteParts, kPartAccs = Cfg::BN / 2 / kParts;
                static_assert(Cfg::BK == 128, "a slab is one block of k of the block scales");
                const int row = c0.y + 64 * slice + 16 * (threadIdx.x / 32 % 4) + threadIdx.x % 32 / 4;
                // acc starts at 0, so that every slab's add is one FFMA, not a product or a sum
                // chosen by a select (the same time on the H200: docs/ladder/fp8.md#block-scales).
#pragma unroll
                for (int i = 0; i < Cfg::BN / 2; ++i) acc[i] = 0.0f;
                float fa[2], fb[kParts];
                epilogue.blocks.template load<kParts, Cfg::BN / kParts>(w.k_begin, row, c0.z, fa, fb);
                for (int ks = w.k_begin; ks < w.k_end; ++ks, ++s) {  // a unit has at least one slab
                    float next_fa[2] = {}, next_fb[kParts] = {};
                    if (ks + 1 < w.k_end)
                        epilogue.blocks.template load<kParts, Cfg::BN / kParts>(ks + 1, row, c0.z, next_fa, next_fb);
                    bars.wait_full<kStages>(s);
                    const uint32_t a = ring + s % kStages * kStageBytes;
#pragma unroll
                    for (int part = 0; part < kParts; ++part) {
                        float sums[kPartAccs];
                        mma_slab_columns<T, SlabA, SlabB, kParts>(sums, a, a + SlabA::kBytes, slice, part, false);
                        ptx::wgmma_wait<0>();
                        if (part == kParts - 1) release(s);
                        // acc[4 j + 2 h + c] lies on row `row + 8 h` (ptx/wgmma.cuh).
#pragma unroll
                        for (int i = 0; i < kPartAccs; ++i) {
                            const float f = fa[i / 2 % 2] * fb[part];
                            float& to = acc[part * kPartAccs + i];
                            to = fmaf(sums[i], f, to);
                        }
                    }
#pragma unroll
                    for (int h = 0; h < 2; ++h) fa[h] = next_fa[h];
#pragma unroll
                    for (int p = 0; p < kParts; ++p) fb[p] = next_fb[p];
                }
            } else {
                for (int ks = w.k_begin; ks < w.k_end; ++ks, ++s) {  // a unit has at least one slab
                    issue_slab_mma<T, SlabA, SlabB, kStages>(bars, ring, s, slice, acc, ks > w.k_begin, &frags);
                    // Step 9's epilogue stores the last tile while the tensor cores work on this one.
                    if constexpr (requires { epilogue.under_mma(staging, slice); })
                        epilogue.under_mma(staging, slice);
                    ptx::wgmma_wait<1>();
                    if (ks > w.k_begin) release(s - 1);
                }
                ptx::wgmma_wait<0>();
                release(s - 1);
            }
            if (schedule.settle(w, acc, slice, cluster))
                epilogue.store(acc, staging, slice, c0.x, c0.y + 64 * slice, c0.z);
        }
        epilogue.finish(staging, slice);
        // No CTA leaves while its partner may still signal it. The partner's multicast copies
        // into this CTA have all landed (our consumers waited for each); the partner consumers'
        // last arrivals here have landed once every stage is released. One consumer thread waits
        // for that, after its stores. Made by the producer instead, the same wait passed the
        // tests and memcheck, but racecheck never finished on the TMA-store kernels
        // (docs/ladder/hopper.md#lab-cluster-start-end).
        if (threadIdx.x == 128) bars.wait_all_released<kStages>(s);
    }
}

}  // namespace gemmkit::hopper
