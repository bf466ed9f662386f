// Stream-K for the last wave (Hopper step 8): the arithmetic of who runs which slabs.
//
// With whole tiles, a grid of G clusters runs P pair-tiles in ceil(P / G) rounds, and in the
// last round only P % G clusters work: 4097^3 BF16 has 289 pair-tiles on 66 clusters, 4.38
// rounds' work in 5. Here the last P % G pair-tiles are laid end to end
// as one run of slabs and cut into G equal shares, one a cluster (stream-K, Osama et al., PPoPP
// 2023). The other tiles stay whole: every cluster runs the same number of them first.
//
// A share splits at tile boundaries into pieces. A tile's last piece (the one holding its last
// slab) is the one that writes it: it adds the earlier pieces' sums, which their clusters leave
// in a workspace, along a binary tree in a fixed order (TileSumTree, below; the result does not
// depend on timing). Each cluster runs its share backwards, last piece first. Then a cluster's
// only piece that is not a tile's last is the first piece it runs: the start of a tile, which
// waits for nothing, or a share inside one tile, the cluster's only piece, which may wait for
// lower-numbered clusters' pieces of that tile. A last piece waits only for lower-numbered
// clusters' first pieces too: no cycle, and short waits, since all clusters reach their pieces
// at about the same time.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>  // __host__ __device__

#include "kernels/hopper/work_schedule.hpp"
#include "plan/split_policy.hpp"

