// The stream-K schedule of Hopper step 8 (kernels/hopper/stream_k.hpp): when it splits, and that
// its units cover every slab of every tile exactly once, in an order whose waits cannot cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "kernels/dgemm/stream_k_policy.hpp"
#include "kernels/hopper/stream_k.hpp"

namespace {

using gemmkit::hopper::StreamKSplit;
using gemmkit::hopper::stream_k_pairs;
using gemmkit::hopper::stream_k_plan;
using gemmkit::hopper::TileSumTree;
using gemmkit::hopper::WorkUnit;

TEST(StreamK, SplitsOnlyAMostlyIdleLastRoundOrASingleRoundOfLongEnoughTiles) {
    EXPECT_EQ(stream_k_pairs(289, 66, 65), 25);    // 4097^3 BF16: 17 x 17 pair-tiles, 25 in the last round
    EXPECT_EQ(stream_k_pairs(289, 66, 64), 25);    // 4352 x 4352 x 4096
    EXPECT_EQ(stream_k_pairs(256, 66, 64), 0);     // 4096^3: 58 of 66 clusters busy in the last round
    EXPECT_EQ(stream_k_pairs(1024, 66, 128), 0);   // 8192^3: 34 of 66 busy
    EXPECT_EQ(stream_k_pairs(1023, 66, 128), 33);  // exactly half busy: split
    EXPECT_EQ(stream_k_pairs(4096, 66, 16), 0);    // 16384 x 16384 x 1024: 4 busy, but shares of 1 slab
    EXPECT_EQ(stream_k_pairs(4096, 66, 128), 4);   // 16384 x 16384 x 8192: shares of 7.8 slabs
    EXPECT_EQ(stream_k_pairs(264, 66, 64), 0);     // four full rounds
    EXPECT_EQ(stream_k_pairs(64, 66, 32), 0);      // 2048^3: one round, 2 of 66 idle
    EXPECT_EQ(stream_k_pairs(16, 66, 16), 0);      // 1024^3: shares of 3.9 slabs
    EXPECT_EQ(stream_k_pairs(16, 66, 64), 16);     // 1024 x 1024 x 4096: 15.5 slabs a share
    // Fewer pair-tiles than clusters: all of them, where the slabs saved outweigh the cost.
    EXPECT_EQ(stream_k_pairs(16, 66, 32), 0);      // 1000 x 1000 x 2000, 16-bit: 10% slower split
    EXPECT_EQ(stream_k_pairs(16, 66, 63), 16);     // the same in TF32 (slabs of 32): 1.3x faster
    EXPECT_EQ(stream_k_pairs(4, 66, 128), 4);      // 512 x 512 x 8192: ~16 pieces a tile, 1.6x faster
    EXPECT_EQ(stream_k_pairs(1, 66, 8), 0);        // one tile of 8 slabs: 2 shares of 4 save 4
    // A single round more than half busy: by the cost alone (after whole rounds it would not be).
    EXPECT_EQ(stream_k_pairs(36, 66, 64), 36);     // 1536 x 1536 x 4096: 8% faster split (H100)
    EXPECT_EQ(stream_k_pairs(36, 66, 24), 0);      // 1536^3: saves 10.9 slabs, costs 21.2
    EXPECT_EQ(stream_k_pairs(48, 66, 64), 0);      // 1536 x 2048 x 4096: saves 17.5, costs 19.7
    EXPECT_EQ(stream_k_pairs(48, 66, 128), 48);    // 2048 x 1536 x 8192: 5% faster split
    EXPECT_EQ(stream_k_pairs(60, 66, 1000), 60);   // 6 idle clusters, but 91 slabs saved a cluster
    EXPECT_EQ(stream_k_pairs(66 + 36, 66, 64), 0); // the same 36 after a whole round: not split
    // A short tile is not split even where the last round is mostly idle.
    EXPECT_EQ(stream_k_pairs(84, 66, 16), 0);      // 1790 x 2900 x 1000: 18 busy, saves 11.6 slabs
    EXPECT_EQ(stream_k_pairs(84, 66, 47), 18);     // 1790 x 2900 x 3000: saves 34
    // Half-size tiles (Hopper step 14's 128 x 128): half the time a slab saved, and half the
    // partial sums a piece, against the same fixed cost.
    EXPECT_EQ(stream_k_pairs(32, 66, 16, 0.5), 0);   // 1024^3
    EXPECT_EQ(stream_k_pairs(32, 66, 63, 0.5), 0);   // 1000 x 1000 x 4000: saves 16 of 18.5
    EXPECT_EQ(stream_k_pairs(32, 66, 79, 0.5), 32);  // 1000 x 1000 x 5000: saves 20 of 18.5
    EXPECT_EQ(stream_k_pairs(0, 66, 64), 0);
    // Whatever it splits, every share holds at least min_share_slabs slabs (the schedule needs
    // one), on every cluster or, in a single round, on fewer, at least 2 a tile.
    for (int64_t pairs = 1; pairs <= 300; ++pairs)
        for (int64_t slabs : {1, 3, 4, 16, 65, 300})
            if (const auto plan = stream_k_plan(pairs, 66, slabs); plan.split_pairs > 0) {
                SCOPED_TRACE(testing::Message() << pairs << " pairs, " << slabs << " slabs");
                EXPECT_GE(plan.split_pairs * slabs, gemmkit::kHopperStreamK.min_share_slabs * plan.clusters);
                EXPECT_LE(plan.clusters, 66);
                if (plan.clusters < 66) {
                    EXPECT_TRUE(pairs < 66 && plan.clusters >= 2 * pairs);
                }
            }
    EXPECT_EQ(stream_k_pairs(10, 0, 64), 0);
}

// A single round whose slabs cannot give every cluster kMinShareSlabs is shared out over as many
// clusters as they can, where the slabs saved outweigh the fixed cost (H100, 16-bit, 64 x 64
// tiles on 132 SMs, against whole tiles).
TEST(StreamK, ShortSingleRoundsAreSharedOverFewerClusters) {
    using gemmkit::hopper::stream_k_plan;
    auto expect_plan = [](int64_t pairs, int64_t clusters, int64_t slabs, double scale, int64_t split, int64_t used) {
        const auto plan = stream_k_plan(pairs, clusters, slabs, scale);
        EXPECT_EQ(plan.split_pairs, split) << pairs << " pairs of " << slabs << " slabs";
        if (split > 0) {
            EXPECT_EQ(plan.clusters, used) << pairs << " pairs of " << slabs << " slabs";
        }
    };
    expect_plan(1, 132, 256, 0.125, 1, 64);   // 64 x 64 x 16384: 64 pieces, 64% less time
    expect_plan(4, 132, 128, 0.125, 4, 128);  // 128 x 128 x 8192: 32 pieces a tile, 39% less
    expect_plan(2, 132, 128, 0.125, 2, 64);   // 64 x 128 x 8192: 41% less
    expect_plan(8, 132, 64, 0.125, 8, 128);   // 128 x 256 x 4096: 8% less (slabs at 0.3 of 128 x 256's)
    expect_plan(1, 132, 64, 0.125, 1, 16);    // 64 x 64 x 4096: 17% less
    expect_plan(1, 132, 32, 0.125, 0, 0);     // 64 x 64 x 2048: split, 23% more
    expect_plan(4, 66, 32, 0.25, 0, 0);       // 256 x 256 x 2048 on 128 x 64 pairs: the same
    expect_plan(1, 66, 64, 1.0, 1, 16);       // 256 x 256 x 4096 on 128 x 256 pairs: saves 60
    expect_plan(16, 66, 16, 1.0, 0, 0);       // 1024^3: 64 shares of 4 would save 12
    expect_plan(1, 66, 16, 1.0, 0, 0);        // 256 x 256 x 1024: 4 shares save 12 (measured 17% more)
    expect_plan(1, 66, 7, 1.0, 0, 0);         // fewer than 2 shares of 4
    expect_plan(100, 66, 2, 1.0, 0, 0);       // after a whole round: every cluster or none
}

// 64 x 64 tiles (a 128 x 256 tile's eighth, one a CTA on 132 SMs) against pairs of 128 x 64
// (a quarter, on 66 clusters) where those leave half of the clusters idle: measured on the H100.
TEST(StreamK, SmallTilesServeUnlessOnlyTheLargerOnesAreCut) {
    using gemmkit::hopper::small_tiles_pay;
    auto micro_pays = [](int64_t m, int64_t n, int64_t k, int64_t bk) {
        const int64_t pairs = (m + 127) / 128 * ((n + 127) / 128), micro = (m + 63) / 64 * ((n + 63) / 64);
        return small_tiles_pay(pairs, 66, 0.25, micro, 132, 0.125, (k + bk - 1) / bk);
    };
    EXPECT_TRUE(micro_pays(512, 512, 512, 64));       // both whole: -9%
    EXPECT_TRUE(micro_pays(512, 512, 6144, 64));      // both whole: -24%
    EXPECT_TRUE(micro_pays(512, 512, 2048, 32));      // TF32, both whole: -16 to -22%
    EXPECT_TRUE(micro_pays(200, 250, 12000, 64));     // both cut: -10 to -14%
    EXPECT_TRUE(micro_pays(128, 256, 12800, 64));     // both cut: -27%
    EXPECT_TRUE(micro_pays(128, 128, 32768, 32));     // TF32, both cut, 33 pieces a tile against 66: -31%
    EXPECT_TRUE(micro_pays(64, 256, 16384, 64));      // both cut, 33 pieces each: -7%
    EXPECT_TRUE(micro_pays(64, 64, 65536, 64));       // both cut, 132 pieces against 66 (a tree): -9%
    EXPECT_TRUE(micro_pays(64, 64, 65536, 32));       // TF32: -11%
    EXPECT_TRUE(micro_pays(64, 192, 32768, 64));      // 44 pieces a tile against 33: -13%
    EXPECT_TRUE(micro_pays(64, 64, 16384, 64));       // both cut over fewer clusters
    EXPECT_FALSE(micro_pays(512, 512, 8192, 64));     // the pairs cut, the 64 tiles whole: +13 to +17%
    EXPECT_FALSE(micro_pays(384, 384, 8192, 64));     // +31%
    EXPECT_FALSE(micro_pays(256, 1024, 4096, 32));    // TF32: +15 to +40%
}

// 64 x 64 tiles for a C of at most 64 columns wherever they fill half of the SMs (measured on
// the H100, 16-bit), and their 12-stage ring for a single partial round of long tiles.
TEST(StreamK, ColumnTilesFillHalfTheSms) {
    using gemmkit::hopper::column_tiles_pay;
    auto tiles = [](int64_t m) { return (m + 63) / 64; };  // n <= 64: one column of tiles
    EXPECT_TRUE(column_tiles_pay(tiles(14336), 132));   // 224 tiles: 77-86 -> 95-98% of cuBLAS
    EXPECT_TRUE(column_tiles_pay(tiles(8192), 132));    // 128: 92-97 -> 97-98%
    EXPECT_TRUE(column_tiles_pay(tiles(4224), 132));    // 66: half exactly
    EXPECT_FALSE(column_tiles_pay(tiles(4096), 132));   // 64: left to the other rules (64 x 64 tiles there too)
    EXPECT_FALSE(column_tiles_pay(tiles(1024), 132));   // 16 (x 8192): 128 x 64 pairs cut along k, 16% faster
}
TEST(StreamK, DeepRingForAPartialRoundOfLongTiles) {
    using gemmkit::hopper::deep_ring_pays;
    EXPECT_TRUE(deep_ring_pays(64, 132, 64));     // 4096 x 64 x 4096: 5-14% faster
    EXPECT_TRUE(deep_ring_pays(128, 132, 64));    // 4096 x 128 x 4096: 4-5%
    EXPECT_TRUE(deep_ring_pays(64, 132, 32));     // 4096 x 64 x 2048: 4%
    EXPECT_TRUE(deep_ring_pays(96, 132, 48));     // 3072 x 96 x 3072: 3-4%
    EXPECT_TRUE(deep_ring_pays(44, 132, 32));     // a third of the SMs
    EXPECT_FALSE(deep_ring_pays(43, 132, 64));
    EXPECT_FALSE(deep_ring_pays(32, 132, 64));    // 1024 x 128 x 4096: 4-5% slower
    EXPECT_FALSE(deep_ring_pays(32, 132, 32));    // 2048 x 64 x 2048: 3-4% slower
    EXPECT_FALSE(deep_ring_pays(64, 132, 31));    // short tiles
    EXPECT_FALSE(deep_ring_pays(132, 132, 64));   // a whole round or more: within noise
    EXPECT_FALSE(deep_ring_pays(224, 132, 64));   // 14336 x 64 x 4096
    EXPECT_FALSE(deep_ring_pays(64, 132, 8));     // 512^3 (8 slabs)
}

// The schedule's time in slabs of a 128 x 256 tile: whole rounds, then the last one whole or split.
TEST(StreamK, ScheduleSlabsCountsRoundsAndTheSplitLastOne) {
    using gemmkit::hopper::schedule_slabs;
    EXPECT_DOUBLE_EQ(schedule_slabs(256, 66, 64), 4 * 64);         // 4096^3: 3 rounds and 58 of 66, whole
    EXPECT_DOUBLE_EQ(schedule_slabs(132, 66, 10), 2 * 10);         // two full rounds
    EXPECT_DOUBLE_EQ(schedule_slabs(192, 66, 48, 0.75), 3 * 48 * 0.75);  // 3072^3 on 256 x 192 pairs
    // 3072^3 on 256 x 256 pairs: two rounds, then 12 pairs split, 8.7 slabs a cluster plus the cost.
    const auto split = gemmkit::hopper::stream_k_plan(144, 66, 48);
    EXPECT_EQ(split.split_pairs, 12);
    EXPECT_NEAR(split.share, 12 * 48 / 66.0, 1e-12);
    EXPECT_DOUBLE_EQ(schedule_slabs(144, 66, 48), 2 * 48 + split.share + split.cost);
    EXPECT_LT(schedule_slabs(144, 66, 48), 3 * 48);
    EXPECT_EQ(schedule_slabs(0, 66, 48), 0);
    EXPECT_EQ(schedule_slabs(10, 0, 48), 0);
}

// Hopper step 14's 128 x 192 tiles (pairs of 256 x 192) against 256 x 256 pairs, with their slab
// penalties (16-bit and TF32), on the H100's 66 clusters. Each expectation is what an H100 run measured with either size forced (docs/ladder.md,
// "128 x 192 tiles over several rounds"): time on 128 x 192 against 256 x 256.
TEST(StreamK, NarrowTilesPayWhereTheyMeasuredFaster) {
    using gemmkit::hopper::kMidSlabPenalty16Bit, gemmkit::hopper::kMidSlabPenaltyTf32;
    auto pays = [](int64_t m, int64_t n, int64_t k, int bits) {
        const int64_t mp = (m + 255) / 256, bk = bits == 16 ? 64 : 32;
        return gemmkit::hopper::narrow_tiles_pay(mp * ((n + 255) / 256), mp * ((n + 191) / 192), 66, (k + bk - 1) / bk,
                                                 0.75, bits == 16 ? kMidSlabPenalty16Bit : kMidSlabPenaltyTf32);
    };
    EXPECT_TRUE(pays(1536, 1536, 1536, 16));   // 0.85: one round, 48 of 66 clusters busy instead of 36
    EXPECT_TRUE(pays(1536, 1536, 1536, 32));   // 0.92
    EXPECT_TRUE(pays(3072, 1536, 1536, 16));   // 0.81: 96 pairs in two rounds against 72
    EXPECT_TRUE(pays(3072, 1536, 1536, 32));   // 0.87
    EXPECT_TRUE(pays(3072, 3072, 1024, 16));   // 0.84
    EXPECT_TRUE(pays(3072, 3072, 1024, 32));   // 0.86
    EXPECT_TRUE(pays(3072, 3072, 3072, 16));   // 0.87: three rounds against two and a split third
    EXPECT_FALSE(pays(3072, 3072, 3072, 32));  // 1.01
    EXPECT_TRUE(pays(2304, 2304, 2304, 16));   // 0.80
    EXPECT_FALSE(pays(2304, 2304, 2304, 32));  // 1.01
    EXPECT_TRUE(pays(2304, 2304, 4608, 16));   // 0.92
    EXPECT_FALSE(pays(2304, 2304, 4608, 32));  // 1.06
    EXPECT_TRUE(pays(6144, 3072, 3072, 16));   // 0.96
    EXPECT_FALSE(pays(6144, 3072, 3072, 32));  // 1.08
    EXPECT_TRUE(pays(5120, 5120, 5120, 16));   // 0.97
    EXPECT_FALSE(pays(5120, 5120, 5120, 32));  // 1.07
    EXPECT_FALSE(pays(8192, 8192, 8192, 16));  // 1.00
    EXPECT_FALSE(pays(4096, 4096, 4096, 16));  // 1.08
    EXPECT_FALSE(pays(4096, 4096, 4096, 32));  // 1.14
    EXPECT_FALSE(pays(2560, 2560, 2560, 16));  // 1.15
    EXPECT_FALSE(pays(2560, 2560, 2560, 32));  // 1.06
    EXPECT_FALSE(pays(1536, 1536, 4096, 32));  // the 256 x 256 split ran 4% faster
}

// FP64 step 08 (one block of 128 x 128 an SM, slabs of 16): a last round at most half busy,
// after fewer than 16 whole rounds, in shares of 8 slabs at least that save 24 at least (a
// single round on fewer blocks where it cannot give every block 8).
TEST(StreamK, Fp64SplitsAShortIdleLastRoundOnly) {
    using gemmkit::dgemm::dmma_stream_k_split;
    EXPECT_EQ(dmma_stream_k_split(64, 132, 64).tiles, 64);      // 1024^3: one round, half of it idle
    EXPECT_EQ(dmma_stream_k_split(1089, 132, 257).tiles, 33);   // 4097^3: 8 rounds and 33 tiles
    EXPECT_EQ(dmma_stream_k_split(1024, 132, 256).tiles, 0);    // 4096^3: 100 of 132 busy in the last round
    EXPECT_EQ(dmma_stream_k_split(4096, 132, 512).tiles, 0);    // 8192^3: 4 tiles after 31 rounds
    EXPECT_EQ(dmma_stream_k_split(2110, 132, 512).tiles, 0);    // 15 rounds and 130 tiles: more than half busy
    EXPECT_EQ(dmma_stream_k_split(2046, 132, 512).tiles, 66);   // 15 rounds and exactly half: split
    EXPECT_EQ(dmma_stream_k_split(2178, 132, 512).tiles, 0);    // 16 rounds and 66 tiles: too many rounds
    EXPECT_EQ(dmma_stream_k_split(256, 132, 128).tiles, 0);     // 2048^3: 124 of 132 busy
    EXPECT_EQ(dmma_stream_k_split(1056, 132, 257).tiles, 0);    // eight full rounds
    EXPECT_EQ(dmma_stream_k_split(64, 132, 16).tiles, 0);       // 1024 x 1024 x 256: 128 shares of 8 save 8
    EXPECT_EQ(dmma_stream_k_split(64, 132, 30).tiles, 0);       // ... x 480: shares of 14 save only 16
    EXPECT_EQ(dmma_stream_k_split(8, 132, 500).tiles, 8);       // 8 tiles of 500 slabs: shares of 30
    EXPECT_EQ(dmma_stream_k_split(1, 132, 7).tiles, 0);         // one small tile
    EXPECT_EQ(dmma_stream_k_split(0, 132, 7).tiles, 0);
    EXPECT_EQ(dmma_stream_k_split(10, 0, 64).tiles, 0);
    // A single round too short for shares of 8 on every block: on fewer, at least 2 a tile.
    using gemmkit::dgemm::dmma_stream_k_blocks;
    EXPECT_EQ(dmma_stream_k_split(1, 132, 512).tiles, 1);       // 64 x 64 x 8192: one tile on one SM before
    EXPECT_EQ(dmma_stream_k_split(1, 132, 512).blocks, 64);
    EXPECT_EQ(dmma_stream_k_split(16, 132, 32).tiles, 16);      // 512^3: 16 tiles on 16 SMs before
    EXPECT_EQ(dmma_stream_k_split(16, 132, 32).blocks, 64);
    EXPECT_EQ(dmma_stream_k_split(64, 132, 64).blocks, 132);    // 1024^3: every block
    EXPECT_EQ(dmma_stream_k_split(1, 132, 31).tiles, 0);        // 3 shares of 10 would save 21
    EXPECT_EQ(dmma_stream_k_split(1, 132, 15).tiles, 0);        // not 2 shares of 8
    EXPECT_EQ(dmma_stream_k_blocks(264, 132, 1), 132);    // after whole rounds: every block
    for (int64_t tiles = 1; tiles <= 400; ++tiles)
        for (int64_t slabs : {1, 7, 8, 9, 32, 100, 1000})
            if (const auto [split, blocks] = dmma_stream_k_split(tiles, 132, slabs); split > 0) {
                EXPECT_GE(split * slabs, gemmkit::kDmmaStreamK.min_share_slabs * blocks) << tiles << " tiles, " << slabs;
                EXPECT_TRUE(blocks == 132 || (tiles < 132 && blocks >= 2 * tiles)) << tiles << " tiles, " << slabs;
                EXPECT_EQ((tiles - split) % 132, 0) << tiles << " tiles: whole rounds before the split";
                EXPECT_LE(2 * split, 132) << tiles << " tiles: a last round at most half busy";
            }
}

// Whether FP64 step 09 takes its 64 x 64 tiles on m x n x k on 132 SMs (3 small blocks an SM),
// from step 08's plan, as the launcher asks.
bool small_pays(int64_t m, int64_t n, int64_t k) {
    using namespace gemmkit::dgemm;
    const int64_t tiles = (m + 127) / 128 * ((n + 127) / 128), slabs = (k + 15) / 16;
    const DmmaSplit split = dmma_stream_k_split(tiles, 132, slabs);
    return dmma_small_tiles_pay(tiles, slabs, split.tiles, split.tiles > 0 ? split.blocks : 132,
                                (m + 63) / 64 * ((n + 63) / 64), 3 * 132);
}

// FP64 step 09's 64 x 64 tiles against step 08's 128 x 128 ones: what H100 runs measured (NN,
// % of cuBLAS, 08 -> 09).
TEST(StreamK, Fp64SmallTilesServeShortSingleRounds) {
    EXPECT_TRUE(small_pays(256, 256, 256));      // 4 tiles whole: 30 -> 61
    EXPECT_TRUE(small_pays(512, 512, 512));      // 16 tiles in shares of 8: 54 -> 77
    EXPECT_TRUE(small_pays(768, 768, 768));      // shares of 14: 79 -> 84 (TN 75 -> 84)
    EXPECT_FALSE(small_pays(1024, 1024, 1024));  // shares of 32: 82 -> 86, but...
    EXPECT_FALSE(small_pays(256, 256, 16384));   // ...also 32: 79 -> 69
    EXPECT_TRUE(small_pays(256, 256, 2048));     // 51 -> 78
    EXPECT_TRUE(small_pays(64, 64, 8192));       // 36 -> 67
    EXPECT_TRUE(small_pays(300, 500, 700));      // 51 -> 75
    EXPECT_FALSE(small_pays(1024, 1024, 4096));  // shares of 124: 99 -> 85
    EXPECT_FALSE(small_pays(1024, 1024, 2048));  // shares of 62
    EXPECT_FALSE(small_pays(1280, 1280, 1280));  // 400 small tiles for 396 blocks: 92 -> 83
    EXPECT_FALSE(small_pays(4096, 4096, 4096));  // a full round of large tiles
}

// FP64 step 09's tiles for a C of few columns or rows: the smaller side rounded up to 16, 32 or
// 64; 64 only where the 64 x 64 tiles do not serve (H100 runs, NN, % of cuBLAS, without -> with).
TEST(StreamK, Fp64NarrowTilesFollowTheNarrowSide) {
    using namespace gemmkit::dgemm;
    using enum DmmaNarrowTile;
    auto tile = [](int64_t m, int64_t n, int64_t k) { return dmma_narrow_tile(m, n, small_pays(m, n, k)); };
    EXPECT_EQ(tile(4096, 16, 4096), kCols16);   // 66 -> 95
    EXPECT_EQ(tile(4096, 1, 4096), kCols16);    // 58 -> 83
    EXPECT_EQ(tile(1024, 16, 1024), kCols16);   // 74 -> 82
    EXPECT_EQ(tile(4096, 17, 4096), kCols32);
    EXPECT_EQ(tile(4096, 32, 4096), kCols32);   // 67 -> 93
    EXPECT_EQ(tile(4096, 64, 4096), kCols64);   // 70 -> 88: 128 x 128 tiles there
    EXPECT_EQ(tile(16, 4096, 4096), kRows16);   // 67 -> 92
    EXPECT_EQ(tile(32, 4096, 4096), kRows32);
    EXPECT_EQ(tile(64, 4096, 4096), kRows64);   // 66 -> 82
    EXPECT_EQ(tile(16, 16, 100000), kCols16);   // a tie takes columns
    EXPECT_EQ(tile(1024, 64, 1024), kNone);     // 64 x 64 tiles serve: 81, against 59 on 128 x 64
    EXPECT_EQ(tile(512, 64, 4096), kNone);      // 80 against 70
    EXPECT_EQ(tile(64, 64, 8192), kNone);       // 67 against 49
    EXPECT_EQ(tile(4096, 65, 4096), kNone);     // past 64: the other tiles
    EXPECT_EQ(tile(65, 4096, 4096), kNone);
    EXPECT_EQ(tile(4096, 4096, 4096), kNone);
    EXPECT_EQ(dmma_narrow_tile(1000, 40, false), kCols64);  // the GPU suite's 1000x40x8192
    EXPECT_EQ(dmma_narrow_tile(40, 1000, false), kRows64);
    EXPECT_FALSE(small_pays(1000, 40, 8192));
}

// Runs the schedule of every cluster and checks what the kernels rely on.
void check_schedule(int pairs, int clusters, int slabs, int split_pairs) {
    SCOPED_TRACE(testing::Message() << pairs << " pairs, " << clusters << " clusters, " << slabs << " slabs, "
                                    << split_pairs << " split");
    const StreamKSplit s{pairs, slabs, split_pairs};
    std::vector<std::vector<int>> covered(pairs, std::vector<int>(slabs, 0));
    std::map<int, int> partial_of;  // cluster -> pair whose partial sums it leaves
    std::map<int, int> readers;     // cluster -> how many pieces read its partial
    for (int c = 0; c < clusters; ++c) {
        for (int u = 0; u < s.of(c, clusters).units(); ++u) {
            const WorkUnit w = s.of(c, clusters).unit(u);
            ASSERT_GE(w.pair, 0);
            ASSERT_LT(w.pair, pairs);
            ASSERT_LT(w.k_begin, w.k_end);
            ASSERT_GE(w.k_begin, 0);
            ASSERT_LE(w.k_end, slabs);
            for (int k = w.k_begin; k < w.k_end; ++k) ++covered[w.pair][k];
            if (!s.ends_tile(w)) {
                EXPECT_EQ(u, s.of(c, clusters).whole) << "cluster " << c << ": only its first piece may leave a partial";
                partial_of[c] = w.pair;
            }
            if (w.pair < pairs - split_pairs) {
                EXPECT_TRUE(w.k_begin == 0 && w.k_end == slabs);
            }
        }
    }
    for (int p = 0; p < pairs; ++p)
        for (int k = 0; k < slabs; ++k) ASSERT_EQ(covered[p][k], 1) << "pair " << p << " slab " << k;
    // Along each tile's tree, in the kernels' order (a piece adds, then leaves or writes its sum):
    // every piece adds only partials of its own tile from lower clusters, and a last piece ends
    // with the sums of exactly its tile's earlier pieces, each once.
    std::map<int, std::multiset<int>> sum_of;  // cluster -> the clusters whose pieces its partial holds
    for (int c = 0; c < clusters; ++c) {
        const auto list = s.of(c, clusters);
        for (int u = list.whole; u < list.units(); ++u) {
            const WorkUnit w = list.unit(u);
            EXPECT_LE(w.earlier_from, c);
            EXPECT_EQ(w.earlier_from == c, w.k_begin == 0);
            const TileSumTree tree{c - w.earlier_from, s.ends_tile(w)};
            std::multiset<int> sum = {c};
            for (int a = tree.first(); a >= 0; a = tree.next(a)) {
                const int earlier = w.earlier_from + a;
                ASSERT_LT(earlier, c);
                ASSERT_EQ(partial_of.count(earlier), 1u) << "cluster " << earlier << " leaves no partial";
                EXPECT_EQ(partial_of[earlier], w.pair);
                ASSERT_EQ(sum_of.count(earlier), 1u) << "cluster " << earlier << "'s partial read before it is left";
                sum.insert(sum_of[earlier].begin(), sum_of[earlier].end());
                ++readers[earlier];
            }
            if (!tree.ends_tile) {
                sum_of[c] = sum;
                continue;
            }
            int slabs_before = 0;
            for (int earlier = w.earlier_from; earlier < c; ++earlier) {
                EXPECT_EQ(sum.count(earlier), 1u) << "cluster " << c << ", pair " << w.pair << ": cluster " << earlier;
                const auto e_list = s.of(earlier, clusters);
                const WorkUnit e = e_list.unit(e_list.whole);
                slabs_before += e.k_end - e.k_begin;
            }
            EXPECT_EQ(sum.size(), static_cast<size_t>(c - w.earlier_from + 1)) << "cluster " << c;
            EXPECT_EQ(slabs_before, w.k_begin) << "cluster " << c << ", pair " << w.pair;
        }
    }
    for (const auto& [c, pair] : partial_of) EXPECT_EQ(readers[c], 1) << "partial of cluster " << c;
}

TEST(StreamK, UnitsCoverEveryTileOnceAndEveryPartialIsAddedOnce) {
    check_schedule(289, 66, 65, 25);   // 4097^3: 17 x 17 pair-tiles, 65 slabs, the last round split
    check_schedule(289, 66, 65, 91);   // the last round and one more
    check_schedule(256, 66, 64, 124);  // 4096^3, the last round and one more
    check_schedule(70, 66, 16, 70);    // every tile split
    check_schedule(16, 66, 64, 16);    // fewer tiles than clusters: shares inside a tile
    check_schedule(1, 66, 1024, 1);    // 64 x 64 x 65536: one tile in 66 pieces
    check_schedule(4, 132, 469, 4);    // 100 x 90 x 30000 on 64 x 64 tiles: 33 pieces each
    check_schedule(256, 66, 64, 0);    // nothing split: step 6's whole tiles
    for (int clusters = 1; clusters <= 9; ++clusters)
        for (int pairs = 1; pairs <= 12; ++pairs)
            for (int slabs = 1; slabs <= 6; ++slabs)
                for (int split = 0; split <= pairs; ++split)
                    if (split * slabs >= clusters) check_schedule(pairs, clusters, slabs, split);
}

// A tile of P pieces: the last piece's sum holds every piece once, a piece adds at most
// log2(P) + 1 sums, and the chain of waits behind the last piece is as short.
TEST(StreamK, TileSumTreeAddsEveryPieceOnceInLogarithmicDepth) {
    for (int pieces = 1; pieces <= 300; ++pieces) {
        SCOPED_TRACE(testing::Message() << pieces << " pieces");
        int log2 = 0;
        while ((1 << log2) < pieces) ++log2;
        std::vector<std::multiset<int>> sum(pieces);
        std::vector<int> depth(pieces, 0);  // longest chain of waits ending at each piece
        for (int i = 0; i < pieces; ++i) {
            const TileSumTree tree{i, i == pieces - 1};
            sum[i] = {i};
            int added = 0;
            for (int a = tree.first(); a >= 0; a = tree.next(a)) {
                ASSERT_LT(a, i);
                ASSERT_LE(++added, log2 + 1);
                sum[i].insert(sum[a].begin(), sum[a].end());
                depth[i] = std::max(depth[i], depth[a] + 1);
            }
        }
        const std::multiset<int>& total = sum[pieces - 1];
        ASSERT_EQ(total.size(), static_cast<size_t>(pieces));
        for (int i = 0; i < pieces; ++i) EXPECT_EQ(total.count(i), 1u) << "piece " << i;
        EXPECT_LE(depth[pieces - 1], log2 + 1);
    }
    // Two pieces: the plain order. Four: piece 1 adds piece 0, the last adds 2, then 1.
    EXPECT_EQ((TileSumTree{1, true}.first()), 0);
    EXPECT_EQ((TileSumTree{1, true}.next(0)), -1);
    EXPECT_EQ((TileSumTree{1, false}.first()), 0);
    EXPECT_EQ((TileSumTree{2, false}.first()), -1);
    EXPECT_EQ((TileSumTree{3, true}.first()), 2);
    EXPECT_EQ((TileSumTree{3, true}.next(2)), 1);
    EXPECT_EQ((TileSumTree{3, true}.next(1)), -1);
}

TEST(StreamK, WholeTilesMatchStepSix) {
    const StreamKSplit s{256, 64, 0};
    const gemmkit::hopper::WholeTiles whole{256, 64};
    for (int c = 0; c < 66; ++c) {
        ASSERT_EQ(s.of(c, 66).units(), whole.of(c, 66).units());
        for (int u = 0; u < s.of(c, 66).units(); ++u) EXPECT_EQ(s.of(c, 66).unit(u).pair, whole.of(c, 66).unit(u).pair);
    }
}

}  // namespace
