// Step 06: TF32 — FP32 data on the tensor cores through step 05's pipeline.
//
// What changed: the element is float and each MMA is mma.sync.m16n8k8.tf32 (8 k per MMA
// instead of 16; one 16-byte chunk holds 4 elements instead of 8, so the slab code is
// unchanged in chunk units, and a 16-k slab is two k steps as step 05's 32 16-bit k are).
// Fragments are rounded to TF32 after the load (cvt.rn, ties to even: one F2FP instruction on
// sm_90), as the reference rounds its inputs. ldmatrix moves 16-bit elements, so where a slab
// is stored mn-major (A with op N, B with op T) fragments are read as 8-byte pairs of
// interleaved rows, one LDS.64 a fragment pair (PairWordFragments, mma_slab.cuh).
// Preconditions: FP32 A, B, C with GEMMKIT_COMPUTE_32F_FAST_TF32. Fast path as step 04.
// Bottleneck left: the rounding (the same kernel with the inputs truncated runs faster).
// Measured: docs/ladder/tensor-cores.md#step-06 (the trials: #lab-tf32).
#pragma once

#include "kernels/tensor/05_tuned.cuh"

namespace gemmkit::tensor {

// The registered row's configurations, Tf32PipelineCfg and Tf32SmallCfg: pipeline_configs.hpp.

// Step 06 as registered, and what the Hopper TF32 steps fall back to: the plan's tiles.
inline cudaError_t launch_tf32(const Problem& p, PipelineTiles tiles, cudaStream_t stream) {
    return launch_tuned_typed<Tf32PipelineCfg, Tf32SmallCfg, TunedOrder, float, float>(p, tiles, stream);
}
inline cudaError_t launch_tf32_plan(const Problem& p, const Plan& plan, cudaStream_t stream) {
    return launch_tf32(p, static_cast<PipelineTiles>(plan.config), stream);
}

}  // namespace gemmkit::tensor
