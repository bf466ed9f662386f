// Registry rows of step 11: the configurations `gemmkit tune` chooses among.
// Each is a TunedCfg<BM, BN, BK, QM, QN, kLanesM, kMinBlocks>: block tile BM x BN, K-slab BK,
// thread tile 4QM x 4QN, warps of kLanesM x (32 / kLanesM) threads, kMinBlocks blocks per SM.
#include "kernels/sgemm/11_tuned.cuh"
#include "kernels/sgemm/registry_rows.hpp"

namespace gemmkit::sgemm {
namespace {

template <class Cfg>
KernelInfo tuned_row(const char* name, const char* description) {
    return tuned_config_row<Cfg>(name, 11, 50, description, runs_alone<launch_tuned<Cfg>>,
                                 entry_of<&tuned_kernel<Cfg, false, false, true>>);
}

}  // namespace

// Configurations whose register budget (65536 / (threads x blocks per SM)) holds without
// spills; the 2-blocks-per-SM variants of 128x128 spilled here and are left to step 12,
// which needs no staging registers.
void add_tuned_kernels(std::vector<KernelInfo>* table) {
    table->push_back(tuned_row<TunedCfg<128, 128, 8, 2, 2, 8, 1>>(
        "sgemm.11_tuned_128x128x8", "128x128 tile, BK 8, 8x8 per thread, 256 threads, 1 block/SM"));
    table->push_back(tuned_row<TunedCfg<256, 128, 8, 4, 2, 8, 1>>(
        "sgemm.11_tuned_256x128x8", "256x128 tile, BK 8, 16x8 per thread, 256 threads, 1 block/SM"));
    table->push_back(tuned_row<TunedCfg<128, 256, 8, 2, 4, 8, 1>>(
        "sgemm.11_tuned_128x256x8", "128x256 tile, BK 8, 8x16 per thread, 256 threads, 1 block/SM"));
}

}  // namespace gemmkit::sgemm
