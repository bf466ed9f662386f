// Registry rows of the Hopper steps (levels 6-14 of the f16 and bf16 families, 7-9 of tf32):
// wgmma + TMA.
#include <map>
#include <mutex>

#include "kernels/hopper/09_deferred_epilogue.cuh"
#include "kernels/hopper/10_sized_tiles.cuh"
#include "kernels/hopper/launch.cuh"
#include "kernels/tensor/06_tf32.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {
namespace {

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
struct Tf32Step : TmaStoreStepOn<Tf32Cfg> {
    template <class T, class TC, bool kTransA, bool kTransB>
    static constexpr auto kernel() { return &tf32_kernel<T, TC, kTransA, kTransB>; }
};
struct Tf32StreamKStep : Tf32Step {
    static constexpr bool kStreamK = true;
    using Whole = Tf32Step;
    template <class T, class TC, bool kTransA, bool kTransB>
    static constexpr auto kernel() { return &tf32_stream_k_kernel<T, TC, kTransA, kTransB>; }
};
// Step 14 for TF32 (level 9 of its family): the same tile sizes on step 8's TF32 kernels.
struct Tf32SizedTilesStep : Tf32StreamKStep {
    using Tiles = SizedTileSteps<Tf32Kernels, Tf32NarrowTileCfg, Tf32MicroTileCfg, Tf32DeepMicroTileCfg,
                                 Tf32TinyTileCfg, Tf32SmallTileCfg, Tf32MidTileCfg>;
};

// TF32 wgmma reads B K-major only (op N): B of op T is first transposed into a workspace, and
// the operands the plan copies (those TMA cannot read, or an A it reads slowly) are copied into
// aligned ones. Where the plan runs the mma.sync pipeline of step 06 (which rounds the inputs to
// TF32 instead of truncating them), or there is no memory for the transpose or for copies of
// operands TMA cannot read, step 06 runs.
bool runs_wgmma_tf32(const Problem& /*p*/) { return hopper_code_loaded(); }

template <class Step>
cudaError_t launch_tf32_step(const Problem& p, const Plan& plan, cudaStream_t stream) {
    const auto fallback_tiles = static_cast<PipelineTiles>(plan.fallback_config);
    auto pipeline = [&](const Problem& q) { return launch_tf32(q, fallback_tiles, stream); };
    if (static_cast<HopperTiles>(plan.config) == HopperTiles::kPipeline) return pipeline(p);
    auto wgmma = [&](const Problem& q) {
        if (q.transa == GEMMKIT_OP_T) return launch_step_kernel<Step, float, float, true, false>(q, plan, stream);
        return launch_step_kernel<Step, float, float, false, false>(q, plan, stream);
    };
    auto aligned = [&](const Problem& q) { return launch_with_copies(q, plan, stream, wgmma, pipeline); };
    if (!plan.transpose_b) return aligned(p);
    PaddedOperand bt;  // op(B) = B^T with B stored n x k: its transpose is op(B) stored K-major
    cudaError_t err = transpose_operand(static_cast<const float*>(p.B), p.ldb, p.n, p.k, stream, &bt);
    if (err == cudaErrorMemoryAllocation) return pipeline(p);
    if (err != cudaSuccess) return err;
    Problem q = p;
    q.transb = GEMMKIT_OP_N, q.B = bt.data, q.ldb = bt.ld;
    err = aligned(q);
    cudaFreeAsync(bt.data, stream);  // after the GEMM, in stream order
    return err;
}

constexpr const char* kTmaFastPath =
    "all ops; A and B 16-byte aligned with lda, ldb multiples of 16 bytes (TMA; else step 05 runs)";
constexpr const char* kPaddedFastPath =
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
                   .copies_unaligned = Step::kPadsUnaligned},
                  bf16_name, entry_of<Step::template kernel<bf16, bf16, false, false>()>);
}

// A TF32 step's row (`level` 7-9; `auto` serves 9): FP32 data on wgmma's TF32 path, every op
// (launch_tf32_step).
template <class Step>
void add_tf32_step(std::vector<KernelInfo>* table, const char* name, int level, const char* description,
                   const char* fast_path) {
    table->push_back({.name = name, .level = level, .min_sm = 90,
                      .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F_FAST_TF32,
                      .description = description,
                      .fast_path = fast_path,
                      .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<Tf32Cfg>(),
                      .serves_auto = level == 9, .rules = PlanRules::kTf32Hopper,
                      .supports = supports_tf32, .launch = launch_tf32_step<Step>,
                      .entry = entry_of<Step::template kernel<float, float, false, false>()>,
                      .dynamic_smem_bytes = step_smem_bytes<Step, float>(),
                      .truncates_tf32 = runs_wgmma_tf32,
                      .copies_unaligned = true});
}

}  // namespace

