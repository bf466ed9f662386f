// The Hopper steps as the registry_*.cu files add them: each step's configuration, grid, slabs
// and kernels for launch_hopper_step, and add_step, which adds a step's f16 and bf16 rows. A file
// that adds a step's rows compiles its kernels, but those declared extern at the end of this file.
#pragma once

#include <vector>

#include "kernels/hopper/01_wgmma_tma.cuh"
#include "kernels/hopper/02_tma_ring.cuh"
#include "kernels/hopper/09_deferred_epilogue.cuh"
#include "kernels/hopper/10_sized_tiles.cuh"
#include "kernels/hopper/launch.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor::detail {

using namespace hopper;

// One step for launch_hopper_step: its configuration, grid, B slab, epilogue and kernel.
#define GK_HOPPER_STEP(Name, CfgT, GridT, kernel_name, SlabBT, kTmaStore_, kPadsUnaligned_)  \
    struct Name : GridT<CfgT> {                                                          \
        using Cfg = CfgT;                                                                \
        static constexpr bool kTmaStore = kTmaStore_;                                    \
        static constexpr bool kPadsUnaligned = kPadsUnaligned_;                          \
        template <class T, bool kTransB>                                                 \
        using SlabB = SlabBT<T, Cfg, kTransB>;                                           \
        template <class T, class TC, bool kTransA, bool kTransB>                        \
        static constexpr auto kernel() { return &kernel_name<T, TC, kTransA, kTransB>; } \
    }
GK_HOPPER_STEP(WgmmaTmaStep, WgmmaTmaCfg, TileGrid, wgmma_tma_kernel, SlabOfB, false, false);
GK_HOPPER_STEP(TmaRingStep, TmaRingCfg, TileGrid, tma_ring_kernel, SlabOfB, false, false);
GK_HOPPER_STEP(WarpSpecializedStep, WarpSpecializedCfg, TileGrid, warp_specialized_kernel, SlabOfB, false, false);
GK_HOPPER_STEP(PersistentStep, PersistentCfg, PersistentGrid, persistent_kernel, SlabOfB, false, false);
GK_HOPPER_STEP(ClusterMulticastStep, ClusterMulticastCfg, ClusterGrid, cluster_multicast_kernel, SharedSlabOfB,
               false, false);
// The last step, which `auto` takes, also pads operands TMA cannot read into a workspace.
GK_HOPPER_STEP(TmaStoreStep, TmaStoreCfg, ClusterGrid, tma_store_kernel, SharedSlabOfB, true, true);
#undef GK_HOPPER_STEP
struct StreamKStep : TmaStoreStep {  // step 6 with step 8's schedule
    static constexpr bool kStreamK = true;
    using Whole = TmaStoreStep;  // what runs where nothing is split
    template <class T, class TC, bool kTransA, bool kTransB>
    static constexpr auto kernel() { return &stream_k_kernel<T, TC, kTransA, kTransB>; }
};
struct DeferredWholeStep : TmaStoreStep {  // step 9 where nothing is split
    template <class T, class TC, bool kTransA, bool kTransB>
    static constexpr auto kernel() { return &deferred_epilogue_kernel<T, TC, kTransA, kTransB>; }
};
struct DeferredEpilogueStep : StreamKStep {  // step 9: step 8 with the epilogue under the wgmmas
    using Whole = DeferredWholeStep;
    using OneRound = TmaStoreStep;  // every tile in the first round: nothing to hide an epilogue under
    template <class T, class TC, bool kTransA, bool kTransB>
    static constexpr auto kernel() { return &deferred_stream_k_kernel<T, TC, kTransA, kTransB>; }
};
// What launch_step_kernel needs of a step of the cluster body on CfgT with the TMA-store
// epilogue, but its kernel.
template <class CfgT>
struct TmaStoreStepOn : ClusterGrid<CfgT> {
    using Cfg = CfgT;
    static constexpr bool kTmaStore = true;
    template <class T, bool kTransB>
    using SlabB = SharedSlabOfB<T, Cfg, kTransB>;
};
// Step 10 (10_sized_tiles.cuh): step 8's kernels on CTA tiles sized to the problem. A tile
// size's step runs stream-K (Kernels::split) and, where nothing is split, Kernels::whole.
struct TmaStoreKernels {  // f16/bf16: step 6's and step 8's kernels
    template <class T, class TC, bool kTransA, bool kTransB, class Cfg>
    static constexpr auto whole() { return &tma_store_kernel<T, TC, kTransA, kTransB, Cfg>; }
    template <class T, class TC, bool kTransA, bool kTransB, class Cfg>
    static constexpr auto split() { return &stream_k_kernel<T, TC, kTransA, kTransB, Cfg>; }
};
struct Tf32Kernels {  // TF32: step 7's and its stream-K form
    template <class T, class TC, bool kTransA, bool kTransB, class Cfg>
    static constexpr auto whole() { return &tf32_kernel<T, TC, kTransA, kTransB, Cfg>; }
    template <class T, class TC, bool kTransA, bool kTransB, class Cfg>
    static constexpr auto split() { return &tf32_stream_k_kernel<T, TC, kTransA, kTransB, Cfg>; }
};
template <class CfgT, class Kernels>
struct SizedWholeStep : TmaStoreStepOn<CfgT> {
    template <class T, class TC, bool kTransA, bool kTransB>
    static constexpr auto kernel() { return Kernels::template whole<T, TC, kTransA, kTransB, CfgT>(); }
};
template <class CfgT, class Kernels>
struct SizedStep : SizedWholeStep<CfgT, Kernels> {
    static constexpr bool kStreamK = true;
    using Whole = SizedWholeStep<CfgT, Kernels>;
    template <class T, class TC, bool kTransA, bool kTransB>
    static constexpr auto kernel() { return Kernels::template split<T, TC, kTransA, kTransB, CfgT>(); }
};
// Step 14's configurations (HopperTiles, plan_hopper_step in src/plan/hopper_rules.cu chooses
// one): step 8's kernels on CTA tiles sized to the problem.
template <class Kernels, class NarrowCfg, class MicroCfg, class MicroDeepCfg, class TinyCfg, class SmallCfg, class MidCfg>
struct SizedTileSteps {
    using Narrow = SizedStep<NarrowCfg, Kernels>;        // 64 x 16: n <= 16, B of op N
    using Micro = SizedStep<MicroCfg, Kernels>;          // 64 x 64
    using MicroDeep = SizedStep<MicroDeepCfg, Kernels>;  // 64 x 64 with a 12-slab ring
    using Tiny = SizedStep<TinyCfg, Kernels>;            // pairs of 128 x 64
    using Small = SizedStep<SmallCfg, Kernels>;          // pairs of 128 x 128
    using Mid = SizedStep<MidCfg, Kernels>;              // pairs of 128 x 192
};
struct SizedTilesStep : DeferredEpilogueStep {  // step 14: step 13, or the plan's smaller tiles
    using Tiles = SizedTileSteps<TmaStoreKernels, NarrowTileCfg, MicroTileCfg, DeepMicroTileCfg, TinyTileCfg,
                                 SmallTileCfg, MidTileCfg>;
};
static_assert(is_stream_k_step<StreamKStep>() && is_stream_k_step<SizedTilesStep>() &&
                  !is_stream_k_step<TmaStoreStep>() && !is_stream_k_step<SizedWholeStep<MicroTileCfg, TmaStoreKernels>>(),
              "the steps that run step 8's schedule");