namespace gemmkit::hopper {

// How stream-K shares out `pairs` pair-tiles of `slabs` slabs on `clusters` clusters: the
// split policy's Hopper rules (kHopperStreamK, src/plan/split_policy.hpp), in slabs of a
// 128 x 256 tile (as long for TF32's slabs of 32 k as for 16-bit's of 64). `tile_scale` is a CTA
// tile's area against 128 x 256. Why each rule and constant: docs/plan.md#the-split-policy.
// The plan: the last `split_pairs` pair-tiles (0: none) are cut along k into `clusters` equal
// shares of `share` slabs (in the tile's own slabs), at a cost of `cost` (in slabs of a
// 128 x 256 tile).
struct StreamKPlan {
    int64_t split_pairs = 0, clusters = 0;
    double share = 0, cost = 0;
};

inline StreamKPlan stream_k_plan(int64_t pairs, int64_t clusters, int64_t slabs, double tile_scale = 1.0) {
    const LastRoundSplit split = split_last_round(kHopperStreamK, pairs, clusters, slabs, tile_scale);
    return {split.units, split.workers, split.share, split.cost};
}

// How many of the pair-tiles (the last ones) stream_k_plan splits; 0 for none.
inline int64_t stream_k_pairs(int64_t pairs, int64_t clusters, int64_t slabs, double tile_scale = 1.0) {
    return stream_k_plan(pairs, clusters, slabs, tile_scale).split_pairs;
}

// How long `clusters` clusters take over `pairs` pair-tiles of `slabs` slabs, in slabs of a
// 128 x 256 tile: the whole rounds, then the last round whole or split as stream_k_plan decides
// (its share plus the split's cost). What the launcher compares tile sizes by.
inline double schedule_slabs(int64_t pairs, int64_t clusters, int64_t slabs, double tile_scale = 1.0) {
    if (pairs <= 0 || clusters <= 0 || slabs <= 0) return 0;
    const int64_t rounds = (pairs + clusters - 1) / clusters;
    const StreamKPlan plan = stream_k_plan(pairs, clusters, slabs, tile_scale);
    if (plan.split_pairs == 0) return static_cast<double>(rounds * slabs) * tile_scale;
    return (static_cast<double>((rounds - 1) * slabs) + plan.share) * tile_scale + plan.cost;
}

// A 128 x 192 tile's slab (Hopper step 14) against its area's share of a 128 x 256 one's time,
// fitted to H100 runs of both sizes forced on 12 shapes (docs/ladder/hopper.md#lab-128x192-rounds):
// higher for TF32, whose A of op N is loaded into registers at the same cost for fewer columns.
// Each is the smallest round value that picks the faster size on every shape.
inline constexpr double kMidSlabPenalty16Bit = 1.05, kMidSlabPenaltyTf32 = 1.15;

// Whether smaller tiles serve a problem whose tiles (`pairs` pair-tiles of `scale` times a
// 128 x 256 tile on `clusters` clusters) already leave half of the clusters idle: unless
// stream-K cuts those along k while the small ones (`small_pairs` of `small_scale` on
// `small_clusters`) would run whole, fewer than the SMs, each for all of k.
// 64 x 64 tiles beat pairs of 128 x 64 where both run whole or both are cut, and lost where only
// the pairs were cut (docs/ladder/hopper.md#lab-64x64-tiles, #lab-tree-rules). (A 64 x 64 tile
// runs one consumer warpgroup, at a lower rate an SM: what it gains is SMs.)
inline bool small_tiles_pay(int64_t pairs, int64_t clusters, double scale, int64_t small_pairs, int64_t small_clusters,
                            double small_scale, int64_t slabs) {
    return stream_k_pairs(pairs, clusters, slabs, scale) == 0 ||
           stream_k_pairs(small_pairs, small_clusters, slabs, small_scale) > 0;
}

// Step 10 on a C of at most 64 columns (a layer applied to 17-64 tokens, 14336 x 64 x 4096): the
// wide tiles the other rules pick for it, which run where they fill the clusters, spend most of
// their width past C's last column (256 x 256 pairs a quarter used; 128 x 64 tiles paired along
// n, half: the partner CTA is all past it). 64 x 64 tiles fit C; they run where their `tiles`
// fill half of the `sms` SMs at least, fewer being left to the other rules, which cut them along
// k (fewer such tiles ran slower than 128 x 64 pairs split). Measured:
// docs/ladder/hopper.md#lab-few-columns.
inline bool column_tiles_pay(int64_t tiles, int64_t sms) { return 2 * tiles >= sms; }

// Step 10's 64 x 64 tiles with a ring of 12 stages instead of 8 (the shared memory holds 13),
// where they stream their operands through a single partial round: at least a third of the SMs
// and fewer tiles than SMs (stream-K then cuts each in two or three), each of kDeepRingMinSlabs
// slabs or more. There four more slabs in flight a CTA ran faster; with fewer tiles or slabs
// they lost (not explained), and past a round they were within noise
// (docs/ladder/hopper.md#lab-few-columns).
inline constexpr int kDeepRingMinSlabs = 32;
inline bool deep_ring_pays(int64_t tiles, int64_t sms, int64_t slabs) {
    return 3 * tiles >= sms && tiles < sms && slabs >= kDeepRingMinSlabs;
}

// Whether narrower tiles finish sooner than the wide ones (128 x 256, in pairs: `wide_pairs`) on
// `clusters` clusters: `narrow_pairs` pair-tiles of `narrow_scale` times the wide tile's area,
// whose slabs each take `penalty` times their area's share of a wide slab's time. Both schedules
// by schedule_slabs, so the wide tiles may be split along k, and the narrow ones run more rounds.
inline bool narrow_tiles_pay(int64_t wide_pairs, int64_t narrow_pairs, int64_t clusters, int64_t slabs,
                             double narrow_scale, double penalty) {
    const double wide = schedule_slabs(wide_pairs, clusters, slabs);
    return penalty * schedule_slabs(narrow_pairs, clusters, slabs, narrow_scale) < wide;
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

// Which earlier pieces' partial sums a piece of a split tile adds: a binary (Fenwick) tree, so
// that a tile cut into P pieces makes its last piece wait for about log2(P) sums, not P - 1 read
// one after another at ~0.5 us each: it takes a quarter to half of the time off tiles of 33-132
// pieces, and is the plain order's speed with 2-5 (docs/ladder/hopper.md#lab-sum-tree).
// Pieces are numbered from the tile's first slab: piece i ran on cluster
// earlier_from + i. A piece i that does not end the tile adds pieces i - 1, i - 2, i - 4, ... for
// steps below the lowest set bit of i + 1 and leaves the sum of pieces i + 1 - lowbit(i + 1) .. i;
// the last piece adds the sums that cover pieces 0 .. i - 1: piece i - 1's, then for j = i - 1
// that of piece j - lowbit(j + 1), and so on. Every addend is an earlier piece that does not end
// the tile, nearest (and soonest ready) first. With 2 pieces that is the plain order.
struct TileSumTree {
    int piece;       // this piece's number in its tile
    bool ends_tile;  // whether it holds the tile's last slab
    __host__ __device__ static int lowest_bit(int x) { return x & -x; }
    // The first piece whose sums this one adds; -1 for none.
    __host__ __device__ int first() const {
        return piece > 0 && (ends_tile || lowest_bit(piece + 1) > 1) ? piece - 1 : -1;
    }
    // The piece after `addend`; -1 after the last.
    __host__ __device__ int next(int addend) const {
        if (ends_tile) {
            const int rest = addend + 1 - lowest_bit(addend + 1);  // pieces 0 .. rest - 1 still to add
            return rest > 0 ? rest - 1 : -1;
        }
        const int step = 2 * (piece - addend);
        return step < lowest_bit(piece + 1) ? piece - step : -1;
    }
};

}  // namespace gemmkit::hopper
