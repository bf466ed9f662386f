// Step 05: tuned — bigger warp tiles, an L2-friendly block order, the best tile shapes.
//
// What changed since step 04: blocks walk C in groups of kGroup tile-rows (m fastest inside a
// group, then the next column of tiles), so the blocks resident at one time share a few A
// panels and B panels in L2 instead of each streaming its own row of B tiles; and the
// configurations were measured against each other (mma.cu lists what lost: 8-warp blocks of
// 128 x 256, 64 x 32 warp tiles, BK 64). Two blocks of 4 warps per SM won: while one block
// waits at its barrier the other computes.
//
// Bottleneck it aims at: L2 misses of launch order on large C. Measured, the grouped order is
// within noise of step 04 on the H200 (its 60 MiB L2 holds a 4096^2 BF16 operand pair).
// Preconditions: as step 04.
// Measured (H200, commit 29b6a7d; NN, % of cuBLAS with the same types): 4096^3 FP16 411
// TFLOP/s (53.2%), BF16 416 (51.9%); 8192^3 52-56% over runs (s3: 54.6%). docs/ladder.md.
#pragma once

#include "kernels/tensor/04_cp_async_pipeline.cuh"

namespace gemmkit::tensor {

// A one-dimensional grid, block b -> tile (tm, tn): groups of kGroup tile-rows, m fastest.
template <int kGroup>
struct GroupedOrder {
    __device__ static int2 tile(int tiles_m, int tiles_n) { return tile_of(blockIdx.x, tiles_m, tiles_n); }
    // The tile of position b in this order (a persistent block walks positions itself).
    __device__ static int2 tile_of(int b, int tiles_m, int tiles_n) {
        const int per_group = kGroup * tiles_n;
        const int first_m = b / per_group * kGroup, rows = min(kGroup, tiles_m - first_m);
        const int local = b % per_group;
        return make_int2(first_m + local % rows, local / rows);
    }
    static dim3 grid(int tiles_m, int tiles_n) { return dim3(static_cast<unsigned>(tiles_m) * tiles_n); }
};

using TunedOrder = GroupedOrder<8>;

}  // namespace gemmkit::tensor