inline constexpr const char* kTmaFastPath =
    "all ops; A and B 16-byte aligned with lda, ldb multiples of 16 bytes (TMA; else step 05 runs)";
inline constexpr const char* kPaddedFastPath =
    "all ops; A and B 16-byte aligned with lda, ldb multiples of 16 bytes (else copied into an aligned "
    "workspace first, as is an A of 192 MiB or more whose columns start on odd multiples of 16 bytes, "
    "where n >= 3000); "
    "TMA-stored C needs beta 0 and m * sizeof(C) a multiple of 16 bytes";

// The f16 and bf16 rows of a Hopper step (`level` 6-14); the last, step 14, is the one `auto` serves.
template <class Step>
void add_step(std::vector<KernelInfo>* table, const char* f16_name, const char* bf16_name, int level,
              const char* description) {
    using Cfg = typename Step::Cfg;
    add_half_pair(table,
                  {.name = f16_name, .level = level, .min_sm = 90,
                   .description = description,
                   .fast_path = Step::kPadsUnaligned ? kPaddedFastPath : kTmaFastPath,
                   .fast_alignment = 16, .tile = tile_of<Cfg>(),
                   .serves_auto = level == 14, .rules = PlanRules::kHopper,
                   .launch = launch_hopper_step<Step>,
                   .entry = entry_of<Step::template kernel<half, half, false, false>()>,
                   .dynamic_smem_bytes = step_smem_bytes<Step, half>(),
                   .copies_unaligned = Step::kPadsUnaligned,
                   // step 14 runs a batch on the mma.sync pipeline (plan_hopper_step)
                   .batches = level == 14},
                  bf16_name, entry_of<Step::template kernel<bf16, bf16, false, false>()>);
}

// The rows of each group of steps, which add_hopper_kernels (registry.cu) adds in this order.
void add_hopper_steps_06_09(std::vector<KernelInfo>* table);  // registry_06_09.cu
void add_hopper_steps_10_12(std::vector<KernelInfo>* table);  // registry_10_12.cu
void add_hopper_steps_13_14(std::vector<KernelInfo>* table);  // registry_13_14.cu
void add_hopper_tf32_steps(std::vector<KernelInfo>* table);   // registry_tf32.cu

}  // namespace gemmkit::tensor::detail

namespace gemmkit::hopper {

// Kernels compiled apart from the rows that launch them: steps 07-09's with FP32 C in registry.cu,
// beside step 05's kernels (see there), and steps 13-14's bf16 ones in registry_13_14_bf16.cu (one
// file took too long with both types).
extern template cudaError_t launch_step_typed<tensor::detail::TmaRingStep, tensor::half, float>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::TmaRingStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::WarpSpecializedStep, tensor::half, float>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::WarpSpecializedStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::PersistentStep, tensor::half, float>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::PersistentStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::DeferredEpilogueStep, tensor::bf16, tensor::bf16>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::DeferredEpilogueStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::SizedTilesStep, tensor::bf16, tensor::bf16>(
    const Problem&, const Plan&, cudaStream_t);
extern template cudaError_t launch_step_typed<tensor::detail::SizedTilesStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);

}  // namespace gemmkit::hopper
