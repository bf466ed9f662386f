// The grouped GEMM's schedule (grouped.cuh): the groups' pair-tiles numbered group by group,
// counted from the ends, and a forward cursor that finds a unit's group. Host and device code
// alike: the host tests walk it (tests/host/grouped_schedule_test.cpp).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>  // __host__ __device__
#include <vector_types.h>      // int3

#include "kernels/hopper/pair_tiles.hpp"
#include "kernels/hopper/work_schedule.hpp"

namespace gemmkit::hopper {

// A group's tiles start at its first column rounded down to a multiple of 8: with op(B) = B^T
// (the tokens contiguous) that column is where B's TMA boxes start, and a box started off a
// 16-byte boundary faulted (illegal instruction, bf16 and f16 with op(B) = T, H200:
// docs/plan.md#grouped). The columns before the group's own belong to the group before it and
// are not written (GroupedEpilogue).
inline constexpr int kGroupColumnAlign = 8;

// Group g's own first column (the end of the group before it; 0 for the first).
__host__ __device__ inline int group_first_column(const int32_t* ends, int g) { return g == 0 ? 0 : ends[g - 1]; }

// The first column of group g's tiles, and how many columns they cover (0 for an empty group).
__host__ __device__ inline int group_tiles_begin(int begin) { return begin / kGroupColumnAlign * kGroupColumnAlign; }
__host__ __device__ inline int group_tiles_cols(int begin, int end) {
    return end > begin ? end - group_tiles_begin(begin) : 0;
}

// One cluster's units, and the cursor that maps them to groups. unit(u) as WholeTileList's.
template <class Cfg>
struct GroupedTileList {
    const int32_t* ends;
    int m, slabs, cluster, clusters, count;
    // The group of the last unit origin() was asked for: its index, its first pair-tile, its
    // pair-tiles, and the first column and columns its tiles cover (group_tiles_begin).
    int group = -1, first = 0, pairs = 0, begin = 0, cols = 0;

    __host__ __device__ int units() const { return count; }
    __host__ __device__ WorkUnit unit(int u) const { return {cluster + u * clusters, 0, slabs, cluster}; }

    // (group, first row, first column of C) of this CTA's tile (rank in the cluster) of unit w.
    // Units must be asked for in rising order, as the kernel body does.
    __host__ __device__ int3 origin(const WorkUnit& w, uint32_t rank) {
        while (w.pair >= first + pairs) {  // on to the group that holds it (empty ones hold none)
            first += pairs;
            ++group;
            const int own = group_first_column(ends, group);
            begin = group_tiles_begin(own);
            cols = group_tiles_cols(own, ends[group]);
            pairs = static_cast<int>(pair_tiles<Cfg>(m, cols));
        }
        const int2 grid = pair_grid<Cfg>(m, cols);
        const int2 pair = Cfg::Order::tile_of(w.pair - first, grid.x, grid.y);
        const int along = static_cast<int>(rank);
        if constexpr (cluster_along_n<Cfg>())
            return int3{group, pair.x * Cfg::BM, begin + (pair.y * Cfg::kCluster + along) * Cfg::BN};
        return int3{group, (pair.x * Cfg::kCluster + along) * Cfg::BM, begin + pair.y * Cfg::BN};
    }
};

// The schedule: every group's pair-tiles, numbered group by group, taken in turn by the clusters
// (cluster, cluster + clusters, ...), each whole.
template <class Cfg>
struct GroupedTiles {
    const int32_t* ends;
    int groups, m, n, slabs;

    // The pair-tiles of all groups; 0 where the ends are negative, go down or pass n.
    __host__ __device__ int total() const {
        int sum = 0, previous = 0;
        for (int g = 0; g < groups; ++g) {
            const int end = ends[g];
            if (end < previous || end > n) return 0;
            sum += static_cast<int>(pair_tiles<Cfg>(m, group_tiles_cols(previous, end)));
            previous = end;
        }
        return sum;
    }
    __host__ __device__ GroupedTileList<Cfg> of(int cluster, int clusters) const {
        const int all = total();
        return {ends, m, slabs, cluster, clusters, cluster < all ? (all - 1 - cluster) / clusters + 1 : 0};
    }
    template <int kAccs>
    __host__ __device__ bool settle(const WorkUnit& /*w*/, float (&/*acc*/)[kAccs], int /*slice*/, int /*cluster*/) const {
        return true;  // every unit is a whole tile
    }
};

}  // namespace gemmkit::hopper
