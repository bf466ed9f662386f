// Registry rows of steps 04 (cp.async pipeline) and 05 (tuned): f16 and bf16.
#include "kernels/tensor/05_tuned.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {
namespace {

template <class Cfg, class Order, class T>
const void* pipeline_entry() {
    return entry_of<&cp_async_pipeline_kernel<Cfg, Order, T, T, false, false>>();
}

template <class Cfg, class Order>
void add_pipeline_pair(std::vector<KernelInfo>* table, const char* f16_name, const char* bf16_name, int level,
                       const char* description) {
    add_half_pair(table, f16_name, bf16_name, level, description, kAsyncFastPath, 16, tile_of<Cfg>(),
                  launch_cp_async_pipeline<Cfg, Order>, pipeline_entry<Cfg, Order, half>,
                  pipeline_entry<Cfg, Order, bf16>, pipeline_smem_bytes<Cfg, half>());
}

// Measured on an H200 (bf16, % of cuBLAS at 4096^3 / 8192^3): 128x128x32 with 2 blocks of 4
// warps per SM 52 / 56%, with 3 stages 52 / 55%; 8-warp blocks (128x256 tiles, or 64x32 warp
// tiles) 40-50%; BK 64 spills.
using Step04Cfg = PipelineCfg<128, 128, 32, 64, 64, 4>;
using Tuned128x128S4 = PipelineCfg<128, 128, 32, 64, 64, 4>;
using Tuned128x128S3 = PipelineCfg<128, 128, 32, 64, 64, 3>;

}  // namespace

void add_pipeline_kernels(std::vector<KernelInfo>* table) {
    add_pipeline_pair<Step04Cfg, LaunchOrder>(table, "f16.04_cp_async_s4", "bf16.04_cp_async_s4", 4,
                                              "step 03 fed by a 4-stage cp.async ring; 128x128, 4 warps of 64x64");
    // Step 05, best first: among rows of one level `auto` takes the first that serves the problem.
    add_pipeline_pair<Tuned128x128S4, TunedOrder>(
        table, "f16.05_tuned_128x128x32_s4", "bf16.05_tuned_128x128x32_s4", 5,
        "128x128 tile, 4 warps of 64x64 (2 blocks/SM), 4 stages, grouped block order");
    add_pipeline_pair<Tuned128x128S3, TunedOrder>(
        table, "f16.05_tuned_128x128x32_s3", "bf16.05_tuned_128x128x32_s3", 5,
        "128x128 tile, 4 warps of 64x64 (2 blocks/SM), 3 stages, grouped block order");
}

}  // namespace gemmkit::tensor
