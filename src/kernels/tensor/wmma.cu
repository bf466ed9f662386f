// Registry rows of the WMMA steps (01, 02): an f16 and a bf16 row each.
#include "kernels/tensor/01_wmma_global.cuh"
#include "kernels/tensor/02_wmma_smem.cuh"

#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {

void add_wmma_kernels(std::vector<KernelInfo>* table) {
    // Step 01's direct fragment loads need 32-byte aligned A and B with lda, ldb multiples of
    // 8 elements; 32 here is the conservative test serves_fast() can make (it also asks
    // lda * 2 % 32 == 0 and the same of C, which the kernel does not need).
    add_half_pair(table, "f16.01_wmma_global", "bf16.01_wmma_global", 1,
                  "WMMA 16x16x16, fragments loaded straight from global memory, 32x32 of C per warp",
                  "all ops; A and B 32-byte aligned with lda, ldb multiples of 8 (else tiles staged through shared memory)",
                  32, tile_of<WmmaGlobalCfg>(), launch_wmma_global,
                  entry_of<&wmma_global_kernel<half, half, false, false>>,
                  entry_of<&wmma_global_kernel<bf16, bf16, false, false>>, 0);
    add_half_pair(table, "f16.02_wmma_smem", "bf16.02_wmma_smem", 2,
                  "WMMA on 128x128x32 shared-memory tiles, 8 warps of 64x32, padded rows",
                  "all ops; A and B 16-byte aligned with lda, ldb multiples of 8 (else 2-byte loads)", 16,
                  tile_of<WmmaSmemCfg>(), launch_wmma_smem,
                  entry_of<&wmma_smem_kernel<half, half, false, false, true>>,
                  entry_of<&wmma_smem_kernel<bf16, bf16, false, false, true>>, 0);
}

}  // namespace gemmkit::tensor
