// When FP64 step 08 (08_dmma_stream_k.cuh) shares tiles out along k. Host code: the launcher
// and the tests ask the same functions.
#pragma once

#include <cstdint>

namespace gemmkit::dgemm {

// A split costs the shares' kernel launch after the whole tiles' (the machine drains between
// them), the partial sums' round trip through L2 and a second epilogue a tile. What it buys
// back is less than the last round's idle blocks suggest: step 07's blocks start as others end,
// and after a few rounds they end at staggered times, so a short last round partly fills the
// gaps. Measured on the H100 (ncu, whole tiles' kernel + shares' kernel against step 07 alone):
//   4096^3, 7 rounds + 100 of 132 tiles: 2.09 + 0.25 ms against 2.34 ms, nothing gained;
//   8192^3, 31 rounds + 4 tiles: 18.59-18.66 + 0.07 ms against 18.62-18.68 ms, the 4 tiles
//   already free;
//   4097^3, 8 rounds + 33 tiles: 136% of cuBLAS against 130%; 1024^3, 64 tiles in one round
//   with 68 blocks idle: 82% against 54%; 2048^3 (shares of 120 slabs instead of 128) lost 4%.
// So step 08 splits a last round at most half busy after fewer than kMaxDmmaRounds whole
// rounds, in shares of kMinDmmaShareSlabs slabs at least that save kMinDmmaGainSlabs a block.
// A single round too short to give every block that many is shared out over as many blocks as
// it can, at least two a tile (the others exit at once): 64 x 64 x 8192 was one tile of 512
// slabs on one SM (2.5% of cuBLAS), and 512^3 16 tiles on 16 SMs (30%).
inline constexpr int kMaxDmmaRounds = 16;
inline constexpr int kMinDmmaShareSlabs = 8;
inline constexpr int kMinDmmaGainSlabs = 24;

// The blocks that share out the last round of `tiles` tiles of `slabs` K-slabs: all `blocks`,
// or, in a single round whose slabs cannot give each of them kMinDmmaShareSlabs, as many as
// they can.
inline int64_t dmma_stream_k_blocks(int64_t tiles, int64_t blocks, int64_t slabs) {
    const int64_t fit = tiles % blocks * slabs / kMinDmmaShareSlabs;
    return tiles < blocks && fit < blocks ? fit : blocks;
}

// The split of the last round: how many of `tiles` tiles (the last ones) to share out along k
// among the `blocks` blocks (0: none), and over how many of them (dmma_stream_k_blocks), with
// `slabs` K-slabs a tile.
struct DmmaSplit {
    int64_t tiles = 0, blocks = 0;
};
inline DmmaSplit dmma_stream_k_split(int64_t tiles, int64_t blocks, int64_t slabs) {
    if (tiles <= 0 || blocks <= 0 || slabs <= 0) return {};
    const int64_t rest = tiles % blocks, used = dmma_stream_k_blocks(tiles, blocks, slabs);
    if (2 * rest > blocks || tiles / blocks >= kMaxDmmaRounds || used < 2 * rest) return {};
    const int64_t share = rest * slabs / used;  // slabs a block, rounded down
    if (share < kMinDmmaShareSlabs || slabs - share < kMinDmmaGainSlabs) return {};
    return {rest, used};
}

// FP64 step 09: whether 64 x 64 tiles (`small_tiles`, at most `small_blocks` blocks at once)
// serve a problem better than step 08's 128 x 128 ones (`tiles` of `slabs` slabs, `split` of them
// shared out over `blocks`; step 08's plan). Where the large tiles fill a round, or the small ones
// need more than one, the large ones; else the small ones where step 08's busiest block runs
// fewer than kMaxSmallDmmaSlabs slabs (a 64 x 64 tile reads 4/3 the fragments a DMMA and reuses
// its operands half as much, so against long shares the large tiles win). Measured on the H100
// (NN / TN, % of cuBLAS, step 08 -> 09): 384^3 (whole tiles of 24 slabs) 33 -> 69 / 30 -> 62,
// 512^3 (shares of 8) 53 -> 75 / 50 -> 74, 768^3 (14) 79 -> 84 / 75 -> 84, 64x64x8192 (8)
// 36 -> 67; with shares of 32, 1024^3 82 -> 86 / 75 -> 86 and 128x128x65536 75 -> 88, but
// 256x256x16384 79 -> 69 / 72 -> 67; with shares of 124, 1024x1024x4096 99 -> 85; 1280^3 (400
// small tiles for 396 blocks) 92 -> 83. The line is drawn below 32, where no shape lost.
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
// those are as narrow, in more tiles. Measured on the H100 (NN / TN, % of cuBLAS, without ->
// with): 4096 x 16 x 4096 66 -> 95 / 59 -> 92, 4096 x 32 x 4096 67 -> 93 / 60 -> 89,
// 16 x 4096 x 4096 67 -> 92 / 59 -> 91, 14336 x 16 x 4096 56 -> 93 / 49 -> 90, 4096 x 1 x 4096
// 58 -> 83 / 50 -> 79, 1024 x 16 x 1024 74 -> 82; with 64 columns, 4096 x 64 x 4096 70 -> 88 /
// 63 -> 85, 64 x 4096 x 4096 66 -> 82, but where 64 x 64 tiles served, 128 x 64 ones lost:
// 1024 x 64 x 1024 81 -> 59, 512 x 64 x 4096 80 -> 70, 64 x 64 x 8192 67 -> 49.
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
