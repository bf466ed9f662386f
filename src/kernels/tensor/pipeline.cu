// Registry rows of steps 04 (cp.async pipeline) and 05 (tuned): f16 and bf16.
#include "kernels/tensor/05_tuned.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {
namespace {

template <class Cfg, class Order, class T>
const void* pipeline_entry() {
    return entry_of<pipeline_kernel<Cfg, Order, T, T, false, false>()>();
}

// The rows of configuration Cfg (as the resource reports describe it): `row` as the f16 one.
template <class Cfg, class Order>
void add_pipeline_pair(std::vector<KernelInfo>* table, KernelInfo row, const char* bf16_name) {
    row.fast_path = kAsyncFastPath;
    row.fast_alignment = 16;
    row.tile = tile_of<Cfg>();
    row.entry = pipeline_entry<Cfg, Order, half>;
    row.dynamic_smem_bytes = pipeline_smem_bytes<Cfg, half>();
    row.batches = true;
    add_half_pair(table, row, bf16_name, pipeline_entry<Cfg, Order, bf16>);
}

}  // namespace

void add_pipeline_kernels(std::vector<KernelInfo>* table) {
    add_pipeline_pair<Step04Cfg, LaunchOrder>(
        table,
        {.name = "f16.04_cp_async_s4", .level = 4, .min_sm = 80,
         .description = "step 03 fed by a 4-stage cp.async ring; 128x128, 4 warps of 64x64",
         .launch = runs_alone<launch_cp_async_pipeline<Step04Cfg, LaunchOrder>>},
        "bf16.04_cp_async_s4");
    // Step 05. Its neighbours (128x256 blocks, 256x128x64 slabs, 6 stages, groups of 4 or 16
    // tile-rows, 128x128 blocks two an SM) measured within noise or below it
    // (docs/ladder/tensor-cores.md#lab-step-05).
    add_pipeline_pair<TunedCfg, TunedOrder>(
        table,
        {.name = "f16.05_tuned_256x128x32_s4", .level = 5, .min_sm = 80,
         .description = "256x128 tile, 8 warps of 64x64 (1 block/SM), 4 stages; fragments loaded a k step ahead, "
                        "across slabs; C through shared memory; grouped block order; problems of fewer tiles than "
                        "half the SMs run 128x128 tiles",
         .serves_auto = true, .rules = PlanRules::kPipeline,
         .launch = launch_tuned_plan},
        "bf16.05_tuned_256x128x32_s4");
}

}  // namespace gemmkit::tensor
