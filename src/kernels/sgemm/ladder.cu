// Registry rows of the FP32 SIMT ladder, steps 01-10.
#include "kernels/sgemm/01_naive.cuh"
#include "kernels/sgemm/02_coalesced.cuh"
#include "kernels/sgemm/03_smem_tiling.cuh"
#include "kernels/sgemm/04_register_blocking_1d.cuh"
#include "kernels/sgemm/05_register_blocking_2d.cuh"
#include "kernels/sgemm/06_vectorized.cuh"
#include "kernels/sgemm/07_bank_conflict_free.cuh"
#include "kernels/sgemm/08_double_buffering.cuh"
#include "kernels/sgemm/09_two_level_prefetch.cuh"
#include "kernels/sgemm/10_warp_tiling.cuh"

#include "kernels/sgemm/registry_rows.hpp"

namespace gemmkit::sgemm {

void add_ladder_kernels(std::vector<KernelInfo>* table) {
    const KernelInfo rows[] = {
        {"sgemm.01_naive", 1, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "one thread per C element, warps along C's columns (uncoalesced)",
         "none: the teaching baseline", 0u, 4, {1, 1, 1, 1024}, supports_f32_simt, launch_naive,
         entry_of<&naive_kernel<false, false>>},
        {"sgemm.02_coalesced", 2, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "one thread per C element, warps along C's rows (coalesced)",
         "op(A) = N (NN, NT); any alignment", kOpsWithAN, 4, {1, 1, 1, 1024}, supports_f32_simt, launch_coalesced,
         entry_of<&coalesced_kernel<false, false>>},
        {"sgemm.03_smem_tiling", 3, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "32x32 tiles of A and B staged in shared memory",
         "all ops; any alignment", kAllOps, 4,
         tile_of<SmemTilingCfg>(), supports_f32_simt,
         launch_smem_tiling, entry_of<&smem_tiling_kernel<false, false>>},
        {"sgemm.04_register_blocking_1d", 4, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "64x64 tiles, 8 results per thread along a row of C",
         "all ops; any alignment", kAllOps, 4,
         tile_of<RegisterBlocking1dCfg>(), supports_f32_simt, launch_register_blocking_1d, entry_of<&register_blocking_1d_kernel<false, false>>},
        {"sgemm.05_register_blocking_2d", 5, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "128x128 tiles, BK 8, an 8x8 block of C per thread (256 threads)",
         "all ops; any alignment", kAllOps, 4,
         tile_of<RegisterBlocking2dCfg>(), supports_f32_simt, launch_register_blocking_2d, entry_of<&register_blocking_2d_kernel<false, false>>},
        {"sgemm.06_vectorized", 6, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "step 05 with 128-bit global loads and LDS.128 fragment reads", kVec4FastPath, kAllOps, 16,
         tile_of<VectorizedCfg>(), supports_f32_simt, launch_vectorized,
         entry_of<&vectorized_kernel<false, false, true>>},
        {"sgemm.07_bank_conflict_free", 7, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "8x8 thread tile as 4x4 quadrants, padded rows: no shared-memory bank conflicts", kVec4FastPath, kAllOps,
         16, tile_of<BankConflictFreeCfg>(), supports_f32_simt, launch_bank_conflict_free,
         entry_of<&bank_conflict_free_kernel<false, false, true>>},
        {"sgemm.08_double_buffering", 8, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "two shared buffers: the next K-slab loads while this one computes", kVec4FastPath, kAllOps, 16,
         tile_of<DoubleBufferingCfg>(), supports_f32_simt, launch_double_buffering,
         entry_of<&double_buffering_kernel<false, false, true>>},
        {"sgemm.09_two_level_prefetch", 9, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "double-buffered register fragments too: shared latency hidden behind FMAs", kVec4FastPath, kAllOps, 16,
         tile_of<TwoLevelPrefetchCfg>(), supports_f32_simt, launch_two_level_prefetch,
         entry_of<&two_level_prefetch_kernel<false, false, true>>},
        {"sgemm.10_warp_tiling", 10, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 50,
         "64x32 warp tiles of 8x4 lanes: less shared traffic per FMA", kVec4FastPath, kAllOps, 16,
         tile_of<WarpTilingCfg>(), supports_f32_simt, launch_warp_tiling,
         entry_of<&warp_tiling_kernel<false, false, true>>},
    };
    table->insert(table->end(), std::begin(rows), std::end(rows));
}

}  // namespace gemmkit::sgemm
