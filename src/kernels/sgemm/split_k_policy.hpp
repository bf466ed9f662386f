// When FP32 step 13 (13_split_k.cuh) splits k: host code, which the plan (src/plan/sgemm_rules.cu)
// and the tests ask.
#pragma once

#include <algorithm>
#include <cstdint>

namespace gemmkit::sgemm {

// How many k ranges to split a problem of `tiles` tiles into, on `slots` concurrent blocks:
// enough to fill the slots, each range at least kMinSlabs slabs (shorter ones would spend
// more on the partial sums than they save). 1: no split.
inline int split_k_count(int64_t tiles, int64_t slots, int64_t k, int bk) {
    constexpr int kMinSlabs = 8, kMaxSplits = 16;
    if (tiles <= 0 || tiles * 2 > slots) return 1;  // at least half the slots filled already
    const int64_t by_slots = slots / tiles, by_depth = k / (static_cast<int64_t>(kMinSlabs) * bk);
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>({by_slots, by_depth, kMaxSplits})));
}

}  // namespace gemmkit::sgemm
