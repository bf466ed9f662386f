// The grouped GEMM's schedule (kernels/hopper/grouped_schedule.hpp) walked on the host as the
// kernel walks it: every cluster's units in order, each CTA of the cluster asking its tile's
// origin. Every CTA tile of every group must come up exactly once, inside its group's columns
// (from the first rounded down to 8), and nothing else; ends out of order, negative or past n
// must give no work at all.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/grouped_order.cuh"
#include "kernels/hopper/grouped_schedule.hpp"

namespace {

using gemmkit::hopper::GroupedTiles;

// The grouped kernel's tile shape (GroupedCfg: 128 x 128 CTA tiles, clusters of 2 along m), and
// the narrow tiles' shape (clusters along n), so that both ways of pairing CTAs are walked.
struct AlongM {
    static constexpr int BM = 128, BN = 128, BK = 64, kCluster = 2;
    using Order = gemmkit::GroupedOrder<8>;
};
struct AlongN {
    static constexpr int BM = 128, BN = 64, BK = 64, kCluster = 2;
    static constexpr bool kClusterAlongN = true;
    using Order = gemmkit::GroupedOrder<8>;
};

using Tile = std::tuple<int, int, int>;  // (group, first row, first column of C)

// Every CTA tile the clusters' units give, counted.
template <class Cfg>
std::map<Tile, int> walk(const std::vector<int32_t>& ends, int m, int n, int clusters) {
    const GroupedTiles<Cfg> schedule{ends.data(), static_cast<int>(ends.size()), m, n, 4};
    std::map<Tile, int> seen;
    for (int cluster = 0; cluster < clusters; ++cluster)
        for (uint32_t rank = 0; rank < Cfg::kCluster; ++rank) {
            auto work = schedule.of(cluster, clusters);  // each CTA has its own list and cursor
            for (int u = 0; u < work.units(); ++u) {
                const int3 o = work.origin(work.unit(u), rank);
                ++seen[{o.x, o.y, o.z}];
            }
        }
    return seen;
}

// The CTA tiles a group of columns [begin, end) should get: rows 0, BM, ... of m, columns b,
// b + BN, ... from b = begin rounded down to 8, and with clusters the partner tiles that pad a
// pair past m or the group's end. An empty group gets none.
template <class Cfg>
std::map<Tile, int> expected(const std::vector<int32_t>& ends, int m) {
    std::map<Tile, int> want;
    int own = 0;
    for (int g = 0; g < static_cast<int>(ends.size()); own = ends[g++]) {
        if (ends[g] == own) continue;
        const int begin = own / 8 * 8, cols = ends[g] - begin;
        const int2 grid = gemmkit::hopper::pair_grid<Cfg>(m, cols);
        const int rows_ctas = grid.x * gemmkit::hopper::ctas_sharing_b<Cfg>();
        const int cols_ctas = grid.y * gemmkit::hopper::ctas_sharing_a<Cfg>();
        for (int r = 0; r < rows_ctas; ++r)
            for (int c = 0; c < cols_ctas; ++c) ++want[{g, r * Cfg::BM, begin + c * Cfg::BN}];
    }
    return want;
}

template <class Cfg>
void expect_every_tile_once(const std::vector<int32_t>& ends, int m, int n) {
    for (int clusters : {1, 3, 7, 66}) {
        SCOPED_TRACE("clusters " + std::to_string(clusters));
        EXPECT_EQ(walk<Cfg>(ends, m, n, clusters), expected<Cfg>(ends, m));
    }
}

TEST(GroupedSchedule, EveryTileOfEveryGroupComesUpOnce) {
    const std::vector<int32_t> uneven = {16, 16, 160, 300, 300, 301, 700};  // empty groups, a 1-column one
    expect_every_tile_once<AlongM>(uneven, 200, 720);
    expect_every_tile_once<AlongN>(uneven, 200, 720);
    expect_every_tile_once<AlongM>({0, 0, 4096}, 1000, 4096);  // leading empty groups
    expect_every_tile_once<AlongM>({128, 384, 384, 400, 1024, 1040, 1536, 2048}, 512, 2048);
    expect_every_tile_once<AlongM>({2048}, 512, 2048);  // one group: a plain GEMM's tiles
}

TEST(GroupedSchedule, TilesStayInsideTheirGroupsColumnsOrPadAPair) {
    const std::vector<int32_t> ends = {16, 16, 160, 300, 300, 301, 700};
    for (const auto& [tile, count] : walk<AlongM>(ends, 200, 720, 5)) {
        const auto [g, row, col] = tile;
        const int begin = g == 0 ? 0 : ends[g - 1];
        EXPECT_EQ(col % 8, 0) << "B's boxes start at a tile's column: on 16 bytes";
        EXPECT_GT(col, begin - 8) << "a tile that starts before its group's column rounded down to 8";
        EXPECT_LT(col, ends[g]) << "a tile that starts past its group's end";  // clusters along m: no column padding
        EXPECT_LT(row, 256);  // m = 200: one pair of 128-row tiles, the second padding past m
    }
}

TEST(GroupedSchedule, EndsOutOfOrderNegativeOrPastNGiveNoWork) {
    for (const std::vector<int32_t>& bad : {std::vector<int32_t>{16, 8, 700}, std::vector<int32_t>{-1, 300, 700},
                                            std::vector<int32_t>{16, 300, 721}}) {
        const GroupedTiles<AlongM> schedule{bad.data(), 3, 200, 720, 4};
        EXPECT_EQ(schedule.total(), 0);
        EXPECT_EQ(schedule.of(0, 1).units(), 0);
    }
    const std::vector<int32_t> all_empty = {0, 0, 0};
    EXPECT_EQ((GroupedTiles<AlongM>{all_empty.data(), 3, 200, 720, 4}.total()), 0);
}

TEST(GroupedSchedule, ClustersShareTheUnitsInTurn) {
    const std::vector<int32_t> ends = {300, 700};  // pair-tiles: 3 + 4 (m = 200: one pair row)
    const GroupedTiles<AlongM> schedule{ends.data(), 2, 200, 720, 4};
    ASSERT_EQ(schedule.total(), 7);
    EXPECT_EQ(schedule.of(0, 3).units(), 3);  // pairs 0, 3, 6
    EXPECT_EQ(schedule.of(2, 3).units(), 2);  // pairs 2, 5
    EXPECT_EQ(schedule.of(9, 10).units(), 0);
}

}  // namespace
