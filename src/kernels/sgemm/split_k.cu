// Registry rows of step 13: step 12's configurations, split along k when C has few tiles.
#include "kernels/sgemm/13_split_k.cuh"
#include "kernels/sgemm/registry_rows.hpp"

namespace gemmkit::sgemm {
namespace {

template <class Cfg>
KernelInfo split_k_row(const char* name, const char* description) {
    return tuned_config_row<Cfg>(name, 13, 80, description, launch_split_k<Cfg>,
                                 entry_of<&split_k_kernel<Cfg, false, false, true>>);
}

}  // namespace

// The half-size tiles only: they serve the problems with few tiles. (128x128x16, capped at 128
// registers for 2 blocks an SM, spills once the split's arguments take registers.)
void add_split_k_kernels(std::vector<KernelInfo>* table) {
    table->push_back(split_k_row<AsyncCfg<128, 64, 16, 2, 2, 8, 2, 3>>(
        "sgemm.13_split_k_128x64x16_s3", "step 12's 128x64x16_s3, k split while C has fewer tiles than half the block slots"));
    table->push_back(split_k_row<AsyncCfg<64, 128, 16, 2, 2, 4, 2, 3>>(
        "sgemm.13_split_k_64x128x16_s3", "step 12's 64x128x16_s3, k split while C has fewer tiles than half the block slots"));
}

}  // namespace gemmkit::sgemm
