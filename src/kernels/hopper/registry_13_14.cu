// Registry rows of Hopper steps 13-14 (deferred epilogue, sized tiles) of the f16 and bf16
// families; their f16 kernels compile here, their bf16 ones in registry_13_14_bf16.cu.
#include "kernels/hopper/registry_steps.cuh"

namespace gemmkit::tensor::detail {

void add_hopper_steps_13_14(std::vector<KernelInfo>* table) {
    add_step<DeferredEpilogueStep>(table, "f16.13_deferred_epilogue", "bf16.13_deferred_epilogue", 13,
                                   "step 12 with each tile's epilogue under the next tile's wgmmas (packed 16-bit, a piece a slab)");
    add_step<SizedTilesStep>(table, "f16.14_sized_tiles", "bf16.14_sized_tiles", 14,
                             "step 13, or step 12 on 128x128 (128x64, 64x64) tiles where 256x256 (128x128, 128x64) ones would "
                             "leave half the clusters idle, on 128x192 tiles where those finish sooner, on 64x16 tiles "
                             "where n <= 16 and B is op N, or on 64x64 tiles where n <= 64 and they fill half the SMs "
                             "(a 12-slab ring where a partial round of them streams long operands)");
}

}  // namespace gemmkit::tensor::detail
