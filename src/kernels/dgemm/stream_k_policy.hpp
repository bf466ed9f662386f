// When FP64 step 08 (08_dmma_stream_k.cuh) shares tiles out along k. Host code: the launcher
// and the tests ask the same functions.
#pragma once

#include <cstdint>

#include "plan/split_policy.hpp"

namespace gemmkit::dgemm {

// Step 08 splits a short last round along k by the split policy's FP64 rules (kDmmaStreamK,
// src/plan/split_policy.hpp): a last round at most half busy after fewer than 16 whole rounds,
// in shares of 8 slabs at least that save 24 slabs a block; a single round too short to give
// every block 8 slabs over as many blocks as it can, at least two a tile. Why:
// docs/plan.md#the-split-policy.

// The blocks that share out the last round of `tiles` tiles of `slabs` K-slabs: all `blocks`,
// or, in a single round whose slabs cannot give each of them a share, as many as they can.
inline int64_t dmma_stream_k_blocks(int64_t tiles, int64_t blocks, int64_t slabs) {
    return last_round_workers(kDmmaStreamK, tiles, blocks, slabs);
}

// The split of the last round: how many of `tiles` tiles (the last ones) to share out along k
// among the `blocks` blocks (0: none), and over how many of them (dmma_stream_k_blocks), with
// `slabs` K-slabs a tile.
struct DmmaSplit {
    int64_t tiles = 0, blocks = 0;
};
inline DmmaSplit dmma_stream_k_split(int64_t tiles, int64_t blocks, int64_t slabs) {
    const LastRoundSplit split = split_last_round(kDmmaStreamK, tiles, blocks, slabs);
    return {split.units, split.workers};
}

// FP64 step 09: whether 64 x 64 tiles (`small_tiles`, at most `small_blocks` blocks at once)
// serve a problem better than step 08's 128 x 128 ones (`tiles` of `slabs` slabs, `split` of them
// shared out over `blocks`; step 08's plan). Where the large tiles fill a round, or the small ones
// need more than one, the large ones; else the small ones where step 08's busiest block runs
// fewer than kMaxSmallDmmaSlabs slabs (a 64 x 64 tile reads 4/3 the fragments a DMMA and reuses
// its operands half as much, so against long shares the large tiles win). The line is drawn
// below 32, where no measured shape lost (docs/ladder/fp64.md#lab-step-09).
inline constexpr int kMaxSmallDmmaSlabs = 32;
inline bool dmma_small_tiles_pay(int64_t tiles, int64_t slabs, int64_t split, int64_t blocks, int64_t small_tiles,
                                 int64_t small_blocks) {
    if (tiles >= blocks || small_tiles > small_blocks || blocks <= 0) return false;
    const int64_t busiest = split > 0 ? (split * slabs + blocks - 1) / blocks : slabs;
    return busiest < kMaxSmallDmmaSlabs;
}

// FP64 step 09 on a C of few columns or rows (a matrix times a few vectors, 4096 x 16 x 4096):
// tiles as narrow as C, so that the DMMAs stay inside C and the long operand streams through the
// SMs once. Step 08's 128 x 128 tiles ran 7/8 of their DMMAs past C's edge at n = 16, and its
// ring copied 8 times the slabs of B that C needs. The tile: 128 rows and C's columns rounded
// up to 16, 32 or 64 where n <= m (kCols), else the same with rows and columns swapped (kRows);
// kNone past 64. 64 only where step 09's 64 x 64 tiles do not serve (`small_tiles_serve`):
// those are as narrow, in more tiles, and 128 x 64 tiles lost where they served
// (docs/ladder/fp64.md#lab-narrow-tiles).
enum class DmmaNarrowTile { kNone, kCols16, kCols32, kCols64, kRows16, kRows32, kRows64 };
inline DmmaNarrowTile dmma_narrow_tile(int64_t m, int64_t n, bool small_tiles_serve) {
    using enum DmmaNarrowTile;
    const int64_t side = n <= m ? n : m;
    if (side > 64 || (side > 32 && small_tiles_serve)) return kNone;
    const int width = side <= 16 ? 16 : side <= 32 ? 32 : 64;
    if (n <= m) return width == 16 ? kCols16 : width == 32 ? kCols32 : kCols64;
    return width == 16 ? kRows16 : width == 32 ? kRows32 : kRows64;
}

// The same for step 08's own tiles on an m x n x k problem, on a GPU of `sm_count` SMs: the
// launcher's plan (dmma_stream_k_plan, 08_dmma_stream_k.cuh), for the tests.
int64_t dmma_stream_k_tiles_of(int64_t m, int64_t n, int64_t k, int64_t sm_count);

}  // namespace gemmkit::dgemm
