// Stream-K for the last wave (Hopper step 8): the arithmetic of who runs which slabs.
//
// With whole tiles, a grid of G clusters runs P pair-tiles in ceil(P / G) rounds, and in the
// last round only P % G clusters work: 4097^3 BF16 has 289 pair-tiles on 66 clusters, 4.38
// rounds' work in 5, 12% of the machine idle. Here the last P % G pair-tiles are laid end to end
// as one run of slabs and cut into G equal shares, one a cluster (stream-K, Osama et al., PPoPP
// 2023). The other tiles stay whole: every cluster runs the same number of them first.
//
// A share splits at tile boundaries into pieces. A tile's last piece (the one holding its last
// slab) is the one that writes it: it waits for the earlier pieces' sums, which their clusters
// leave in a workspace, and adds them in a fixed order (the result does not depend on timing).
// Each cluster runs its share backwards, last piece first. Then a cluster's only piece that is
// not a tile's last is the first piece it runs, and a last piece waits only for lower-numbered
// clusters' first pieces, which wait for nothing: no cycle, and short waits, since all clusters
// reach their pieces at about the same time.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>  // __host__ __device__

#include "kernels/hopper/work_schedule.hpp"

namespace gemmkit::hopper {

// How many of `pairs` pair-tiles (the last ones) to split along k on `clusters` clusters, with
// `slabs` slabs a tile; 0 for none. A split costs a round trip of FP32 partial sums through L2
// (128 KiB a CTA, written by one piece and read by the next: on the H100 worth several slabs of
// math each way) and a second prologue and epilogue for the tile, so it is done only where it
// buys back much idle machine: a last round at least half idle, with shares of at least
// kMinShareSlabs slabs. Measured on the H100 (BF16): splitting the last round at 4096^3 (58 of 66
// clusters busy, 8 slabs a cluster to gain) made the kernel 3% slower than whole tiles, and
// splitting it together with one more round 6% slower.
inline constexpr int kMinShareSlabs = 4;
inline int64_t stream_k_pairs(int64_t pairs, int64_t clusters, int64_t slabs) {
    if (pairs <= 0 || clusters <= 0 || slabs <= 0) return 0;
    const int64_t rest = pairs % clusters;
    if (rest == 0 || 2 * rest > clusters) return 0;
    return rest * slabs < kMinShareSlabs * clusters ? 0 : rest;
}

// The schedule: the last `split_pairs` pair-tiles are shared out along k, the others run whole.
// Every share must hold a slab at least (split_pairs * slabs >= clusters: stream_k_pairs sees to
// it), so that each cluster before a tile's last piece left a partial.
struct StreamKSplit {
    int pairs, slabs, split_pairs;

    // Start of cluster c's share of the split slabs (pair-tile pairs - split_pairs, slab 0, is 0).
    __host__ __device__ int64_t share_begin(int c, int clusters) const {
        return int64_t{c} * split_pairs * slabs / clusters;
    }
    // The cluster whose share holds split slab x: the last c with share_begin(c) <= x.
    __host__ __device__ int cluster_of(int64_t x, int clusters) const {
        const int64_t total = int64_t{split_pairs} * slabs;
        return static_cast<int>(((x + 1) * clusters + total - 1) / total - 1);
    }
    // Cluster c's units: its whole tiles, then its pieces from the share's end backwards.
    struct List {
        int cluster, clusters, slabs, first_split;  // first_split: the first split pair-tile
        int64_t begin, end;                         // the share, in split slabs
        int last_tile, pieces, whole, earlier_from;  // earlier_from: of the share's first piece
        __host__ __device__ int units() const { return pieces + whole; }
        __host__ __device__ WorkUnit unit(int u) const {
            if (u < whole) return {cluster + u * clusters, 0, slabs, cluster};
            const int piece = u - whole;
            const int t = last_tile - piece;  // split tile t
            const int64_t t0 = int64_t{t} * slabs;
            const int64_t kb = begin > t0 ? begin - t0 : 0, ke = end < t0 + slabs ? end - t0 : slabs;
            return {first_split + t, static_cast<int>(kb), static_cast<int>(ke), kb > 0 ? earlier_from : cluster};
        }
    };
    __host__ __device__ List of(int c, int clusters) const {
        const int64_t b = share_begin(c, clusters), e = share_begin(c + 1, clusters);
        const int whole = pairs - split_pairs;
        List l = {c, clusters, slabs, whole, b, e, 0, 0, c < whole ? (whole - 1 - c) / clusters + 1 : 0, c};
        if (e > b) {
            const int first_tile = static_cast<int>(b / slabs);
            l.last_tile = static_cast<int>((e - 1) / slabs);
            l.pieces = l.last_tile - first_tile + 1;
            l.earlier_from = cluster_of(int64_t{first_tile} * slabs, clusters);
        }
        return l;
    }
    // Whether w ends its tile (it then writes C, after adding the earlier pieces' sums).
    __host__ __device__ bool ends_tile(const WorkUnit& w) const { return w.k_end == slabs; }
};

}  // namespace gemmkit::hopper
