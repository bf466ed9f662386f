// The two tensor-parallel operations, on arguments already checked (api.cpp) and a plan.
#pragma once

#include <cstdint>

#include "dist/dist_plan.hpp"
#include "dist/steps.hpp"

namespace gemmkit::dist {

gemmkit_status allgather_gemm(const Call& c, const DistPlan& plan, int64_t m, const void* x_local, int64_t ldx, void* y,
                              int64_t ldy);

gemmkit_status gemm_reducescatter(const Call& c, const DistPlan& plan, int64_t m, const void* x, int64_t ldx,
                                  void* y_local, int64_t ldy);

}  // namespace gemmkit::dist
