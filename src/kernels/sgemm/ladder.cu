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
        {.name = "sgemm.01_naive", .level = 1, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "one thread per C element, warps along C's columns (uncoalesced)",
         .fast_path = "none: the teaching baseline",
         .fast_ops = 0u, .fast_alignment = 4, .tile = {1, 1, 1, 1024},
         .supports = supports_f32_simt, .launch = runs_alone<launch_naive>,
         .entry = entry_of<&naive_kernel<false, false>>},
        {.name = "sgemm.02_coalesced", .level = 2, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "one thread per C element, warps along C's rows (coalesced)",
         .fast_path = "op(A) = N (NN, NT); any alignment",
         .fast_ops = kOpsWithAN, .fast_alignment = 4, .tile = {1, 1, 1, 1024},
         .supports = supports_f32_simt, .launch = runs_alone<launch_coalesced>,
         .entry = entry_of<&coalesced_kernel<false, false>>},
        {.name = "sgemm.03_smem_tiling", .level = 3, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "32x32 tiles of A and B staged in shared memory",
         .fast_path = "all ops; any alignment",
         .fast_ops = kAllOps, .fast_alignment = 4, .tile = tile_of<SmemTilingCfg>(),
         .supports = supports_f32_simt, .launch = runs_alone<launch_smem_tiling>,
         .entry = entry_of<&smem_tiling_kernel<false, false>>},
        {.name = "sgemm.04_register_blocking_1d", .level = 4, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "64x64 tiles, 8 results per thread along a row of C",
         .fast_path = "all ops; any alignment",
         .fast_ops = kAllOps, .fast_alignment = 4, .tile = tile_of<RegisterBlocking1dCfg>(),
         .supports = supports_f32_simt, .launch = runs_alone<launch_register_blocking_1d>,
         .entry = entry_of<&register_blocking_1d_kernel<false, false>>},
        {.name = "sgemm.05_register_blocking_2d", .level = 5, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "128x128 tiles, BK 8, an 8x8 block of C per thread (256 threads)",
         .fast_path = "all ops; any alignment",
         .fast_ops = kAllOps, .fast_alignment = 4, .tile = tile_of<RegisterBlocking2dCfg>(),
         .serves_auto = true,
         .supports = supports_f32_simt, .launch = runs_alone<launch_register_blocking_2d>,
         .entry = entry_of<&register_blocking_2d_kernel<false, false>>},
        {.name = "sgemm.06_vectorized", .level = 6, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "step 05 with 128-bit global loads and LDS.128 fragment reads",
         .fast_path = kVec4FastPath,
         .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<VectorizedCfg>(),
         .supports = supports_f32_simt, .launch = runs_alone<launch_vectorized>,
         .entry = entry_of<&vectorized_kernel<false, false, true>>},
        {.name = "sgemm.07_bank_conflict_free", .level = 7, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "8x8 thread tile as 4x4 quadrants, padded rows: no shared-memory bank conflicts",
         .fast_path = kVec4FastPath,
         .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<BankConflictFreeCfg>(),
         .supports = supports_f32_simt, .launch = runs_alone<launch_bank_conflict_free>,
         .entry = entry_of<&bank_conflict_free_kernel<false, false, true>>},
        {.name = "sgemm.08_double_buffering", .level = 8, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "two shared buffers: the next K-slab loads while this one computes",
         .fast_path = kVec4FastPath,
         .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<DoubleBufferingCfg>(),
         .supports = supports_f32_simt, .launch = runs_alone<launch_double_buffering>,
         .entry = entry_of<&double_buffering_kernel<false, false, true>>},
        {.name = "sgemm.09_two_level_prefetch", .level = 9, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "double-buffered register fragments too: shared latency hidden behind FMAs",
         .fast_path = kVec4FastPath,
         .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<TwoLevelPrefetchCfg>(),
         .supports = supports_f32_simt, .launch = runs_alone<launch_two_level_prefetch>,
         .entry = entry_of<&two_level_prefetch_kernel<false, false, true>>},
        {.name = "sgemm.10_warp_tiling", .level = 10, .min_sm = 50,
         .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
         .description = "64x32 warp tiles of 8x4 lanes: less shared traffic per FMA",
         .fast_path = kVec4FastPath,
         .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<WarpTilingCfg>(),
         .supports = supports_f32_simt, .launch = runs_alone<launch_warp_tiling>,
         .entry = entry_of<&warp_tiling_kernel<false, false, true>>},
    };
    table->insert(table->end(), std::begin(rows), std::end(rows));
}

}  // namespace gemmkit::sgemm
