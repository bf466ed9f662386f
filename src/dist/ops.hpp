// The two tensor-parallel operations, on arguments already checked (api.cpp) and a plan.
#pragma once

#include <cstdint>

#include "dist/dist_plan.hpp"
#include "dist/steps.hpp"

namespace gemmkit::dist {

gemmkit_status allgather_gemm(const Call& c, const DistPlan& plan, int64_t m, const void* x_local, int64_t ldx, void* y,
                              int64_t ldy);

// Rows of one slot of the copy engines' window: the largest rank's block, so that every
// rank's fits and every collective moves the same count.
int64_t slot_rows_of(int64_t m, int ranks);

gemmkit_status gemm_reducescatter(const Call& c, const DistPlan& plan, int64_t m, const void* x, int64_t ldx,
                                  void* y_local, int64_t ldy);

}  // namespace gemmkit::dist
