// The mma.sync pipeline's plan (f16/bf16 step 05, tf32 step 06, and what the Hopper steps fall
// back to): 256 x 128 tiles, or 128 x 128 ones where those would leave half of the SMs idle.
// Evidence: docs/plan.md#pipeline.
#include <string>

#include "kernels/tensor/pipeline_configs.hpp"
#include "plan/configs.hpp"
#include "plan/rules.hpp"

namespace gemmkit {
namespace {

template <class Cfg, class SmallCfg>
void plan_tiles(const Problem& p, const DeviceFacts& d, Plan* plan) {
    // A batch's problems run side by side, a layer of the grid each: their tiles count together.
    const int64_t tiles = (p.m + Cfg::BM - 1) / Cfg::BM * ((p.n + Cfg::BN - 1) / Cfg::BN) * p.batch.count;
    if (2 * tiles <= d.sm_count) {
        take_tiles<SmallCfg>(static_cast<int>(PipelineTiles::kSmall), plan);
        plan->note("tiles", plan->config_name,
                   std::to_string(tiles) + " tiles of " + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) +
                       (p.batch.count > 1 ? " (all the batch's)" : "") + " would leave half of the SMs idle");
    } else {
        take_tiles<Cfg>(static_cast<int>(PipelineTiles::kLarge), plan);
        plan->note("tiles", plan->config_name, "the large tiles fill at least half of the SMs");
    }
    plan->epilogue = EpiloguePath::kStaged;
}

}  // namespace

void plan_pipeline(const Problem& p, const DeviceFacts& d, bool tf32, Plan* plan) {
    if (tf32)
        plan_tiles<tensor::Tf32PipelineCfg, tensor::Tf32SmallCfg>(p, d, plan);
    else
        plan_tiles<tensor::TunedCfg, tensor::TunedSmallCfg>(p, d, plan);
}

}  // namespace gemmkit
