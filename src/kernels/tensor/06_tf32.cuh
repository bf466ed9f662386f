// Step 06: TF32 — FP32 data on the tensor cores through the same pipeline (steps 04-05).
//
// What changed: the element is float and each MMA is mma.sync.m16n8k8.tf32 (8 k per MMA
// instead of 16; one 16-byte chunk holds 4 elements instead of 8, so the slab code is
// unchanged in chunk units). Fragments are rounded to TF32 (cvt.rn, ties to even) after the load, as
// the reference rounds its inputs. ldmatrix moves 16-bit elements, so where a slab is stored
// mn-major (A with op N, B with op T) fragments are read word by word, with a swizzle that
// keeps those reads conflict-free (mma_slab.cuh).
// Preconditions: FP32 A, B, C with GEMMKIT_COMPUTE_32F_FAST_TF32. Fast path as step 04.
// Its main loop runs without the copies' edge checks while the refills lie inside
// (PipelineCfg::kEdgeFreeLoop): 319 instructions a slab of 64 MMAs instead of 539.
// Measured (H100, 2026-11-24; NN, % of cuBLAS TF32): 4096^3 166 TFLOP/s (42.1-43.0%),
// 8192^3 152-158 (37.8-38.9%), 4097^3 66 (56.7%); with the edge checks in every slab 144
// (36.0%) and 141 (34.5%). H200 before it (commit 29b6a7d): 35.4% and 32.6%; TN 42.6%, TT
// 40.6% at 4096^3 (no word reads for A). docs/ladder.md.
#pragma once

#include "kernels/tensor/05_tuned.cuh"

namespace gemmkit::tensor {

// The configuration of the registered row (and what the Hopper TF32 step falls back to).
using Tf32PipelineCfg = PipelineCfg<128, 128, 16, 64, 64, 4, /*kEdgeFreeLoop=*/true>;

template <class Cfg, class Order = TunedOrder>
cudaError_t launch_tf32(const Problem& p, cudaStream_t stream) {
    return launch_pipeline_typed<Cfg, Order, float, float>(p, stream);
}

}  // namespace gemmkit::tensor
