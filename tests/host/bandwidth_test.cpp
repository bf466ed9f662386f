// gemmkit bandwidth's host arithmetic and its verification: sizes and the memory cap, bytes per
// op, GB/s and % of the theoretical bandwidth, the fmaf SAXPY reference and the bit-exact check.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bandwidth/bandwidth.hpp"
#include "bandwidth/reference.hpp"
#include "test_util.hpp"

namespace {

using namespace gemmkit::bandwidth;
using gemmkit::analysis::DeviceInfo;
using gemmkit::test::contains;

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kH100L2 = 50 * kMiB;

// ---- bytes per op ----

TEST(BandwidthOps, SaxpyMoves12BytesPerFloatAndCopies8) {
    EXPECT_EQ(bytes_per_element(Op::kSaxpy), 12);
    EXPECT_EQ(bytes_per_element(Op::kCopyKernel), 8);
    EXPECT_EQ(bytes_per_element(Op::kCopyMemcpy), 8);
    // 1 MiB per buffer = 2^18 floats: SAXPY 3 MiB, a copy 2 MiB.
    EXPECT_EQ(bytes_moved(Op::kSaxpy, int64_t{1} << 18), 3 * kMiB);
    EXPECT_EQ(bytes_moved(Op::kCopyKernel, int64_t{1} << 18), 2 * kMiB);
    EXPECT_EQ(bytes_moved(Op::kSaxpy, 0), 0);
    EXPECT_THROW(bytes_moved(Op::kSaxpy, -1), std::invalid_argument);
}

TEST(BandwidthOps, NamesAreDistinct) {
    std::set<std::string> names;
    for (Op op : kOps) names.insert(op_name(op));
    EXPECT_EQ(names, (std::set<std::string>{"saxpy", "copy.kernel", "copy.memcpy"}));
}

// ---- rotation and the memory cap ----

TEST(RotationSets, SmallSetsCoverTwiceTheL2BetweenReuses) {
    // 1 MiB buffers: sets of 2 MiB, 1 + 100/2 of them.
    EXPECT_EQ(rotation_sets(2 * kMiB, kH100L2), 51);
    // 32 MiB buffers: 1 + ceil(100 / 64).
    EXPECT_EQ(rotation_sets(64 * kMiB, kH100L2), 3);
    EXPECT_EQ(rotation_sets(99 * kMiB, kH100L2), 3);
    for (int64_t set = kMiB; set < 2 * kH100L2; set += 7 * kMiB) {
        const int n = rotation_sets(set, kH100L2);
        EXPECT_GE((n - 1) * set, 2 * kH100L2) << set;  // enough other traffic between reuses
        EXPECT_LT((n - 2) * set, 2 * kH100L2) << set;  // and no more sets than that needs
    }
}

TEST(RotationSets, OneSetOnceItOutgrowsTwiceTheL2) {
    EXPECT_EQ(rotation_sets(100 * kMiB, kH100L2), 1);
    EXPECT_EQ(rotation_sets(128 * kMiB, kH100L2), 1);
    EXPECT_EQ(rotation_sets(8 * kGiB, kH100L2), 1);
    EXPECT_EQ(rotation_sets(2 * kMiB, 0), 1);  // no L2 reported: nothing to rotate around
}

TEST(RotationSets, RejectsEmptySets) {
    EXPECT_THROW(rotation_sets(0, kH100L2), std::invalid_argument);
    EXPECT_THROW(rotation_sets(-4, kH100L2), std::invalid_argument);
}

TEST(Footprint, CountsEverySetsTwoBuffers) {
    EXPECT_EQ(footprint_bytes(kMiB, kH100L2), 51 * 2 * kMiB);
    EXPECT_EQ(footprint_bytes(4096 * kMiB, kH100L2), 8 * kGiB);
}

TEST(DefaultSizes, OneMibDoublingToFourGibOnAnH100) {
    const std::vector<int64_t> mib = default_sizes_mib(79 * kGiB, kH100L2);
    ASSERT_EQ(mib.size(), 13u);
    EXPECT_EQ(mib.front(), 1);
    EXPECT_EQ(mib.back(), 4096);
    for (size_t i = 1; i < mib.size(); ++i) EXPECT_EQ(mib[i], 2 * mib[i - 1]) << i;
}

TEST(DefaultSizes, StopBeforeFortyPercentOfFreeMemory) {
    // 8 GiB free: 3.2 GiB budget. 1024 MiB needs 2 GiB, 2048 MiB would need 4.
    const std::vector<int64_t> mib = default_sizes_mib(8 * kGiB, kH100L2);
    ASSERT_FALSE(mib.empty());
    EXPECT_EQ(mib.front(), 1);
    EXPECT_EQ(mib.back(), 1024);
    for (int64_t m : mib) EXPECT_LE(footprint_bytes(m * kMiB, kH100L2), 0.4 * 8 * kGiB) << m;
}

TEST(DefaultSizes, CountTheRotationOfSmallSizes) {
    // 100 MiB free, 40 MiB budget: 1 MiB needs 51 sets = 102 MiB with a 50 MiB L2, nothing fits;
    // without an L2, 16 MiB (32 MiB of buffers) is the last that fits.
    EXPECT_TRUE(default_sizes_mib(100 * kMiB, kH100L2).empty());
    EXPECT_EQ(default_sizes_mib(100 * kMiB, 0), (std::vector<int64_t>{1, 2, 4, 8, 16}));
    EXPECT_TRUE(default_sizes_mib(0, 0).empty());
}

TEST(CheckSizes, AcceptsSizesWithinTheCap) {
    std::string err;
    EXPECT_TRUE(check_sizes_mib({1, 7, 4096}, 79 * kGiB, kH100L2, &err)) << err;
}

TEST(CheckSizes, RejectsAnEmptyList) {
    std::string err;
    EXPECT_FALSE(check_sizes_mib({}, 79 * kGiB, kH100L2, &err));
    EXPECT_TRUE(contains(err, "no sizes"));
}

TEST(CheckSizes, RejectsZeroAndNegativeSizes) {
    std::string err;
    EXPECT_FALSE(check_sizes_mib({1, 0}, 79 * kGiB, kH100L2, &err));
    EXPECT_TRUE(contains(err, "size 0 MiB"));
    EXPECT_FALSE(check_sizes_mib({-3}, 79 * kGiB, kH100L2, &err));
    EXPECT_TRUE(contains(err, "-3"));
}

TEST(CheckSizes, RejectsSizesBeyondFortyPercentOfFreeMemory) {
    std::string err;
    // 16 GiB buffers need 32 GiB; 40% of 79 GiB is 31.6.
    EXPECT_FALSE(check_sizes_mib({1, 16384}, 79 * kGiB, kH100L2, &err));
    EXPECT_TRUE(contains(err, "16384 MiB needs 32768 MiB"));
    EXPECT_TRUE(contains(err, "40%"));
    EXPECT_FALSE(check_sizes_mib({int64_t{1} << 40}, 79 * kGiB, kH100L2, &err));  // would overflow bytes
    EXPECT_TRUE(contains(err, "beyond"));
}

// ---- rates ----

TEST(GbPerS, DecimalGigabytesPerSecond) {
    EXPECT_DOUBLE_EQ(gb_per_s(1'000'000'000, 1000.0), 1.0);
    // A 1 GiB SAXPY (2^28 floats, 12 B each) in 1 ms: 3.221 TB/s, decimal, not 3072 "GiB-based" GB/s.
    EXPECT_NEAR(gb_per_s(bytes_moved(Op::kSaxpy, int64_t{1} << 28), 1.0), 3221.225472, 1e-9);
    EXPECT_DOUBLE_EQ(gb_per_s(0, 2.0), 0.0);
}

TEST(GbPerS, RejectsTimesThatAreNotPositiveAndNegativeBytes) {
    EXPECT_THROW(gb_per_s(1000, 0.0), std::invalid_argument);
    EXPECT_THROW(gb_per_s(1000, -1.0), std::invalid_argument);
    EXPECT_THROW(gb_per_s(1000, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
    EXPECT_THROW(gb_per_s(1000, std::numeric_limits<double>::infinity()), std::invalid_argument);
    EXPECT_THROW(gb_per_s(-1, 1.0), std::invalid_argument);
}

DeviceInfo memory(int mem_clock_khz, int bus_width_bits) {
    DeviceInfo d;
    d.sm = 90;
    d.mem_clock_khz = mem_clock_khz;
    d.bus_width_bits = bus_width_bits;
    return d;
}

TEST(PercentOfPeak, H100SxmTheoreticalIs3352GBs) {
    // 2 x 2619 MHz x 5120 bit / 8 = 3352.32 GB/s.
    const double peak = theoretical_gb_per_s(memory(2619000, 5120));
    EXPECT_NEAR(peak, 3352.32, 1e-9);
    EXPECT_NEAR(percent_of_peak(3017.088, peak), 90.0, 1e-9);
    EXPECT_NEAR(percent_of_peak(peak, peak), 100.0, 1e-12);
}

TEST(PercentOfPeak, SeedA100FigureIs83Point6Percent) {
    // A100 40GB: 2 x 1215 MHz x 5120 bit / 8 = 1555.2 GB/s; the seed's 1300 GB/s is 83.6% of it.
    const double peak = theoretical_gb_per_s(memory(1215000, 5120));
    EXPECT_NEAR(peak, 1555.2, 1e-9);
    EXPECT_NEAR(percent_of_peak(1300.0, peak), 83.59, 0.01);
}

TEST(PercentOfPeak, UnknownPeakShowsZero) {
    EXPECT_EQ(percent_of_peak(1000.0, 0.0), 0.0);
    EXPECT_EQ(theoretical_gb_per_s(memory(0, 0)), 0.0);
}

// ---- the SAXPY reference ----

TEST(SaxpyReference, ExactCases) {
    EXPECT_EQ(saxpy_value(2.0f, 1.5f, 0.25f), 3.25f);
    EXPECT_EQ(saxpy_value(-0.5f, 4.0f, 2.0f), 0.0f);
    EXPECT_EQ(saxpy_value(0.0f, 123.0f, -7.0f), -7.0f);
}

TEST(SaxpyReference, RoundsOnceNotTwice) {
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24. Rounded to float first (a tie, to even) it is 1 + 2^-11
    // and adding -(1 + 2^-11) gives 0; fused, the 2^-24 survives exactly.
    const float a = 1.0f + 0x1p-12f, y = -(1.0f + 0x1p-11f);
    EXPECT_EQ(saxpy_value(a, a, y), 0x1p-24f);
    // Intermediate overflow: 2 x FLT_MAX is not a float, but 2 x FLT_MAX - FLT_MAX is.
    EXPECT_EQ(saxpy_value(2.0f, FLT_MAX, -FLT_MAX), FLT_MAX);
}

TEST(SaxpyReference, RoundsTheSumToNearestEven) {
    EXPECT_EQ(saxpy_value(1.0f, 1.0f, 0x1p-24f), 1.0f);                 // halfway: to the even 1
    EXPECT_EQ(saxpy_value(1.0f, 1.0f, 0x1.8p-24f), 1.0f + 0x1p-23f);    // past halfway: up
    EXPECT_EQ(saxpy_value(1.0f, 1.0f + 0x1p-23f, 0x1p-24f), 1.0f + 0x1p-22f);  // halfway, odd: up to even
}

// The alpha the tool uses makes the check sensitive to FMA: an a*x + y kernel (two roundings)
// would differ from the reference on a good share of random inputs.
TEST(SaxpyReference, ToolAlphaSeparatesFusedFromUnfused) {
    uint32_t state = 12345;
    auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return static_cast<float>(state >> 8) * 0x1p-23f - 1.0f;  // [-1, 1)
    };
    int differ = 0;
    for (int i = 0; i < 1000; ++i) {
        const float x = next(), y = next();
        volatile float product = kSaxpyAlpha * x;  // rounded to float on its own
        if (saxpy_value(kSaxpyAlpha, x, y) != product + y) ++differ;
    }
    EXPECT_GT(differ, 50);
}

TEST(SaxpyReference, VectorsElementwise) {
    const std::vector<float> x = {1.0f, -2.0f, 0.5f}, y = {0.25f, 8.0f, -1.0f};
    EXPECT_EQ(saxpy_reference(2.0f, x, y), (std::vector<float>{2.25f, 4.0f, 0.0f}));
    EXPECT_TRUE(saxpy_reference(2.0f, {}, {}).empty());
    EXPECT_THROW(saxpy_reference(2.0f, x, {1.0f}), std::invalid_argument);
}

// ---- which elements are checked ----

TEST(CheckRuns, ArraysUpTo64MibAreCheckedWhole) {
    EXPECT_EQ(check_runs(1, 7), (std::vector<IndexRun>{{0, 1}}));
    EXPECT_EQ(check_runs(262147, 7), (std::vector<IndexRun>{{0, 262147}}));
    EXPECT_EQ(kCheckAllElements, 16 * 1024 * 1024);
    EXPECT_EQ(check_runs(kCheckAllElements, 7), (std::vector<IndexRun>{{0, kCheckAllElements}}));
}

TEST(CheckRuns, LargeArraysGetHeadRandomAndTail) {
    for (int64_t n : {kCheckAllElements + 1, int64_t{1} << 28, (int64_t{1} << 30) + 3}) {
        const std::vector<IndexRun> runs = check_runs(n, 2024);
        ASSERT_GE(runs.size(), 3u) << n;
        EXPECT_EQ(runs.front(), (IndexRun{0, kCheckEdge})) << n;
        EXPECT_EQ(runs.back(), (IndexRun{n - kCheckEdge, kCheckEdge})) << n;  // holds the last element
        for (size_t i = 1; i < runs.size(); ++i) {
            EXPECT_GT(runs[i].first, runs[i - 1].first + runs[i - 1].count) << "overlapping or unmerged runs at " << i;
            EXPECT_GE(runs[i].count, 1);
        }
        const int64_t total = elements_in(runs);
        EXPECT_LE(total, 2 * kCheckEdge + kCheckRandom) << n;
        EXPECT_GE(total, 2 * kCheckEdge + kCheckRandom - 16) << n;  // few repeated picks in 16M+
    }
}

TEST(CheckRuns, SameSeedSameIndicesOtherSeedOthers) {
    const int64_t n = int64_t{1} << 28;
    EXPECT_EQ(check_runs(n, 5), check_runs(n, 5));
    EXPECT_NE(check_runs(n, 5), check_runs(n, 6));
}

TEST(CheckRuns, RejectsEmptyArrays) {
    EXPECT_THROW(check_runs(0, 1), std::invalid_argument);
    EXPECT_THROW(check_runs(-5, 1), std::invalid_argument);
}

// ---- the bit-exact comparison ----

TEST(CompareBits, EqualBitsPass) {
    const std::vector<IndexRun> runs = {{0, 2}, {10, 3}};
    const std::vector<float> v = {1.0f, 2.0f, 3.0f, -0.0f, 5.0f};
    const CheckResult r = compare_bits(runs, v, v);
    EXPECT_TRUE(r.pass());
    EXPECT_EQ(r.checked, 5);
    EXPECT_EQ(r.mismatches, 0);
    EXPECT_TRUE(contains(describe(r), "5 of 5 elements bit-exact"));
}

TEST(CompareBits, OneUlpFailsAndNamesTheArrayIndex) {
    const std::vector<IndexRun> runs = {{0, 2}, {10, 3}};
    const std::vector<float> want = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
    std::vector<float> got = want;
    got[3] = std::nextafter(4.0f, 5.0f);  // element 3 of the runs is y[11]
    got[4] = 0.0f;
    const CheckResult r = compare_bits(runs, want, got);
    EXPECT_FALSE(r.pass());
    EXPECT_EQ(r.mismatches, 2);
    EXPECT_EQ(r.first_index, 11);
    EXPECT_EQ(r.want, 4.0f);
    EXPECT_TRUE(contains(describe(r), "2 of 5 elements differ; first y[11] = 0x40800001"));
}

TEST(CompareBits, SignedZeroAndNanAreMismatches) {
    const std::vector<IndexRun> runs = {{0, 2}};
    EXPECT_EQ(compare_bits(runs, {0.0f, 1.0f}, {-0.0f, 1.0f}).mismatches, 1);
    EXPECT_EQ(compare_bits(runs, {0.0f, 1.0f}, {0.0f, std::numeric_limits<float>::quiet_NaN()}).mismatches, 1);
}

TEST(CompareBits, NothingCheckedIsNoPass) {
    const CheckResult r = compare_bits({}, {}, {});
    EXPECT_EQ(r.checked, 0);
    EXPECT_FALSE(r.pass());
    EXPECT_TRUE(contains(describe(r), "no elements"));
}

TEST(CompareBits, RejectsLengthsThatDisagreeWithTheRuns) {
    const std::vector<IndexRun> runs = {{4, 3}};
    EXPECT_THROW(compare_bits(runs, {1, 2, 3}, {1, 2}), std::invalid_argument);
    EXPECT_THROW(compare_bits(runs, {1, 2}, {1, 2, 3}), std::invalid_argument);
}

}  // namespace
