// Registry rows of Hopper steps 06-09 (wgmma + TMA, TMA ring, warp specialization, persistent) of
// the f16 and bf16 families. Steps 07-09's kernels with FP32 C compile in registry.cu.
#include "kernels/hopper/registry_steps.cuh"

namespace gemmkit::tensor::detail {

void add_hopper_steps_06_09(std::vector<KernelInfo>* table) {
    add_step<WgmmaTmaStep>(table, "f16.06_wgmma_tma", "bf16.06_wgmma_tma", 6,
                           "wgmma.m64n256k16 from TMA-loaded swizzled slabs; one warpgroup, one stage");
    add_step<TmaRingStep>(table, "f16.07_tma_ring_s4", "bf16.07_tma_ring_s4", 7,
                          "4-stage TMA ring on mbarrier phases; 2 warpgroups share a 128x256 tile");
    add_step<WarpSpecializedStep>(table, "f16.08_warp_specialized", "bf16.08_warp_specialized", 8,
                                  "a producer warpgroup feeds 2 consumers through full/empty mbarriers; setmaxnreg");
    add_step<PersistentStep>(table, "f16.09_persistent", "bf16.09_persistent", 9,
                             "one block per SM walks 128x256 tiles in grouped (L2) order; ring runs across tiles");
}

}  // namespace gemmkit::tensor::detail
