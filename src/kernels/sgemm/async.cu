// Registry rows of step 12: cp.async multi-stage configurations.
// AsyncCfg<BM, BN, BK, QM, QN, kLanesM, kMinBlocks, kStages, kBurstsBN, kWholeLoop>: as TunedCfg,
// plus the ring depth, the copy bursts a slab when B is contiguous along k, and whether NN with
// whole slabs runs every slab in one edge-free loop (12_async_multistage.cuh).
#include "kernels/sgemm/12_async_multistage.cuh"
#include "kernels/sgemm/registry_rows.hpp"

namespace gemmkit::sgemm {
namespace {

template <class Cfg>
KernelInfo async_row(const char* name, const char* description) {
    KernelInfo row = tuned_config_row<Cfg>(name, 12, 80, description, runs_alone<launch_async_multistage<Cfg>>,
                                           entry_of<&async_multistage_kernel<Cfg, false, false, true>>);
    row.batches = true;
    return row;
}

}  // namespace

void add_async_kernels(std::vector<KernelInfo>* table) {
    table->push_back(async_row<AsyncCfg<256, 128, 16, 4, 2, 4, 1, 3, 2, true>>(
        "sgemm.12_async_256x128x16_s3", "256x128 tile, BK 16, 16x8 per thread, warps 64x64, 3 stages, op(B) N copies in 2 bursts"));
    table->push_back(async_row<AsyncCfg<256, 128, 16, 4, 2, 4, 1, 4, 2, true>>(
        "sgemm.12_async_256x128x16_s4", "256x128 tile, BK 16, 16x8 per thread, warps 64x64, 4 stages, op(B) N copies in 2 bursts"));
    table->push_back(async_row<AsyncCfg<256, 128, 8, 4, 2, 4, 1, 3>>(
        "sgemm.12_async_256x128x8_s3", "256x128 tile, BK 8, 16x8 per thread, warps 64x64, 3 stages"));
    table->push_back(async_row<AsyncCfg<128, 128, 16, 2, 2, 8, 2, 3, 2, true>>(
        "sgemm.12_async_128x128x16_s3", "128x128 tile, BK 16, 8x8 per thread, warps 64x32, 3 stages, 2 blocks/SM, op(B) N copies in 2 bursts"));
    // Half the 128x128 tile: twice the blocks for small problems (docs/ladder/fp32.md#lab-h100).
    table->push_back(async_row<AsyncCfg<128, 64, 16, 2, 2, 8, 2, 3>>(
        "sgemm.12_async_128x64x16_s3", "128x64 tile, BK 16, 8x8 per thread, warps 64x32, 3 stages, 2+ blocks/SM"));
    table->push_back(async_row<AsyncCfg<64, 128, 16, 2, 2, 4, 2, 3>>(
        "sgemm.12_async_64x128x16_s3", "64x128 tile, BK 16, 8x8 per thread, warps 32x64, 3 stages, 2+ blocks/SM"));
    table->push_back(async_row<AsyncCfg<64, 64, 8, 2, 2, 8, 4, 3>>(
        "sgemm.12_async_64x64x8_s3", "64x64 tile, BK 8, 8x8 per thread, 64 threads, 3 stages, 4 blocks/SM"));
}

}  // namespace gemmkit::sgemm
