// The order in which a one-dimensional grid walks the tiles of C: groups of kGroup tile rows,
// m fastest, then the next column of the group. The blocks at work at once then cover a patch of
// about kGroup rows of tiles instead of whole columns of them, and share more of A's and B's
// slabs in L2. Used by the tensor-core steps 05-06 and Hopper step 04 on.
#pragma once

#include <cuda_runtime.h>

namespace gemmkit {

// A one-dimensional grid, block b -> tile (tm, tn): groups of kGroup tile-rows, m fastest.
template <int kGroup>
struct GroupedOrder {
#ifdef __CUDACC__  // tile_of alone is host code too (tests/host/grouped_schedule_test.cpp)
    __device__ static int2 tile(int tiles_m, int tiles_n) { return tile_of(blockIdx.x, tiles_m, tiles_n); }
#endif
    // The tile of position b in this order (a persistent block walks positions itself).
    __host__ __device__ static int2 tile_of(int b, int tiles_m, int tiles_n) {
        const int per_group = kGroup * tiles_n;
        const int first_m = b / per_group * kGroup, rows = kGroup < tiles_m - first_m ? kGroup : tiles_m - first_m;
        const int local = b % per_group;
        return make_int2(first_m + local % rows, local / rows);
    }
    static dim3 grid(int tiles_m, int tiles_n) { return dim3(static_cast<unsigned>(tiles_m) * tiles_n); }
};

}  // namespace gemmkit
