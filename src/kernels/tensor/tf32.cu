// Registry rows of step 06: TF32 on the same pipeline.
#include "kernels/tensor/06_tf32.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {
namespace {

template <class Cfg>
KernelInfo tf32_row(const char* name, const char* description) {
    return {name, 6, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, 80, description, kAsyncFastPath, kAllOps, 16,
            tile_of<Cfg>(), supports_tf32, launch_tf32<Cfg>,
            entry_of<pipeline_kernel<Cfg, TunedOrder, float, float, false, false>()>,
            pipeline_smem_bytes<Cfg, float>()};
}

}  // namespace

void add_tf32_kernels(std::vector<KernelInfo>* table) {
    table->push_back(tf32_row<Tf32PipelineCfg>("tf32.06_mma_128x128x16_s4",
                                            "mma.sync m16n8k8 TF32, 128x128 tile, BK 16, 4 stages, grouped block order"));
}

}  // namespace gemmkit::tensor
