// Registry rows of step 03: mma.sync + ldmatrix (f16 and bf16).
#include "kernels/tensor/03_mma_ldmatrix.cuh"
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {

void add_mma_ldmatrix_kernels(std::vector<KernelInfo>* table) {
    add_half_pair(table,
                  {.name = "f16.03_mma_ldmatrix", .level = 3, .min_sm = 80,
                   .description = "mma.sync m16n8k16 + ldmatrix.x4 from swizzled shared memory; 128x128, 8 warps of "
                                  "64x32",
                   .fast_path = kChunkFastPath,
                   .fast_alignment = 16, .tile = tile_of<MmaLdmatrixCfg<half>>(),
                   .launch = runs_alone<launch_mma_ldmatrix<MmaLdmatrixCfg>>,
                   .entry = entry_of<&mma_ldmatrix_kernel<MmaLdmatrixCfg<half>, half, half, false, false, true>>,
                   .batches = true},
                  "bf16.03_mma_ldmatrix",
                  entry_of<&mma_ldmatrix_kernel<MmaLdmatrixCfg<bf16>, bf16, bf16, false, false, true>>);
}

}  // namespace gemmkit::tensor
