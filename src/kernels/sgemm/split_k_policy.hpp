// When FP32 step 13 (13_split_k.cuh) splits k: host code, which the plan (src/plan/sgemm_rules.cu)
// and the tests ask.
#pragma once

#include <cstdint>

#include "plan/split_policy.hpp"

namespace gemmkit::sgemm {

// How many k ranges to split a problem of `tiles` tiles into, on `slots` concurrent blocks: the
// split policy's FP32 rules (kSgemmSplitK, src/plan/split_policy.hpp). 1: no split.
inline int split_k_count(int64_t tiles, int64_t slots, int64_t k, int bk) {
    return split_k_ranges(kSgemmSplitK, tiles, slots, k, bk);
}

}  // namespace gemmkit::sgemm
