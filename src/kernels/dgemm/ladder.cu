// Registry rows of the FP64 ladder: CUDA-core steps 01-06, tensor-core (DMMA) steps 07-09.
#include "kernels/dgemm/01_unroll_prefetch.cuh"
#include "kernels/dgemm/02_double_buffer.cuh"
#include "kernels/dgemm/03_vector_smem.cuh"
#include "kernels/dgemm/04_two_level_prefetch.cuh"
#include "kernels/dgemm/05_edge_fast.cuh"
#include "kernels/dgemm/06_async_ring.cuh"
#include "kernels/dgemm/07_dmma.cuh"
#include "kernels/dgemm/08_dmma_stream_k.cuh"
#include "kernels/dgemm/09_sized_tiles.cuh"

#include "kernels/dgemm/registry_rows.hpp"

namespace gemmkit::dgemm {

namespace {
constexpr const char* kAnyAlignment = "all ops; any size, ld and 8-byte alignment";
constexpr const char* kVec2FastPath =
    "all ops; A and B 16-byte aligned with lda, ldb even (else 8-byte loads), C likewise for 16-byte stores";
// Step 05 with 8-byte loads (4097^3: docs/ladder/fp64.md#step-05) still beats steps 01-04 on aligned data, so
// it declares any alignment full speed and `auto` takes it for unaligned problems too.
constexpr const char* kEdgeFastPath =
    "all ops; any alignment (16-byte loads and stores when A, B, C are 16-byte aligned with even ld)";
// Step 06 copies operands that are not 16-byte aligned in 8-byte pieces into the same layout.
constexpr const char* kAsyncRingFastPath =
    "all ops, any size and alignment: 16-byte cp.async chunks along m (n) when A and B are 16-byte aligned with "
    "lda, ldb even, else 8-byte copies; k-contiguous operands always in 8-byte copies; C as step 05";
// Steps 07-09 with 8-byte cp.async copies (4097^3: above cuBLAS, docs/ladder/fp64.md#step-08)
// beat every other FP64 row, so they declare any alignment full speed and `auto` takes
// the last of them on sm_90 for all.
constexpr const char* kDmmaFastPath =
    "all ops, any size and alignment run DMMA: 16-byte cp.async chunks when A and B are 16-byte aligned with "
    "lda, ldb even, else 8-byte cp.async copies; C likewise for 16-byte stores";
}  // namespace

void add_dgemm_kernels(std::vector<KernelInfo>* table) {
    const KernelInfo rows[] = {
        {.name = "dgemm.01_unroll_prefetch", .level = 1, .min_sm = 60,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "128x128 tiles, BK 8, 8x8 doubles per thread; loops unrolled, next K-slab prefetched into "
                        "registers",
         .fast_path = kAnyAlignment,
         .fast_ops = kAllOps, .fast_alignment = 8, .tile = tile_of<UnrollPrefetchCfg>(),
         .supports = supports_f64, .launch = runs_alone<launch_unroll_prefetch>,
         .entry = entry_of<&unroll_prefetch_kernel<false, false>>},
        {.name = "dgemm.02_double_buffer", .level = 2, .min_sm = 60,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "two shared buffers: one barrier per K-slab",
         .fast_path = kAnyAlignment,
         .fast_ops = kAllOps, .fast_alignment = 8, .tile = tile_of<DoubleBufferCfg>(),
         .supports = supports_f64, .launch = runs_alone<launch_double_buffer>,
         .entry = entry_of<&double_buffer_kernel<false, false>>},
        {.name = "dgemm.03_vector_smem", .level = 3, .min_sm = 60,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "double2 fragments (LDS.128) from conflict-free padded rows, 16-byte global loads when "
                        "aligned",
         .fast_path = kVec2FastPath,
         .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<VectorSmemCfg>(),
         .supports = supports_f64, .launch = runs_alone<launch_vector_smem>,
         .entry = entry_of<&vector_smem_kernel<false, false, true>>},
        {.name = "dgemm.04_two_level_prefetch", .level = 4, .min_sm = 60,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "double-buffered register fragments too: shared latency hidden behind DFMAs",
         .fast_path = kVec2FastPath,
         .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<TwoLevelPrefetchCfg>(),
         .supports = supports_f64, .launch = runs_alone<launch_two_level_prefetch>,
         .entry = entry_of<&two_level_prefetch_kernel<false, false, true>>},
        {.name = "dgemm.05_edge_fast", .level = 5, .min_sm = 60,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "bounds checks only in edge blocks (block-uniform branch): odd sizes stay fast, no padding "
                        "copy",
         .fast_path = kEdgeFastPath,
         .fast_ops = kAllOps, .fast_alignment = 8, .tile = tile_of<EdgeFastCfg>(),
         .serves_auto = true,
         .supports = supports_f64, .launch = runs_alone<launch_edge_fast>,
         .entry = entry_of<&edge_fast_kernel<false, false, true>>,
         .batches = true},
        {.name = "dgemm.06_async_ring", .level = 6, .min_sm = 90,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "step 05's 8x8 thread tiles fed by a 4-stage cp.async ring of 16-k slabs that warps hand "
                        "over through full/empty mbarriers: no staging registers, no __syncthreads a slab",
         .fast_path = kAsyncRingFastPath,
         .fast_ops = kAllOps, .fast_alignment = 8, .tile = tile_of<AsyncRingCfg>(),
         .supports = supports_f64, .launch = runs_alone<launch_async_ring<AsyncRingCfg>>,
         .entry = entry_of<&async_ring_kernel<AsyncRingCfg, false, false, false>>,
         .dynamic_smem_bytes = AsyncRingCfg::kSmemBytes},
        {.name = "dgemm.07_dmma_warp_ring", .level = 7, .min_sm = 90,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "FP64 tensor cores: mma.sync m16n8k8 (DMMA), 64x32 warp tiles, 4-stage cp.async ring handed "
                        "over by full/empty mbarriers (no __syncthreads a slab), swizzled LDS.128 fragments (a k8 "
                        "step ahead of the DMMAs where A is op T), no edge checks while the refills lie inside",
         .fast_path = kDmmaFastPath,
         .fast_ops = kAllOps, .fast_alignment = 8, .tile = tile_of<DmmaCfg>(),
         .supports = supports_f64, .launch = runs_alone<launch_dmma<DmmaCfg>>,
         .entry = entry_of<&dmma_kernel<DmmaCfg, false, false, false>>,
         .dynamic_smem_bytes = DmmaCfg::kSmemBytes,
         .batches = true},
        {.name = "dgemm.08_dmma_stream_k", .level = 8, .min_sm = 90,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "step 07 for the whole rounds of tiles; a short, mostly idle last round shared out along k "
                        "among one block an SM (stream-K), each tile's last piece adding the earlier pieces' FP64 "
                        "sums from a workspace",
         .fast_path = kDmmaFastPath,
         .fast_ops = kAllOps, .fast_alignment = 8, .tile = tile_of<DmmaStreamKCfg>(),
         .rules = PlanRules::kDmmaStreamK,
         .supports = supports_f64, .launch = launch_dmma_stream_k_plan<DmmaStreamKCfg>,
         .entry = entry_of<&dmma_stream_k_kernel<DmmaStreamKCfg, false, false, false>>,
         .dynamic_smem_bytes = DmmaStreamKCfg::kSmemBytes,
         .batches = true},  // a batch runs step 07's kernel alone (plan_dmma)
        {.name = "dgemm.09_sized_tiles", .level = 9, .min_sm = 90,
         .dtype = GEMMKIT_R_64F, .compute = GEMMKIT_COMPUTE_64F,
         .description = "step 08 on 64x64 tiles (4 warps of 32x32, up to 3 blocks an SM) where 128x128 tiles would "
                        "be fewer than the SMs and step 08's shares short, on 128x16/32/64 (16/32/64x128) tiles "
                        "where C has at most 64 columns (rows); step 08 elsewhere (its tiles and resources below)",
         .fast_path = kDmmaFastPath,
         .fast_ops = kAllOps, .fast_alignment = 8, .tile = tile_of<DmmaStreamKCfg>(),
         .serves_auto = true,
         .rules = PlanRules::kDmmaSized,
         .supports = supports_f64, .launch = launch_dmma_sized<DmmaStreamKCfg, DmmaSmallCfg>,
         .entry = entry_of<&dmma_stream_k_kernel<DmmaStreamKCfg, false, false, false>>,
         .dynamic_smem_bytes = DmmaStreamKCfg::kSmemBytes,
         .batches = true},
    };
    table->insert(table->end(), std::begin(rows), std::end(rows));
}

int64_t dmma_stream_k_tiles_of(int64_t m, int64_t n, int64_t k, int64_t sm_count) {
    return dmma_stream_k_plan<DmmaStreamKCfg>(m, n, k, static_cast<int>(sm_count)).split;
}

}  // namespace gemmkit::dgemm
