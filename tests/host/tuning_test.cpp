// Shape classes, the compiled-in tuning table (src/tuning/sgemm_table.csv), and `auto`'s use of
// it. The table tests hold for any measured table, so a new `gemmkit tune --write` needs no edits
// here; they fail if the table names a kernel that is gone, not tuned, or not FP32.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "registry.hpp"
#include "test_util.hpp"
#include "tuning/ranking.hpp"
#include "tuning/shape_class.hpp"
#include "tuning/tuning_table.hpp"

namespace {

using gemmkit::KernelInfo;
using gemmkit::Problem;
using gemmkit::test::fake_ptr;
using gemmkit::tuning::aligned_for_class;
using gemmkit::tuning::class_shapes;
using gemmkit::tuning::ClassShape;
using gemmkit::tuning::output_tiles;
using gemmkit::tuning::rank_candidates;
using gemmkit::tuning::shape_class;
using gemmkit::tuning::tuned_kernel_for;
using gemmkit::tuning::tuned_table;

const gemmkit_op kOps[] = {GEMMKIT_OP_N, GEMMKIT_OP_T};

int64_t round_up4(int64_t x) { return (std::max<int64_t>(x, 1) + 3) / 4 * 4; }

// An FP32 problem with 256-byte-aligned pointers and leading dimensions rounded up to 4 floats.
Problem aligned_fp32(int64_t m, int64_t n, int64_t k, gemmkit_op ta = GEMMKIT_OP_N, gemmkit_op tb = GEMMKIT_OP_N) {
    Problem p;
    p.transa = ta, p.transb = tb;
    p.m = m, p.n = n, p.k = k;
    p.lda = round_up4(gemmkit::stored_rows_a(p));
    p.ldb = round_up4(gemmkit::stored_rows_b(p));
    p.ldc = round_up4(m);
    p.A = fake_ptr<const void>(0x10000);
    p.B = fake_ptr<const void>(0x20000);
    p.C = fake_ptr<void>(0x30000);
    return p;
}

// The class's representative as `gemmkit tune` builds it: its ops, lda and ldb the stored rows
// of A and B, ldc = m, and cudaMalloc'ed (256-byte-aligned) buffers.
Problem as_tuned(const ClassShape& s) {
    Problem p = aligned_fp32(s.m, s.n, s.k, s.transa, s.transb);
    p.lda = gemmkit::stored_rows_a(p);
    p.ldb = gemmkit::stored_rows_b(p);
    p.ldc = s.m;
    return p;
}

std::string size_part(const Problem& p) {
    const std::string cls = shape_class(p);
    return cls.substr(0, cls.find('/'));
}

// ---- shape classes --------------------------------------------------------------------------

TEST(OutputTiles, CountsPartialTilesAndNothingForEmptyProblems) {
    EXPECT_EQ(output_tiles(1, 1), 1);
    EXPECT_EQ(output_tiles(128, 128), 1);
    EXPECT_EQ(output_tiles(129, 128), 2);
    EXPECT_EQ(output_tiles(129, 129), 4);
    EXPECT_EQ(output_tiles(4096, 1000), 32 * 8);
    EXPECT_EQ(output_tiles(0, 512), 0);
    EXPECT_EQ(output_tiles(512, 0), 0);
    EXPECT_EQ(output_tiles(-5, 512), 0);
}

TEST(OutputTiles, SaturatesInsteadOfOverflowing) {
    const int64_t big = int64_t{1} << 62;
    EXPECT_EQ(output_tiles(big, big), INT64_MAX);
    EXPECT_EQ(output_tiles(INT64_MAX, 1), (INT64_MAX - 1) / 128 + 1);
}

// Each bucket's upper edge in tiles, and one tile past it, reached both as squares and as strips.
TEST(ShapeClass, SizeBucketEdges) {
    struct Case {
        int64_t m, n;
        const char* bucket;
    };
    const Case cases[] = {
        {0, 0, "tiles<=16"},        {1, 1, "tiles<=16"},           {512, 512, "tiles<=16"},
        {128 * 16, 128, "tiles<=16"}, {128 * 17, 128, "tiles<=64"}, {513, 512, "tiles<=64"},
        {1024, 1024, "tiles<=64"},  {1025, 1024, "tiles<=256"},   {128, 128 * 65, "tiles<=256"},
        {2048, 2048, "tiles<=256"}, {2049, 2048, "tiles<=1024"},  {128 * 257, 128, "tiles<=1024"},
        {4096, 4096, "tiles<=1024"}, {4097, 4096, "tiles>1024"},  {128, 128 * 1025, "tiles>1024"},
        {128 * 1024, 128, "tiles<=1024"}, {8192, 8192, "tiles>1024"}, {int64_t{1} << 40, 1 << 20, "tiles>1024"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(size_part(aligned_fp32(c.m, c.n, 64)), c.bucket) << c.m << " x " << c.n;
}

TEST(ShapeClass, DepthEdge) {
    EXPECT_EQ(shape_class(aligned_fp32(512, 512, 0)), "tiles<=16/k<=1024/aligned/NN");
    EXPECT_EQ(shape_class(aligned_fp32(512, 512, 1)), "tiles<=16/k<=1024/aligned/NN");
    EXPECT_EQ(shape_class(aligned_fp32(512, 512, 1024)), "tiles<=16/k<=1024/aligned/NN");
    EXPECT_EQ(shape_class(aligned_fp32(512, 512, 1025)), "tiles<=16/k>1024/aligned/NN");
    EXPECT_EQ(shape_class(aligned_fp32(512, 512, 1 << 30)), "tiles<=16/k>1024/aligned/NN");
}

TEST(ShapeClass, KeyFormat) {
    EXPECT_EQ(shape_class(aligned_fp32(2048, 2048, 1024)), "tiles<=256/k<=1024/aligned/NN");
    Problem p = aligned_fp32(8192, 8192, 4096);
    p.lda = 8193;
    EXPECT_EQ(shape_class(p), "tiles>1024/k>1024/unaligned/NN");
}

TEST(ShapeClass, EachMisalignedPointerMakesItUnaligned) {
    const Problem base = aligned_fp32(1024, 1024, 1024);
    ASSERT_TRUE(aligned_for_class(base));
    ASSERT_EQ(shape_class(base), "tiles<=64/k<=1024/aligned/NN");
    for (int which = 0; which < 3; ++which) {
        SCOPED_TRACE(which);
        for (uintptr_t shift : {4u, 8u, 12u}) {
            Problem p = base;
            if (which == 0) p.A = fake_ptr<const void>(0x10000 + shift);
            if (which == 1) p.B = fake_ptr<const void>(0x20000 + shift);
            if (which == 2) p.C = fake_ptr<void>(0x30000 + shift);
            EXPECT_FALSE(aligned_for_class(p)) << shift;
            EXPECT_EQ(shape_class(p), "tiles<=64/k<=1024/unaligned/NN") << shift;
        }
        Problem p = base;  // 16 bytes further is still aligned
        if (which == 0) p.A = fake_ptr<const void>(0x10010);
        if (which == 1) p.B = fake_ptr<const void>(0x20010);
        if (which == 2) p.C = fake_ptr<void>(0x30010);
        EXPECT_TRUE(aligned_for_class(p));
    }
}

// Leading dimensions count in bytes of their type: 4 floats = 16 bytes.
TEST(ShapeClass, EachLeadingDimensionNotAMultipleOf4FloatsMakesItUnaligned) {
    const Problem base = aligned_fp32(1024, 1024, 1024);
    for (int which = 0; which < 3; ++which) {
        SCOPED_TRACE(which);
        for (int64_t ld : {1025, 1026, 1027, 1028}) {
            Problem p = base;
            (which == 0 ? p.lda : which == 1 ? p.ldb : p.ldc) = ld;
            EXPECT_EQ(aligned_for_class(p), ld % 4 == 0) << ld;
            EXPECT_EQ(shape_class(p), ld % 4 == 0 ? "tiles<=64/k<=1024/aligned/NN" : "tiles<=64/k<=1024/unaligned/NN")
                << ld;
        }
    }
}

// Aligned operands are "ragged" when m or n is not a multiple of 128; k does not count.
TEST(ShapeClass, RaggedWhenMOrNIsNotAMultipleOfTheTile) {
    EXPECT_EQ(shape_class(aligned_fp32(1024, 1024, 1024)), "tiles<=64/k<=1024/aligned/NN");
    EXPECT_EQ(shape_class(aligned_fp32(1024, 1024, 1000)), "tiles<=64/k<=1024/aligned/NN");
    EXPECT_EQ(shape_class(aligned_fp32(1000, 1024, 1024)), "tiles<=64/k<=1024/ragged/NN");
    EXPECT_EQ(shape_class(aligned_fp32(1024, 1000, 1024)), "tiles<=64/k<=1024/ragged/NN");
    EXPECT_EQ(shape_class(aligned_fp32(1000, 1000, 1000)), "tiles<=64/k<=1024/ragged/NN");
    EXPECT_EQ(shape_class(aligned_fp32(4, 4, 4)), "tiles<=16/k<=1024/ragged/NN");
    Problem p = aligned_fp32(1000, 1000, 1000);
    p.ldc = 1001;  // unaligned wins over ragged
    EXPECT_EQ(shape_class(p), "tiles<=64/k<=1024/unaligned/NN");
}

TEST(ShapeClass, OpsAreTheLastPart) {
    EXPECT_EQ(shape_class(aligned_fp32(2048, 1000, 3000, GEMMKIT_OP_N, GEMMKIT_OP_N)), "tiles<=256/k>1024/ragged/NN");
    EXPECT_EQ(shape_class(aligned_fp32(2048, 1000, 3000, GEMMKIT_OP_N, GEMMKIT_OP_T)), "tiles<=256/k>1024/ragged/NT");
    EXPECT_EQ(shape_class(aligned_fp32(2048, 1000, 3000, GEMMKIT_OP_T, GEMMKIT_OP_N)), "tiles<=256/k>1024/ragged/TN");
    EXPECT_EQ(shape_class(aligned_fp32(2048, 1000, 3000, GEMMKIT_OP_T, GEMMKIT_OP_T)), "tiles<=256/k>1024/ragged/TT");
}

// ---- representatives --------------------------------------------------------------------------

// Every class once, unaligned ones by two shapes, a class's shapes consecutive (the tuner groups
// them by that).
TEST(ClassShapes, CoverEveryClassInOneRun) {
    std::set<std::string> expected;
    for (const char* size : {"tiles<=16", "tiles<=64", "tiles<=256", "tiles<=1024", "tiles>1024"})
        for (const char* depth : {"k<=1024", "k>1024"})
            for (const char* alignment : {"aligned", "ragged", "unaligned"})
                for (const char* ops : {"NN", "NT", "TN", "TT"})
                    expected.insert(std::string(size) + "/" + depth + "/" + alignment + "/" + ops);
    std::map<std::string, int> count;
    std::set<std::string> finished;
    std::string previous;
    for (const ClassShape& s : class_shapes()) {
        if (s.shape_class != previous) {
            EXPECT_TRUE(finished.insert(previous).second || previous.empty()) << previous << " came back";
            EXPECT_EQ(finished.count(s.shape_class), 0u) << s.shape_class << " is split in two runs";
        }
        previous = s.shape_class;
        ++count[s.shape_class];
    }
    std::set<std::string> seen;
    for (const auto& [name, n] : count) {
        seen.insert(name);
        EXPECT_EQ(n, name.find("/unaligned/") != std::string::npos ? 2 : 1) << name;
    }
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(class_shapes().size(), 160u);
}

// Each op combination reads its operands along the other dimension: lda is k for op(A) = T.
TEST(ClassShapes, LeadingDimensionsFollowTheOps) {
    for (const ClassShape& s : class_shapes()) {
        SCOPED_TRACE(s.shape_class);
        const Problem p = as_tuned(s);
        EXPECT_EQ(p.lda, s.transa == GEMMKIT_OP_N ? s.m : s.k);
        EXPECT_EQ(p.ldb, s.transb == GEMMKIT_OP_N ? s.k : s.n);
        EXPECT_EQ(p.ldc, s.m);
    }
}

TEST(ClassShapes, EachRepresentativeLandsInItsOwnClass) {
    for (const ClassShape& s : class_shapes()) {
        SCOPED_TRACE(s.shape_class);
        const Problem p = as_tuned(s);
        EXPECT_EQ(shape_class(p), s.shape_class) << s.m << "x" << s.n << "x" << s.k;
        EXPECT_EQ(aligned_for_class(p), s.aligned);
    }
}

// 1000^3, the unaligned-looking size users send (its leading dimensions are multiples of 4
// floats), is measured for every op combination, as are 4097^3 and the bucket edges.
TEST(ClassShapes, IncludeRaggedAndOddSizes) {
    for (int64_t side : {1000, 4097, 4096, 4095}) {
        std::set<std::string> ops;
        for (const ClassShape& s : class_shapes())
            if (s.m == side && s.n == side) ops.insert(gemmkit::ops_name(s.transa, s.transb));
        EXPECT_EQ(ops.size(), 4u) << side;
    }
    int cubes = 0;
    for (const ClassShape& s : class_shapes()) cubes += s.m == 1000 && s.n == 1000 && s.k == 1000 && s.aligned;
    EXPECT_EQ(cubes, 4);
}

// The tuner runs ~10 candidates x 80 classes; the largest product must stay a few hundred GFLOP.
TEST(ClassShapes, RepresentativesStayCheapToTime) {
    for (const ClassShape& s : class_shapes()) {
        EXPECT_GT(s.m * s.n * s.k, 0) << s.shape_class;
        EXPECT_LE(2.0 * s.m * s.n * s.k, 2.0 * 8192 * 8192 * 4096) << s.shape_class;
    }
}

// ---- ranking ------------------------------------------------------------------------------------

// The numbers of tiles<=64/k<=1024/aligned/TT on the H100 (1024^3, 1000^3): by geometric mean
// the two tiles tie; 64x128 falls off a cliff at 1000^3, 4.8 points below 128x64's worst.
TEST(RankCandidates, ACandidateOffACliffLosesToASlowerOne) {
    const std::vector<double> cublas = {35.0 / 1.016, 30.4};
    const auto ranked = rank_candidates({{"64x128", {35.0, 27.2}}, {"128x64", {33.5, 28.5}}}, cublas);
    ASSERT_EQ(ranked.size(), 2u);
    EXPECT_EQ(ranked[0].kernel, "128x64");
    EXPECT_NEAR(ranked[0].worst_ratio, 28.5 / 30.4, 1e-12);
    EXPECT_NEAR(ranked[0].geomean_tflops, std::sqrt(33.5 * 28.5), 1e-12);
    EXPECT_FALSE(ranked[0].off_a_cliff);
    EXPECT_EQ(ranked[1].kernel, "64x128");
    EXPECT_NEAR(ranked[1].worst_ratio, 27.2 / 30.4, 1e-12);
    EXPECT_TRUE(ranked[1].off_a_cliff);
    // Even when it is faster on average.
    const auto faster = rank_candidates({{"64x128", {40.0, 27.2}}, {"128x64", {33.5, 28.5}}}, cublas);
    EXPECT_EQ(faster[0].kernel, "128x64");
}

// Within kCliffPoints of the best worst ratio, the geometric mean decides (NT at 4096^3 and
// 4072^3: 256x128 49.6 TFLOP/s, worst 92.6%, against 128x128 49.0, worst 92.9%).
TEST(RankCandidates, WithinTheCliffMarginTheGeometricMeanWins) {
    const std::vector<double> cublas = {50.0, 50.0};
    const auto ranked = rank_candidates({{"128x128", {50.5, 46.45}}, {"256x128", {53.0, 46.3}}}, cublas);
    ASSERT_EQ(ranked.size(), 2u);
    EXPECT_EQ(ranked[0].kernel, "256x128");
    EXPECT_FALSE(ranked[0].off_a_cliff);
    EXPECT_FALSE(ranked[1].off_a_cliff);
}

// The margin in points: just inside it counts as no cliff, just past it as one.
TEST(RankCandidates, TheCliffMarginIsKCliffPoints) {
    const double inside = 1.0 - (gemmkit::tuning::kCliffPoints - 0.01) / 100, past = 1.0 - (gemmkit::tuning::kCliffPoints + 0.01) / 100;
    auto ranked = rank_candidates({{"best", {10}}, {"fast", {100}}}, {10});  // ratios 1 and 10
    EXPECT_EQ(ranked[0].kernel, "fast");
    ranked = rank_candidates({{"steady", {10, 10}}, {"fast", {100, 10 * inside}}}, {10, 10});
    EXPECT_EQ(ranked[0].kernel, "fast");
    ranked = rank_candidates({{"steady", {10, 10}}, {"fast", {100, 10 * past}}}, {10, 10});
    EXPECT_EQ(ranked[0].kernel, "steady");
    EXPECT_TRUE(ranked[1].off_a_cliff);
}

TEST(RankCandidates, EqualCandidatesKeepTheirOrder) {
    const auto ranked = rank_candidates({{"a", {10, 20}}, {"b", {10, 20}}, {"c", {5, 40}}}, {20, 20});
    ASSERT_EQ(ranked.size(), 3u);
    EXPECT_EQ(ranked[0].kernel, "a");
    EXPECT_EQ(ranked[1].kernel, "b");
    EXPECT_EQ(ranked[2].kernel, "c");  // worst 0.25 against 0.5: off a cliff
    EXPECT_TRUE(ranked[2].off_a_cliff);
}

TEST(RankCandidates, RejectsMismatchedOrNonPositiveTimes) {
    EXPECT_THROW(rank_candidates({{"a", {1, 2}}}, {1}), std::invalid_argument);
    EXPECT_THROW(rank_candidates({{"a", {1}}}, {}), std::invalid_argument);
    EXPECT_THROW(rank_candidates({{"a", {0, 2}}}, {1, 1}), std::invalid_argument);
    EXPECT_THROW(rank_candidates({{"a", {1, 2}}}, {1, -1}), std::invalid_argument);
    EXPECT_TRUE(rank_candidates({}, {1, 1}).empty());
}

// ---- the table ----------------------------------------------------------------------------------

TEST(TuningTable, EveryClassHasARow) {
    for (const ClassShape& s : class_shapes())
        EXPECT_NE(tuned_kernel_for(s.shape_class), nullptr) << s.shape_class << " has no row in sgemm_table.csv";
}

TEST(TuningTable, RowsAreKnownClassesOnce) {
    std::set<std::string> known, seen;
    for (const ClassShape& s : class_shapes()) known.insert(s.shape_class);
    ASSERT_FALSE(tuned_table().empty());
    for (const auto& row : tuned_table()) {
        EXPECT_EQ(known.count(row.shape_class), 1u) << row.shape_class << " is not a shape class";
        EXPECT_TRUE(seen.insert(row.shape_class).second) << row.shape_class << " has two rows";
    }
}

TEST(TuningTable, KernelsAreRegisteredTunedFp32Kernels) {
    for (const auto& row : tuned_table()) {
        SCOPED_TRACE(row.shape_class);
        const KernelInfo* k = gemmkit::find_kernel(row.kernel);
        ASSERT_NE(k, nullptr) << row.kernel << " is not registered (gemmkit list)";
        EXPECT_GE(k->level, 11) << k->name;
        EXPECT_EQ(k->dtype, GEMMKIT_R_32F) << k->name;
        EXPECT_EQ(k->compute, GEMMKIT_COMPUTE_32F) << k->name;
    }
}

TEST(TuningTable, LookupIsExact) {
    ASSERT_FALSE(tuned_table().empty());
    const auto& first = tuned_table().front();
    EXPECT_STREQ(tuned_kernel_for(first.shape_class), first.kernel);
    EXPECT_EQ(tuned_kernel_for(""), nullptr);
    EXPECT_EQ(tuned_kernel_for("tiles<=16/k<=1024/sideways"), nullptr);
    EXPECT_EQ(tuned_kernel_for("tiles<=16/k<=1024/aligned"), nullptr);  // the ops are part of the key
    EXPECT_EQ(tuned_kernel_for(std::string(first.shape_class) + " "), nullptr);
}

// ---- auto's use of it ---------------------------------------------------------------------------

// For every class on sm_90, aligned or not, auto runs the table's kernel.
TEST(ChooseKernelWithTable, ReturnsTheTablesKernelForEveryClass) {
    for (const ClassShape& s : class_shapes()) {
        SCOPED_TRACE(s.shape_class);
        const KernelInfo* tuned = gemmkit::find_kernel(tuned_kernel_for(s.shape_class));
        ASSERT_NE(tuned, nullptr);
        ASSERT_LE(tuned->min_sm, 90);
        std::string why;
        EXPECT_EQ(gemmkit::choose_kernel(as_tuned(s), 90, &why), tuned) << why;
    }
}

// The same sizes with other ops are other classes, and auto follows each one's row.
TEST(ChooseKernelWithTable, EachOpCombinationGetsItsOwnRow) {
    for (const ClassShape& s : class_shapes()) {
        if (s.transa != GEMMKIT_OP_N || s.transb != GEMMKIT_OP_N) continue;
        for (gemmkit_op a : kOps)
            for (gemmkit_op b : kOps) {
                ClassShape other = s;
                other.transa = a, other.transb = b;
                const Problem p = as_tuned(other);
                const std::string cls = shape_class(p);
                SCOPED_TRACE(cls);
                EXPECT_EQ(cls.substr(0, cls.rfind('/')), s.shape_class.substr(0, s.shape_class.rfind('/')));
                EXPECT_EQ(cls.substr(cls.rfind('/') + 1), gemmkit::ops_name(a, b));
                std::string why;
                const KernelInfo* chosen = gemmkit::choose_kernel(p, 90, &why);
                ASSERT_NE(chosen, nullptr) << why;
                EXPECT_STREQ(chosen->name, tuned_kernel_for(cls));
            }
    }
}

// An aligned problem of each class built by hand (not the representative) gets the same answer.
TEST(ChooseKernelWithTable, HandMadeAlignedProblemsOfEachSizeGetTheirRow) {
    const int64_t sides[] = {100, 700, 1500, 3000, 6000};
    for (int64_t side : sides)
        for (int64_t k : {64, 2000}) {
            const Problem p = aligned_fp32(side, side + 36, k);
            const char* name = tuned_kernel_for(shape_class(p));
            ASSERT_NE(name, nullptr) << shape_class(p);
            std::string why;
            const KernelInfo* chosen = gemmkit::choose_kernel(p, 90, &why);
            ASSERT_NE(chosen, nullptr) << why;
            EXPECT_STREQ(chosen->name, name) << shape_class(p);
        }
}

// Whatever the table says, auto never returns a kernel that cannot run the problem on the device.
TEST(ChooseKernelWithTable, NeverReturnsAKernelThatCannotRunIt) {
    for (const ClassShape& s : class_shapes())
        for (int sm : {50, 60, 70, 75, 80, 86, 89, 90, 100, 120}) {
            SCOPED_TRACE(s.shape_class + " sm_" + std::to_string(sm));
            const Problem p = as_tuned(s);
            std::string why;
            const KernelInfo* chosen = gemmkit::choose_kernel(p, sm, &why);
            ASSERT_NE(chosen, nullptr) << why;
            std::string reason;
            EXPECT_TRUE(chosen->supports(p, &reason)) << chosen->name << ": " << reason;
            EXPECT_LE(chosen->min_sm, sm) << chosen->name;
        }
}

// Below a table kernel's min_sm, auto falls back to the level rule instead.
TEST(ChooseKernelWithTable, OlderDevicesFallBackToTheLevelRule) {
    int checked = 0;
    for (const ClassShape& s : class_shapes()) {
        const KernelInfo* tuned = gemmkit::find_kernel(tuned_kernel_for(s.shape_class));
        ASSERT_NE(tuned, nullptr) << s.shape_class;
        const int sm = tuned->min_sm - 1;
        if (sm < 50) continue;  // it runs everywhere the ladder does
        std::string why;
        const KernelInfo* chosen = gemmkit::choose_kernel(as_tuned(s), sm, &why);
        ASSERT_NE(chosen, nullptr) << why;
        EXPECT_NE(chosen, tuned) << s.shape_class;
        EXPECT_LE(chosen->min_sm, sm) << chosen->name;
        ++checked;
    }
    if (checked == 0) GTEST_SKIP() << "every table kernel runs on sm_50; nothing to fall back from";
}

// The table is for FP32 data with FP32 accumulation; other types never see its kernels.
TEST(ChooseKernelWithTable, OtherTypesIgnoreTheTable) {
    Problem p = aligned_fp32(2048, 2048, 1024);
    for (gemmkit_dtype t : {GEMMKIT_R_64F, GEMMKIT_R_16F, GEMMKIT_R_16BF}) {
        p.a_type = p.b_type = p.c_type = t;
        std::string why;
        const KernelInfo* chosen = gemmkit::choose_kernel(p, 90, &why);
        if (chosen != nullptr) {
            EXPECT_EQ(chosen->dtype, t) << chosen->name;
        }
    }
    p = aligned_fp32(2048, 2048, 1024);
    p.compute = GEMMKIT_COMPUTE_32F_FAST_TF32;
    std::string why, reason;
    const KernelInfo* chosen = gemmkit::choose_kernel(p, 90, &why);
    if (chosen != nullptr) {
        EXPECT_TRUE(chosen->supports(p, &reason)) << chosen->name << ": " << reason;
    }
}

}  // namespace