void add_hopper_kernels(std::vector<KernelInfo>* table) {
    add_step<WgmmaTmaStep>(table, "f16.06_wgmma_tma", "bf16.06_wgmma_tma", 6,
                           "wgmma.m64n256k16 from TMA-loaded swizzled slabs; one warpgroup, one stage");
    add_step<TmaRingStep>(table, "f16.07_tma_ring_s4", "bf16.07_tma_ring_s4", 7,
                          "4-stage TMA ring on mbarrier phases; 2 warpgroups share a 128x256 tile");
    add_step<WarpSpecializedStep>(table, "f16.08_warp_specialized", "bf16.08_warp_specialized", 8,
                                  "a producer warpgroup feeds 2 consumers through full/empty mbarriers; setmaxnreg");
    add_step<PersistentStep>(table, "f16.09_persistent", "bf16.09_persistent", 9,
                             "one block per SM walks 128x256 tiles in grouped (L2) order; ring runs across tiles");
    add_step<ClusterMulticastStep>(table, "f16.10_cluster_multicast", "bf16.10_cluster_multicast", 10,
                                   "clusters of 2 CTAs along m: each loads half of the shared B slab, multicast to both");
    add_step<TmaStoreStep>(table, "f16.11_tma_store", "bf16.11_tma_store", 11,
                           "epilogue through swizzled shared memory and TMA stores (beta 0)");
    add_step<StreamKStep>(table, "f16.12_stream_k", "bf16.12_stream_k", 12,
                          "stream-K: the last round of tiles shared out along k; partial sums through L2");
    add_step<DeferredEpilogueStep>(table, "f16.13_deferred_epilogue", "bf16.13_deferred_epilogue", 13,
                                   "step 12 with each tile's epilogue under the next tile's wgmmas (packed 16-bit, a piece a slab)");
    add_step<SizedTilesStep>(table, "f16.14_sized_tiles", "bf16.14_sized_tiles", 14,
                             "step 13, or step 12 on 128x128 (128x64, 64x64) tiles where 256x256 (128x128, 128x64) ones would "
                             "leave half the clusters idle, on 128x192 tiles where those finish sooner, on 64x16 tiles "
                             "where n <= 16 and B is op N, or on 64x64 tiles where n <= 64 and they fill half the SMs "
                             "(a 12-slab ring where a partial round of them streams long operands)");
    add_tf32_step<Tf32Step>(table, "tf32.07_wgmma_tma", 7,
                            "step 11's kernel on wgmma.m64n256k8.tf32 (A of op N from registers, B op N); truncates "
                            "inputs",
                            "all ops; B of op T is first transposed, and operands TMA cannot read are copied, into "
                            "aligned workspaces, as is an A of 192 MiB or more whose columns start on odd multiples "
                            "of 16 bytes, where n >= 3000 (where m or n is 1-4 past a multiple of 256, those copies "
                            "also form C's last rows or columns)");
    add_tf32_step<Tf32StreamKStep>(table, "tf32.08_stream_k", 8,
                                   "step 07 with stream-K: the last round of tiles shared out along k; truncates inputs",
                                   "as tf32.07_wgmma_tma");
    add_tf32_step<Tf32SizedTilesStep>(table, "tf32.09_sized_tiles", 9,
                                      "step 08, or step 08 on 128x128 (128x64, 64x64) tiles where 256x256 (128x128, "
                                      "128x64) ones would leave half the clusters idle, on 128x192 tiles where those "
                                      "finish sooner, on 64x16 tiles where n <= 16, or on 64x64 tiles where n <= 64 "
                                      "and they fill half the SMs; truncates inputs",
                                      "as tf32.07_wgmma_tma");
}

}  // namespace gemmkit::tensor

namespace gemmkit::hopper {
namespace {
// 1 in the image of a pass that compiled the kernels' bodies (sm_90a), 0 in any other.
__device__ int hopper_code_flag = GEMMKIT_HOPPER_CODE;
}  // namespace

bool hopper_code_loaded() {
    static std::mutex mutex;
    static std::map<int, bool> loaded;  // by device ordinal
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = loaded.find(device);
    if (it == loaded.end()) {
        // The first GEMM on a device may come while a stream is being captured into a graph: read
        // the flag on a stream of its own, which waits for no other, in relaxed capture mode
        // (which permits these calls in this thread while another stream captures).
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        cudaThreadExchangeStreamCaptureMode(&mode);
        int flag = 0;
        cudaStream_t own = nullptr;
        bool read = cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) == cudaSuccess;
        read = read && cudaMemcpyFromSymbolAsync(&flag, hopper_code_flag, sizeof flag, 0, cudaMemcpyDeviceToHost,
                                                 own) == cudaSuccess;
        read = read && cudaStreamSynchronize(own) == cudaSuccess;
        if (own != nullptr) cudaStreamDestroy(own);
        if (!read) cudaGetLastError();  // no image for this device: not an error of the next launch
        cudaThreadExchangeStreamCaptureMode(&mode);
        it = loaded.emplace(device, read && flag == 1).first;
    }
    return it->second;
}

}  // namespace gemmkit::hopper
