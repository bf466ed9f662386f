// How the Hopper steps from 5 on cut C into pair-tiles (a cluster's CTA tiles) and k into slabs:
// host and device code alike (the plan's rules and the host tests count them too).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>  // __host__ __device__
#include <vector_types.h>      // int2

namespace gemmkit::hopper {

// A cluster's CTAs lie along m and share B's slabs, or (kClusterAlongN) along n and share A's:
// the narrow 128 x 64 tiles of step 10, whose A slab is twice their B slab.
template <class Cfg>
__host__ __device__ constexpr bool cluster_along_n() {
    if constexpr (requires { Cfg::kClusterAlongN; })
        return Cfg::kClusterAlongN;
    else
        return false;
}
// CTAs a cluster that share Cfg's A (B) slabs; 1 for steps without clusters.
template <class Cfg>
__host__ __device__ constexpr int ctas_sharing_a() {
    if constexpr (requires { Cfg::kCluster; })
        return cluster_along_n<Cfg>() ? Cfg::kCluster : 1;
    else
        return 1;
}
template <class Cfg>
__host__ __device__ constexpr int ctas_sharing_b() {
    if constexpr (requires { Cfg::kCluster; })
        return cluster_along_n<Cfg>() ? 1 : Cfg::kCluster;
    else
        return 1;
}

// The grid of pair-tiles over an m x n C (tiles of BM x BN, kCluster of them along m, or n).
template <class Cfg>
__host__ __device__ constexpr int2 pair_grid(int64_t m, int64_t n) {
    const int tiles_m = static_cast<int>((m + Cfg::BM - 1) / Cfg::BM), tiles_n = static_cast<int>((n + Cfg::BN - 1) / Cfg::BN);
    return int2{(tiles_m + ctas_sharing_b<Cfg>() - 1) / ctas_sharing_b<Cfg>(),
                (tiles_n + ctas_sharing_a<Cfg>() - 1) / ctas_sharing_a<Cfg>()};
}
template <class Cfg>
__host__ __device__ constexpr int64_t pair_tiles(int64_t m, int64_t n) {
    const int2 grid = pair_grid<Cfg>(m, n);
    return int64_t{grid.x} * grid.y;
}
// A CTA tile's area against 128 x 256, the unit of stream-K's cost model (stream_k.hpp), or the
// configuration's own kSlabScale where its slabs take longer than their area says.
template <class Cfg>
constexpr double tile_scale() {
    if constexpr (requires { Cfg::kSlabScale; }) return Cfg::kSlabScale;
    return static_cast<double>(Cfg::BM) * Cfg::BN / (128 * 256);
}
template <class Cfg>
__host__ __device__ constexpr int slab_count(int64_t k) {
    return static_cast<int>((k + Cfg::BK - 1) / Cfg::BK);
}
// The pair-tiles of every problem of a batch, numbered problem by problem.
template <class Cfg>
__host__ __device__ constexpr int64_t batch_pair_tiles(int64_t m, int64_t n, int64_t batch) {
    return pair_tiles<Cfg>(m, n) * batch;
}

}  // namespace gemmkit::hopper
