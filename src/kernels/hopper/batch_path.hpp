// Which batches the Hopper steps (14, tf32 09) run on their wgmma kernels, asked by the plan
// (plan_hopper_step) and by the TF32 row (whether it truncates its inputs, registry_tf32.cu).
#pragma once

#include "problem.hpp"

namespace gemmkit::hopper {

// Why a batch runs the mma.sync pipeline instead: pointer arrays (a tensor map has one base),
// strides or columns TMA cannot read as they are (a copy would be one a problem), or, for TF32,
// B of op T (a transpose a problem). nullptr where the wgmma kernels run it, and for a single
// problem.
const char* batch_pipeline_reason(const Problem& p, bool tf32);

}  // namespace gemmkit::hopper
