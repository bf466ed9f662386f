// Registry rows of step 06: TF32 on the same pipeline.
#include "kernels/tensor/06_tf32.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {

void add_tf32_kernels(std::vector<KernelInfo>* table) {
    using Cfg = Tf32PipelineCfg;
    table->push_back({"tf32.06_mma_256x128x16_s4", 6, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, 80,
                      "mma.sync m16n8k8 TF32 on step 05's loop: 256x128 tile, 8 warps of 64x64, BK 16, 4 stages, "
                      "grouped block order; problems of fewer tiles than half the SMs run 128x128 tiles",
                      kAsyncFastPath, kAllOps, 16, tile_of<Cfg>(), supports_tf32, launch_tf32,
                      entry_of<pipeline_kernel<Cfg, TunedOrder, float, float, false, false>()>,
                      pipeline_smem_bytes<Cfg, float>()});
}

}  // namespace gemmkit::tensor
