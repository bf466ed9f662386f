// The order in which a one-dimensional grid walks the tiles of C: groups of kGroup tile rows,
// m fastest, then the next column of the group. The blocks at work at once then cover a patch of
// about kGroup rows of tiles instead of whole columns of them, and share more of A's and B's
// slabs in L2. Used by the tensor-core steps 05-06 and Hopper step 04 on.
// 128 x 128 tiles.
#pragma once

#include <cuda_runtime.h>

namespace gemmkit {

// A one-dimensional grid, block b -> tile (tm, tn): groups of kGroup tile-rows, m fastest.
// Index: the type of the arithmetic (unsigned divisions take fewer instructions and registers).
template <int kGroup, class Index = int>
struct GroupedOrder {
    __device__ static int2 tile(int tiles_m, int tiles_n) { return tile_of(blockIdx.x, tiles_m, tiles_n); }
    // The tile of position b in this order (a persistent block walks positions itself).
    __device__ static int2 tile_of(Index b, Index tiles_m, Index tiles_n) {
        const Index per_group = kGroup * tiles_n;
        const Index first_m = b / per_group * kGroup, rows = min(Index{kGroup}, tiles_m - first_m);
        const Index local = b % per_group;
        return make_int2(static_cast<int>(first_m + local % rows), static_cast<int>(local / rows));
    }
    static dim3 grid(int tiles_m, int tiles_n) { return dim3(static_cast<unsigned>(tiles_m) * tiles_n); }
};

}  // namespace gemmkit
