// Registry rows of the Hopper TF32 steps (levels 7-9 of the tf32 family), with their launcher.
#include "kernels/hopper/batch_path.hpp"
#include "kernels/hopper/registry_steps.cuh"
#include "kernels/tensor/06_tf32.cuh"

namespace gemmkit::tensor::detail {
namespace {

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
// So does a batch the plan gives the pipeline (batch_pipeline_reason).
bool runs_wgmma_tf32(const Problem& p) { return hopper_code_loaded() && batch_pipeline_reason(p, true) == nullptr; }

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
                      .copies_unaligned = true,
                      .batches = level == 9});  // on the mma.sync pipeline (plan_hopper_step)
}

}  // namespace

void add_hopper_tf32_steps(std::vector<KernelInfo>* table) {
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

}  // namespace gemmkit::tensor::detail
