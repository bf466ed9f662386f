// Registry rows of step 06: TF32 on the same pipeline.
#include "kernels/tensor/06_tf32.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {

void add_tf32_kernels(std::vector<KernelInfo>* table) {
    using Cfg = Tf32PipelineCfg;
    table->push_back({.name = "tf32.06_mma_256x128x16_s4", .level = 6, .min_sm = 80,
                      .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F_FAST_TF32,
                      .description = "mma.sync m16n8k8 TF32 on step 05's loop: 256x128 tile, 8 warps of 64x64, BK "
                                     "16, 4 stages, grouped block order; problems of fewer tiles than half the SMs "
                                     "run 128x128 tiles",
                      .fast_path = kAsyncFastPath,
                      .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<Cfg>(),
                      .serves_auto = true, .rules = PlanRules::kTf32Pipeline,
                      .supports = supports_tf32, .launch = launch_tf32_plan,
                      .entry = entry_of<pipeline_kernel<Cfg, TunedOrder, float, float, false, false>()>,
                      .dynamic_smem_bytes = pipeline_smem_bytes<Cfg, float>(),
                      .batches = true});
}

}  // namespace gemmkit::tensor
