// Step 05: tuned — operands in registers before a slab starts, C through shared memory, one
// block of 8 warps an SM, an L2-friendly block order.
//
// What changed since step 04:
// - Each k step's fragments are loaded while the previous k step's MMAs run, across slab
//   boundaries too: the slab's barrier sits before its last k step, and the next slab's first
//   fragments load before that step's MMAs (two register sets). Step 04 starts every slab
//   with a barrier and then ldmatrix latency, with the tensor cores idle.
// - The main loop runs without the copies' edge checks while the refills lie inside
//   (kEdgeFreeLoop): with them, ptxas keeps the copies behind a branch, in a block of their
//   own, and every warp issues them with no MMA beside them.
// - C leaves through shared memory in 16-byte stores (staged_epilogue.cuh) where the tile lies
//   inside C, C is 16-byte aligned and not read (beta 0); elsewhere one store an element.
// - 256 x 128 blocks of 8 warps (64 x 64 each), one block an SM, 4 stages: a quarter less L2
//   traffic a FLOP than step 04's 128 x 128 blocks (two an SM).
// - Blocks walk C in groups of kGroup tile-rows (m fastest inside a group, then the next
//   column of tiles), so the blocks resident at one time share a few A and B panels in L2.
//
// Bottleneck it aims at: the tensor pipe idle while every warp of a block waits for its
// slab's first fragments, copies its next slab, or writes its tile. 8-warp blocks lost
// against two 4-warp blocks an SM with step 04's loop; with all three changes above they win.
// Small problems run 128 x 128 tiles (launch_tuned_typed), as 256 x 128 leaves most SMs idle.
// Preconditions: as step 04.
// Measured: docs/ladder/tensor-cores.md#step-05 (8192^3 and the power cap: #lab-step-05).
#pragma once

#include "kernels/grouped_order.cuh"
#include "kernels/tensor/04_cp_async_pipeline.cuh"
#include "kernels/tensor/staged_epilogue.cuh"
#include "plan/configs.hpp"
#include "plan/plan.hpp"

