// Registry rows of the WMMA steps (01, 02): an f16 and a bf16 row each.
#include "kernels/tensor/01_wmma_global.cuh"
#include "kernels/tensor/02_wmma_smem.cuh"

#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {

void add_wmma_kernels(std::vector<KernelInfo>* table) {
    // Step 01's direct fragment loads need 32-byte aligned A and B with lda, ldb multiples of
    // 8 elements; 32 here is the conservative test serves_fast() can make (it also asks
    // lda * 2 % 32 == 0 and the same of C, which the kernel does not need).
    add_half_pair(table,
                  {.name = "f16.01_wmma_global", .level = 1, .min_sm = 80,
                   .description = "WMMA 16x16x16, fragments loaded straight from global memory, 32x32 of C per warp",
                   .fast_path = "all ops; A and B 32-byte aligned with lda, ldb multiples of 8 (else tiles staged "
                                "through shared memory)",
                   .fast_alignment = 32, .tile = tile_of<WmmaGlobalCfg>(),
                   .launch = runs_alone<launch_wmma_global>,
                   .entry = entry_of<&wmma_global_kernel<half, half, false, false>>},
                  "bf16.01_wmma_global", entry_of<&wmma_global_kernel<bf16, bf16, false, false>>);
    add_half_pair(table,
                  {.name = "f16.02_wmma_smem", .level = 2, .min_sm = 80,
                   .description = "WMMA on 128x128x32 shared-memory tiles, 8 warps of 64x32, padded rows",
                   .fast_path = "all ops; A and B 16-byte aligned with lda, ldb multiples of 8 (else 2-byte loads)",
                   .fast_alignment = 16, .tile = tile_of<WmmaSmemCfg>(),
                   .launch = runs_alone<launch_wmma_smem>,
                   .entry = entry_of<&wmma_smem_kernel<half, half, false, false, true>>},
                  "bf16.02_wmma_smem", entry_of<&wmma_smem_kernel<bf16, bf16, false, false, true>>);
}

}  // namespace gemmkit::tensor
