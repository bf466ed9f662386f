// dgemm.09_sized_tiles — step 08 on tiles sized to the problem: 64 x 64 blocks where 128 x 128
// tiles do not fill one round of the SMs, and tiles as narrow as C where C has few columns or
// rows.
//
// Changed from 08: a block a 128 x 128 tile leaves most of the machine idle on small problems
// (512^3: 16 tiles for 132 SMs), and stream-K can win back only part of that along k, at a
// partial-sum round trip a piece. Here such problems (dmma_small_tiles_pay, stream_k_policy.hpp:
// fewer large tiles than SMs, small ones in one round, short shares) run on 64 x 64 tiles:
// 4 warps of 32 x 32 (2 x 4 DMMA tiles of 16 x 8 a warp, 32 accumulator doubles a thread), the
// same 4-stage ring of 16-k slabs (64 KiB), up to 3 blocks an SM. The kernels are step 07's
// and step 08's, on another configuration; step 08's plan (stream_k_policy.hpp) decides whether
// the 64 x 64 tiles are shared out along k, over as many blocks as the SMs hold at once.
// A C of at most 64 columns (rows), a matrix times a few vectors, runs on tiles of 128 rows
// (columns) and 16, 32 or 64 columns (rows) instead (dmma_narrow_tile): a 128 x 128 tile at
// n = 16 spent 7/8 of its DMMAs past C's edge. Such a problem waits on its long operand, so these
// tiles run as many blocks an SM as their rings allow, with step 08's plan along k.
// Elsewhere this is step 08: 128 x 128 tiles keep their twice higher operand reuse.
// Measured: docs/ladder/fp64.md#step-09 (all shapes: #lab-step-09, #lab-narrow-tiles).
// Preconditions: as step 08.
#pragma once

#include "kernels/dgemm/08_dmma_stream_k.cuh"
#include "plan/configs.hpp"

namespace gemmkit::dgemm {

// Its configurations and small_dmma_tiles_serve: dmma_configs.hpp.

// Step 09 as the plan says (plan_dmma, src/plan/dgemm_rules.cu): its tiles and their split.
template <class Cfg, class SmallCfg>
cudaError_t launch_dmma_sized(const Problem& p, const Plan& plan, cudaStream_t stream) {
    switch (static_cast<DmmaTiles>(plan.config)) {
        case DmmaTiles::kCols16: return launch_dmma_stream_k<DmmaCols16Cfg>(p, plan.split, stream);
        case DmmaTiles::kCols32: return launch_dmma_stream_k<DmmaCols32Cfg>(p, plan.split, stream);
        case DmmaTiles::kCols64: return launch_dmma_stream_k<DmmaCols64Cfg>(p, plan.split, stream);
        case DmmaTiles::kRows16: return launch_dmma_stream_k<DmmaRows16Cfg>(p, plan.split, stream);
        case DmmaTiles::kRows32: return launch_dmma_stream_k<DmmaRows32Cfg>(p, plan.split, stream);
        case DmmaTiles::kRows64: return launch_dmma_stream_k<DmmaRows64Cfg>(p, plan.split, stream);
        case DmmaTiles::k64: return launch_dmma_stream_k<SmallCfg>(p, plan.split, stream);
        case DmmaTiles::k128: break;
    }
    return launch_dmma_stream_k<Cfg>(p, plan.split, stream);
}

}  // namespace gemmkit::dgemm
