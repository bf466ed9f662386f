// The split along k, one policy for every family: stream-K's split of a short last round (FP64
// steps 08-09, Hopper steps 08 and later) and split-K's ranges of k (FP32 step 13). Each
// family's constants are a row below; what each was measured on is in
// docs/plan.md#the-split-policy, not here. Host code (the plan, the launchers, the tests).
#pragma once

#include <algorithm>
#include <cstdint>

namespace gemmkit {

// ---- stream-K: the last round shared out along k --------------------------------------------
// `units` tiles (or pair-tiles) of `slabs` k-slabs run on `workers` blocks (or clusters) in
// rounds; the last round keeps only units % workers of them busy. Its units are laid end to end
// and cut into equal shares along k, one a worker, where that saves more than it costs.
struct StreamKRules {
    int min_share_slabs;          // a share holds at least this many slabs
    int64_t max_whole_rounds;     // after this many whole rounds, no split (0: any number)
    bool single_round_any_busy;   // a single round may split however busy (else: half idle at least)
    bool whole_slab_shares;       // a share's length counted in whole slabs (rounded down)
    double fixed_cost_slabs;      // what a split costs, in slabs of a reference tile...
    double piece_cost_slabs;      // ...plus this for each piece a unit is cut into, scaled by the tile
    double fewer_slab_scale;      // a slab weighs at least this where fewer workers share one round
};

// FP64 steps 08-09 (DMMA, 128 x 128 and 64 x 64 tiles; a slab is one of the tile's own).
inline constexpr StreamKRules kDmmaStreamK = {
    .min_share_slabs = 8,
    .max_whole_rounds = 16,
    .single_round_any_busy = false,
    .whole_slab_shares = true,
    .fixed_cost_slabs = 23,  // a split must save 24 whole slabs a block
    .piece_cost_slabs = 0,
    .fewer_slab_scale = 0,
};

// Hopper steps 08 and later (wgmma; slabs and costs in those of a 128 x 256 tile).
inline constexpr StreamKRules kHopperStreamK = {
    .min_share_slabs = 4,
    .max_whole_rounds = 0,
    .single_round_any_busy = true,
    .whole_slab_shares = false,
    .fixed_cost_slabs = 15,
    .piece_cost_slabs = 3.4,
    .fewer_slab_scale = 0.3,
};

// The split: the last `units` units (0: none) cut into `workers` shares of `share` slabs each,
// at a cost of `cost` slabs.
struct LastRoundSplit {
    int64_t units = 0, workers = 0;
    double share = 0, cost = 0;
};

// The workers that share out the last round of `units` units: all `workers`, or, in a single
// round whose slabs cannot give each of them min_share_slabs, as many as they can.
inline int64_t last_round_workers(const StreamKRules& rules, int64_t units, int64_t workers, int64_t slabs) {
    const int64_t fit = units % workers * slabs / rules.min_share_slabs;
    return units < workers && fit < workers ? fit : workers;
}

// How `workers` share out the last round of `units` units of `slabs` slabs under `rules`.
// `tile_scale`: a unit's area against the reference tile's (its slabs' time and its partial sums
// scale with it; the fixed cost does not).
//  - After whole rounds, only a last round at least half idle is split, then over every worker,
//    each a share of min_share_slabs at least.
//  - A single round too short for that is shared out over as many workers as it gives
//    min_share_slabs each, at least two a unit (the others idle), and charged the fixed cost only.
//  - Split only where the slabs a worker saves outweigh the cost.
inline LastRoundSplit split_last_round(const StreamKRules& rules, int64_t units, int64_t workers, int64_t slabs,
                                       double tile_scale = 1.0) {
    if (units <= 0 || workers <= 0 || slabs <= 0) return {};
    const int64_t rest = units % workers;
    const bool single_round = units < workers;
    if (rest == 0) return {};
    if ((!single_round || !rules.single_round_any_busy) && 2 * rest > workers) return {};
    if (rules.max_whole_rounds > 0 && units / workers >= rules.max_whole_rounds) return {};
    const int64_t used = last_round_workers(rules, units, workers, slabs);
    const bool fewer = used < workers;
    // A whole share for every worker used: at least two a unit, or after whole rounds all of them.
    if (fewer ? used < 2 * rest : rest * slabs / rules.min_share_slabs < workers) return {};
    const double share = rules.whole_slab_shares ? static_cast<double>(rest * slabs / used)
                                                 : static_cast<double>(rest * slabs) / static_cast<double>(used);
    const double pieces = static_cast<double>(used) / static_cast<double>(rest);  // a split unit's, about
    const double cost = rules.fixed_cost_slabs + (fewer ? 0.0 : rules.piece_cost_slabs * pieces * tile_scale);
    const double slab_scale = fewer && tile_scale < rules.fewer_slab_scale ? rules.fewer_slab_scale : tile_scale;
    if ((static_cast<double>(slabs) - share) * slab_scale <= cost) return {};
    return {rest, used, share, cost};
}

// ---- split-K: every tile's k cut into ranges ------------------------------------------------
struct SplitKRules {
    int min_range_slabs;  // a range holds at least this many slabs
    int max_ranges;
};

// FP32 step 13 (step 12's tiles).
inline constexpr SplitKRules kSgemmSplitK = {.min_range_slabs = 8, .max_ranges = 16};

// How many ranges of k a problem of `tiles` tiles is cut into on `slots` concurrent blocks
// (slabs of `bk`): enough to fill the slots, none where the tiles fill half of them. 1: no split.
inline int split_k_ranges(const SplitKRules& rules, int64_t tiles, int64_t slots, int64_t k, int bk) {
    if (tiles <= 0 || tiles * 2 > slots) return 1;
    const int64_t by_slots = slots / tiles, by_depth = k / (static_cast<int64_t>(rules.min_range_slabs) * bk);
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({by_slots, by_depth, rules.max_ranges})));
}

// The few-vectors kernel (src/plan/few_vectors_rules.cu): as many ranges of k as fit its blocks
// into one round of block slots, each at least this long (in elements of k).
inline constexpr int64_t kFewVectorsMinRangeK = 256;

}  // namespace gemmkit
