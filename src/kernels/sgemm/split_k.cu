// Registry rows of step 13: step 12's configurations, split along k when C has few tiles.
#include "kernels/sgemm/13_split_k.cuh"
#include "kernels/sgemm/registry_rows.hpp"

namespace gemmkit::sgemm {
namespace {

// kBlocksPerSm: what the compiled kernel gets on sm_90 (its registers, 128 threads and 36 KiB of
// shared memory allow 3 an SM on the H100); the plan counts the GPU's block slots with it
// (plan_split_k), and a GPU test checks it against the occupancy calculator.
template <class Cfg, int kBlocksPerSm>
KernelInfo split_k_row(const char* name, const char* description) {
    KernelInfo row = tuned_config_row<Cfg>(name, 13, 80, description, launch_split_k<Cfg>,
                                           entry_of<&split_k_kernel<Cfg, false, false, true>>);
    row.rules = PlanRules::kSplitK;
    row.blocks_per_sm = kBlocksPerSm;
    row.batches = true;  // a batch runs unsplit (plan_split_k)
    return row;
}

}  // namespace

// The half-size tiles only: they serve the problems with few tiles. (128x128x16, capped at 128
// registers for 2 blocks an SM, spills once the split's arguments take registers.)
void add_split_k_kernels(std::vector<KernelInfo>* table) {
    table->push_back(split_k_row<AsyncCfg<128, 64, 16, 2, 2, 8, 2, 3>, 3>(
        "sgemm.13_split_k_128x64x16_s3", "step 12's 128x64x16_s3, k split while C has fewer tiles than half the block slots"));
    table->push_back(split_k_row<AsyncCfg<64, 128, 16, 2, 2, 4, 2, 3>, 3>(
        "sgemm.13_split_k_64x128x16_s3", "step 12's 64x128x16_s3, k split while C has fewer tiles than half the block slots"));
}

}  // namespace gemmkit::sgemm
