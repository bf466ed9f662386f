#include "rowmean_matvec/versions.hpp"

#include "rowmean_matvec/v1_single_block.cuh"
#include "rowmean_matvec/v2_block_per_batch.cuh"
#include "rowmean_matvec/v3_coalesced_mean.cuh"
#include "rowmean_matvec/v4_shuffle_matvec.cuh"
#include "rowmean_matvec/v5_gemm.cuh"

namespace gemmkit::rowmean {
namespace {

// One token gives the name and the entry: renaming a kernel without the table fails to compile.
#define ROWMEAN_KERNEL(fn) KernelRef{#fn, reinterpret_cast<const void*>(&fn)}

int64_t no_workspace(const Sizes&) { return 0; }

}  // namespace

const std::vector<Version>& versions() {
    static const std::vector<Version> table = {
        {"v1", "one block of L threads loops over the N batches; thread-per-row means, tree mat-vec",
         {ROWMEAN_KERNEL(rowmean_v1_kernel)}, false, supports_thread_per_row, no_workspace, run_v1},
        {"v2", "one block per batch (grid = N); otherwise v1",
         {ROWMEAN_KERNEL(rowmean_v2_kernel)}, false, supports_thread_per_row, no_workspace, run_v2},
        {"v3", "coalesced means: a warp per row, lanes stride over M, warp-shuffle sum",
         {ROWMEAN_KERNEL(rowmean_v3_kernel)}, false, supports_v3, no_workspace, run_v3},
        {"v4", "mat-vec by warp shuffles instead of shared-memory trees",
         {ROWMEAN_KERNEL(rowmean_v4_kernel)}, false, supports_v4, no_workspace, run_v4},
        {"v5", "averaging kernel + one gemmkit_sgemm (L x L times L x N) for all batches",
         {ROWMEAN_KERNEL(rowmean_v5_mean_kernel)}, true, supports_v5, v5_workspace_floats, run_v5},
    };
    return table;
}

#undef ROWMEAN_KERNEL

const Version* find_version(const std::string& name) {
    for (const Version& v : versions())
        if (name == v.name) return &v;
    return nullptr;
}

}  // namespace gemmkit::rowmean