namespace gemmkit::tensor {

using TunedOrder = GroupedOrder<8>;

// The registered configurations, TunedCfg and TunedSmallCfg: pipeline_configs.hpp.

// Step 05's main loop: step 04's ring, with each k step's fragments loaded while the previous
// k step's MMAs run, across slab boundaries too. The barrier of a slab sits before its last k
// step, so that the next slab's first fragments can be loaded before that step's MMAs: a warp
// enters a slab with its first operands already in registers, and the loads' latency and the
// barrier overlap the tensor cores' work instead of preceding it. Fragments take two register
// sets (2 x 32 registers beside 128 accumulators).
template <class Cfg, class Order, class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(Cfg::kThreads) cross_slab_pipeline_kernel(GemmArgs<T, TC> args) {
    constexpr int kSteps = kStepsPerSlab<Cfg, T>;
    static_assert(kSteps % 2 == 0, "a slab ends on the fragment set the next one starts with");
    extern __shared__ __align__(128) unsigned char smem[];
    // A batch's problem: A and B through the ring, C after the main loop (select_batch_c).
    const auto [m0, n0, wm0, wn0] = BlockPlace<Cfg>::template of<Order>(args);
    using Ring = SlabRing<Cfg, T, kTransA, kTransB>;
    const Ring ring(args, m0, n0, smem);
    const int slabs = ring.operands.slabs, full_end = ring.full_end();
    const typename Ring::SlabA::template Reader<Cfg::WM / 16> fragsA(wm0);
    const typename Ring::SlabB::template Reader<Cfg::WN / 16> fragsB(wn0);

    for (int s = 0; s < Cfg::kStages - 1; ++s) ring.issue(s, s);
    ptx::cp_async_wait<Cfg::kStages - 2>();  // slab 0 has landed, for every thread after the barrier
    __syncthreads();
    WarpFragments<Cfg> frags[2];
    load_fragments<Cfg, T>(frags[0], fragsA, fragsB, ring.a_stage(0), ring.b_stage(0), 0);

    float acc[Cfg::MI][Cfg::NI][4] = {};
    int read_stage = 0, write_stage = Cfg::kStages - 1;
    auto slab = [&](int s, auto refill_full) {
        const int next_stage = read_stage + 1 == Cfg::kStages ? 0 : read_stage + 1;
#pragma unroll
        for (int step = 0; step < kSteps; ++step) {
            // The next k step's fragments: this slab's, or after its last step the next slab's first.
            if (step + 1 < kSteps)
                load_fragments<Cfg, T>(frags[(step + 1) % 2], fragsA, fragsB, ring.a_stage(read_stage),
                                       ring.b_stage(read_stage), step + 1);
            else if (s + 1 < slabs)
                load_fragments<Cfg, T>(frags[0], fragsA, fragsB, ring.a_stage(next_stage), ring.b_stage(next_stage), 0);
            // The refill takes the stage of slab s - 1, whose last fragments every warp loaded
            // before the previous slab's barrier.
            if (step == 0) ring.issue(s + Cfg::kStages - 1, write_stage, refill_full);
            mma_fragments<Cfg, T>(acc, frags[step % 2]);
            if (step == kSteps - 2) {
                // Slab s + 1 has landed (kStages - 2 newer groups may fly) for every thread once
                // all pass the barrier; all of slab s's fragments are loaded by then.
                ptx::cp_async_wait<Cfg::kStages - 2>();
                __syncthreads();
            }
        }
        write_stage = read_stage;
        read_stage = next_stage;
    };
    int s = 0;
    if constexpr (Cfg::kEdgeFreeLoop)
        for (; s + Cfg::kStages - 1 < full_end; ++s) slab(s, std::true_type{});
    for (; s < slabs; ++s) slab(s, std::false_type{});
    ptx::cp_async_wait<0>();  // no copy may outlive the block (the tail groups are empty)
    using Epilogue = StagedEpilogue<Cfg, TC>;
    select_batch_c(args);
    args.C = computed_once(args.C);  // not rebuilt at each store (docs/epilogues.md#c-once)
    static_assert(!Epilogue::kApplies || !(Ring::SlabA::kPermutedUnits || Ring::SlabB::kPermutedUnits),
                  "the staged epilogue takes the accumulators in unit order");
    if constexpr (Epilogue::kApplies && Epilogue::kBytes <= pipeline_smem_bytes<Cfg, T>()) {
        if (Epilogue::serves(args.C, args.ldc, ring.operands.m_left, ring.operands.n_left, args.beta) &&
            Epilogue::serves_epilogue(args)) {
            __syncthreads();  // every warp is done with the ring, which now stages the tile
            Epilogue::store(acc, smem, args, m0, n0, wm0, wn0);
            return;
        }
    }
    store_accumulators<Cfg, TC, Ring::SlabA::kPermutedUnits, Ring::SlabB::kPermutedUnits, /*kPlainCopy=*/false>(
        acc, args, m0 + wm0, n0 + wn0);
}

// Cfg's tiles, or SmallCfg's where the plan says so (plan_pipeline, src/plan/tensor_rules.cu:
// where Cfg's would leave half of the SMs idle).
template <class Cfg, class SmallCfg, class Order, class T, class TC>
cudaError_t launch_tuned_typed(const Problem& p, PipelineTiles tiles, cudaStream_t stream) {
    if (tiles == PipelineTiles::kSmall) return launch_pipeline_typed<SmallCfg, Order, T, TC>(p, stream);
    return launch_pipeline_typed<Cfg, Order, T, TC>(p, stream);
}

// Step 05 as registered (FP16/BF16), and the Hopper steps' fallback.
inline cudaError_t launch_tuned(const Problem& p, PipelineTiles tiles, cudaStream_t stream) {
    return with_half_types(p, [&](auto t, auto tc) {
        return launch_tuned_typed<TunedCfg, TunedSmallCfg, TunedOrder, typename decltype(t)::type,
                                  typename decltype(tc)::type>(p, tiles, stream);
    });
}
inline cudaError_t launch_tuned_plan(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return launch_tuned(p, static_cast<PipelineTiles>(plan.config), stream);
}

}  // namespace gemmkit::tensor
