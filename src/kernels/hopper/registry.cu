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
// 64 x 64 tiles, whose ring is deeper where a few of them stream long operands (deep_ring_pays).
template <class CfgT, class DeepCfgT, class Kernels>
struct MicroTileStepOn : SizedStep<CfgT, Kernels> {
    using Deep = SizedStep<DeepCfgT, Kernels>;
};
using MicroTileStep = MicroTileStepOn<MicroTileCfg, DeepMicroTileCfg, TmaStoreKernels>;
using Tf32MicroTileStep = MicroTileStepOn<Tf32MicroTileCfg, Tf32DeepMicroTileCfg, Tf32Kernels>;
// 128 x 128 tiles where 256 x 256 pair-tiles would leave half of the clusters idle, 128 x 64
// ones where even those would, 64 x 64 ones where those would and small_tiles_serve, pairs of
// 128 x 192 where those finish sooner than 256 x 256 pairs, and 64 x 64 tiles where C has at most
// 64 columns and they fill half of the SMs (launch_step_kernel).
struct TinyTileStep : SizedStep<TinyTileCfg, TmaStoreKernels> {
    using Small = MicroTileStep;
    static constexpr bool kWeighSmall = true;  // small_tiles_serve
};
struct SmallTileStep : SizedStep<SmallTileCfg, TmaStoreKernels> {
    using Small = TinyTileStep;
};
struct SizedTilesStep : DeferredEpilogueStep {  // step 10: step 9, or smaller tiles for smaller problems
    using Small = SmallTileStep;
    using Narrow = SizedStep<NarrowTileCfg, TmaStoreKernels>;  // n <= 16, B of op N
    using Columns = MicroTileStep;                                 // n <= 64, enough tiles
    using Mid = SizedStep<MidTileCfg, TmaStoreKernels>;
};
static_assert(is_stream_k_step<StreamKStep>() && is_stream_k_step<SizedTilesStep>() &&
                  !is_stream_k_step<TmaStoreStep>() && !is_stream_k_step<SizedWholeStep<MicroTileCfg, TmaStoreKernels>>(),
              "the steps that run step 8's schedule");
static_assert(weighs_small_tiles<TinyTileStep>() && !weighs_small_tiles<SmallTileStep>() &&
                  !weighs_small_tiles<SizedTilesStep>(),
              "only the 128 x 64 pairs weigh their 64 x 64 tiles");
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

// Step 10 for TF32 (level 9 of its family): the same tile sizes on step 8's TF32 kernels.
struct Tf32TinyTileStep : SizedStep<Tf32TinyTileCfg, Tf32Kernels> {
    using Small = Tf32MicroTileStep;
    static constexpr bool kWeighSmall = true;
};
struct Tf32SmallTileStep : SizedStep<Tf32SmallTileCfg, Tf32Kernels> {
    using Small = Tf32TinyTileStep;
};
struct Tf32SizedTilesStep : Tf32StreamKStep {
    using Small = Tf32SmallTileStep;
    using Narrow = SizedStep<Tf32NarrowTileCfg, Tf32Kernels>;  // n <= 16
    using Columns = Tf32MicroTileStep;                          // n <= 64, enough tiles
    using Mid = SizedStep<Tf32MidTileCfg, Tf32Kernels>;
};

// TF32 wgmma reads B K-major only (op N): B of op T is first transposed into a workspace, and
// operands TMA cannot read (or an A it reads slowly) are copied into aligned ones. Without memory
// for the transpose or for copies of operands TMA cannot read, or without the sm_90a image, the
// mma.sync pipeline of step 06 runs, which rounds the inputs to TF32 instead of truncating them.
bool runs_wgmma_tf32(const Problem& /*p*/) { return hopper_code_loaded(); }

template <class Step>
cudaError_t launch_tf32_step(const Problem& p, cudaStream_t stream) {
    auto pipeline = [&](const Problem& q) { return launch_tf32(q, stream); };
    if (!runs_wgmma_tf32(p)) return pipeline(p);
    auto wgmma = [&](const Problem& q) {
        if (q.transa == GEMMKIT_OP_T) return launch_step_kernel<Step, float, float, true, false>(q, stream);
        return launch_step_kernel<Step, float, float, false, false>(q, stream);
    };
    auto aligned = [&](const Problem& q) { return launch_with_copies(q, stream, wgmma, pipeline); };
    if (p.transb == GEMMKIT_OP_N) return aligned(p);
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

template <class Step>
void add_step(std::vector<KernelInfo>* table, const char* f16_name, const char* bf16_name, int level,
              const char* description) {
    using Cfg = typename Step::Cfg;
    add_half_pair(table, f16_name, bf16_name, level, description,
                  Step::kPadsUnaligned ? kPaddedFastPath : kTmaFastPath, 16, tile_of<Cfg>(),
                  launch_hopper_step<Step>, entry_of<Step::template kernel<half, half, false, false>()>,
                  entry_of<Step::template kernel<bf16, bf16, false, false>()>,
                  step_smem_bytes<Step, half>(), 90, Step::kPadsUnaligned);
}

// A TF32 step's row: FP32 data on wgmma's TF32 path, every op (launch_tf32_step).
template <class Step>
void add_tf32_step(std::vector<KernelInfo>* table, const char* name, int level, const char* description,
                   const char* fast_path) {
    table->push_back({name, level, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, 90, description, fast_path, kAllOps,
                      16, tile_of<Tf32Cfg>(), supports_tf32, launch_tf32_step<Step>,
                      entry_of<Step::template kernel<float, float, false, false>()>,
                      step_smem_bytes<Step, float>(), runs_wgmma_tf32, /*copies_unaligned=*/true});
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
        int flag = 0;
        const bool read = cudaMemcpyFromSymbol(&flag, hopper_code_flag, sizeof flag) == cudaSuccess;
        if (!read) cudaGetLastError();  // no image for this device: not an error of the next launch
        it = loaded.emplace(device, read && flag == 1).first;
    }
    return it->second;
}

}  // namespace gemmkit::hopper
