// How a persistent cluster grid shares out the work of a GEMM: units of (pair-tile, slab range),
// in the order each cluster runs them. Host and device code alike: the host tests check the
// schedules' arithmetic, the kernels (05_cluster_multicast.cuh and on) run it.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>  // __host__ __device__

namespace gemmkit::hopper {

// A cluster's piece of work: slabs [k_begin, k_end) of the pair-tile at position `pair` of the
// grouped order. Never empty (k_end > k_begin). Clusters earlier_from .. (this one - 1) ran the
// tile's slabs before k_begin (none when k_begin is 0).
struct WorkUnit {
    int pair, k_begin, k_end, earlier_from;
};

// One cluster's list of units, worked out once when the kernel starts (divisions are slow on
// the GPU, and a consumer asks for its next unit between two tiles, with the tensor cores idle).
struct WholeTileList {
    int cluster, clusters, slabs, count;
    __host__ __device__ int units() const { return count; }
    __host__ __device__ WorkUnit unit(int u) const { return {cluster + u * clusters, 0, slabs, cluster}; }
};

// Steps 5-7: every cluster takes whole pair-tiles in turn (cluster, cluster + clusters, ...).
struct WholeTiles {
    int pairs, slabs;
    __host__ __device__ WholeTileList of(int cluster, int clusters) const {
        return {cluster, clusters, slabs, cluster < pairs ? (pairs - 1 - cluster) / clusters + 1 : 0};
    }
    // After a unit's last wgmma: whether acc now holds the tile's whole sum, to be written to C.
    template <int kAccs>
    __host__ __device__ bool settle(const WorkUnit& /*w*/, float (&/*acc*/)[kAccs], int /*slice*/,
                                    int /*cluster*/) const {
        return true;
    }
};

}  // namespace gemmkit::hopper
