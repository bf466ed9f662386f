// FP32 step 13's plan: how many ranges of k step 12's tiles are split into, so that a problem of
// few tiles fills the SMs' block slots. Evidence: docs/plan.md#fp32.
#include <string>

#include "kernels/launch_common.cuh"
#include "kernels/sgemm/split_k_policy.hpp"
#include "plan/rules.hpp"
#include "registry.hpp"

namespace gemmkit {

void plan_split_k(const Problem& p, const DeviceFacts& d, Plan* plan) {
    const KernelInfo& info = *plan->kernel;
    const TileShape& t = info.tile;
    const int64_t tiles = int64_t{ceil_div(p.m, t.BM)} * ceil_div(p.n, t.BN);
    const int64_t slots = int64_t{d.sm_count} * info.blocks_per_sm;
    // A batch takes blockIdx.z, which the split would need, and its problems fill the SMs together.
    const int splits = batched(p) ? 1 : sgemm::split_k_count(tiles, slots, p.k, t.BK);
    plan->config_name = std::to_string(t.BM) + "x" + std::to_string(t.BN) + " tiles";
    plan->split = {splits > 1 ? SplitKind::kSplitK : SplitKind::kNone, tiles,
                   (p.k + t.BK - 1) / t.BK, splits > 1 ? splits : 0, splits > 1 ? tiles * splits : tiles};
    if (splits > 1)
        plan->note("split", "split-K, " + std::to_string(splits) + " ranges",
                   std::to_string(tiles) + " tiles fill less than half of the " + std::to_string(slots) +
                       " block slots (split_k_count)");
    else
        plan->note("split", "none",
                   batched(p)          ? "a batch: its problems take the grid's third dimension"
                   : tiles * 2 > slots ? "the tiles fill at least half of the block slots"
                                       : "k is too short to split");
}

}  // namespace gemmkit
