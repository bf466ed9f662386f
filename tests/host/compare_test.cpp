// verify::compare decides whether a kernel passes, so its bounds are tested at their edges;
// uniform_value is the host twin of the device generator every check draws inputs from.
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.hpp"
#include "verify/compare.hpp"
#include "verify/matrix_init.hpp"

namespace {

using gemmkit::test::contains;
using gemmkit::verify::compare;
using gemmkit::verify::CompareResult;
using gemmkit::verify::Tolerance;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A loose Frobenius bound, so only the elementwise bound decides: u = 2^-24, factor 4.
constexpr Tolerance kElementwise{1.0, 0x1.0p-24, 4.0};

// A 6 x 5 reference with values near 1 and scale 1 everywhere.
struct Fixture {
    int64_t m = 6, n = 5, k = 16;
    std::vector<double> ref, scale;
    Fixture() : ref(m * n), scale(m * n, 1.0) {
        for (int64_t i = 0; i < m * n; ++i) ref[i] = 1.0 + 0.01 * static_cast<double>(i);
    }
    // The elementwise bound for scale 1: factor * u * (sqrt(16) + 1).
    double bound() const { return 4.0 * 0x1.0p-24 * 5.0; }
};

TEST(Compare, IdenticalPasses) {
    Fixture f;
    const CompareResult r = compare(f.ref.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise);
    EXPECT_TRUE(r.pass);
    EXPECT_EQ(r.rel_frobenius, 0.0);
    EXPECT_EQ(r.worst_ratio, 0.0);
    EXPECT_EQ(r.bad_elements, 0);
    EXPECT_EQ(r.first_bad_row, -1);
    EXPECT_EQ(r.first_bad_col, -1);
}

TEST(Compare, FloatOutputRoundedFromReferencePassesFp32Tolerance) {
    Fixture f;
    std::vector<float> out(f.ref.begin(), f.ref.end());
    const auto tol = gemmkit::verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, f.k);
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol);
    EXPECT_TRUE(r.pass) << gemmkit::verify::describe(r);
    EXPECT_GT(r.rel_frobenius, 0.0);
}

TEST(Compare, OneBadElementIsFoundAndLocated) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[3 + 2 * f.m] += 0.5;  // row 3, column 2
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise);
    EXPECT_FALSE(r.pass);
    EXPECT_EQ(r.bad_elements, 1);
    EXPECT_EQ(r.first_bad_row, 3);
    EXPECT_EQ(r.first_bad_col, 2);
    EXPECT_GT(r.worst_ratio, 1.0);
}

// "First" is in column-major order: column 1 comes before column 4 whatever the rows.
TEST(Compare, FirstBadIsTheFirstInColumnMajorOrder) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[0 + 4 * f.m] = 0;
    out[5 + 1 * f.m] = 0;
    out[2 + 3 * f.m] = 0;
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise);
    EXPECT_EQ(r.bad_elements, 3);
    EXPECT_EQ(r.first_bad_row, 5);
    EXPECT_EQ(r.first_bad_col, 1);
}

TEST(Compare, NaNNeverPasses) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[7] = kNaN;
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise);
    EXPECT_FALSE(r.pass);
    EXPECT_EQ(r.bad_elements, 1);
    EXPECT_EQ(r.first_bad_row, 7 % f.m);
    EXPECT_EQ(r.first_bad_col, 7 / f.m);
}

// Unwritten output is poisoned with NaN: a kernel that writes nothing must fail everywhere.
TEST(Compare, AllNaNOutputFailsEveryElement) {
    Fixture f;
    std::vector<float> out(f.m * f.n, std::numeric_limits<float>::quiet_NaN());
    const auto tol = gemmkit::verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, f.k);
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol);
    EXPECT_FALSE(r.pass);
    EXPECT_EQ(r.bad_elements, f.m * f.n);
}

TEST(Compare, InfinityNeverPasses) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[0] = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise).pass);
}

TEST(Compare, ErrorJustUnderTheElementwiseBoundPasses) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[4] += 0.99 * f.bound();
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise);
    EXPECT_TRUE(r.pass) << gemmkit::verify::describe(r);
    EXPECT_NEAR(r.worst_ratio, 0.99, 1e-6);
}

TEST(Compare, ErrorJustOverTheElementwiseBoundFails) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[4] -= 1.01 * f.bound();
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise);
    EXPECT_FALSE(r.pass);
    EXPECT_EQ(r.bad_elements, 1);
    EXPECT_NEAR(r.worst_ratio, 1.01, 1e-6);
}

// The bound is per element: the same error passes where the scale is large.
TEST(Compare, BoundScalesWithEachElementsScale) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[4] += 3.0 * f.bound();
    f.scale[4] = 4.0;
    EXPECT_TRUE(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise).pass);
    f.scale[4] = 2.0;
    EXPECT_FALSE(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise).pass);
}

// The same absolute error is allowed to grow like sqrt(k) + 1.
TEST(Compare, BoundGrowsWithSqrtK) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[4] += 2.0 * f.bound();  // bound at k = 16 is 5 units; at k = 100, 11
    EXPECT_FALSE(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, 16, kElementwise).pass);
    EXPECT_TRUE(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, 100, kElementwise).pass);
}

// Every element within its own bound can still fail the Frobenius bound.
TEST(Compare, RelativeFrobeniusBoundIsEnforced) {
    Fixture f;
    std::vector<double> out = f.ref;
    for (double& v : out) v *= 1.0 + 1e-7;
    const Tolerance strict{1e-9, 0x1.0p-24, 4.0};
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, strict);
    EXPECT_EQ(r.bad_elements, 0);
    EXPECT_NEAR(r.rel_frobenius, 1e-7, 1e-12);
    EXPECT_FALSE(r.pass);
}

// Rows past m in the output are another matrix's business: NaN there must not count.
TEST(Compare, LeadingDimensionOfOutputIsHonoured) {
    Fixture f;
    const int64_t ldo = f.m + 3;
    std::vector<float> out(ldo * f.n, std::numeric_limits<float>::quiet_NaN());
    for (int64_t j = 0; j < f.n; ++j)
        for (int64_t i = 0; i < f.m; ++i) out[i + j * ldo] = static_cast<float>(f.ref[i + j * f.m]);
    const auto tol = gemmkit::verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, f.k);
    const CompareResult r = compare(out.data(), ldo, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol);
    EXPECT_TRUE(r.pass) << gemmkit::verify::describe(r);
}

TEST(Compare, ZeroReferenceAndZeroOutputPass) {
    const std::vector<double> zeros(12, 0.0);
    const CompareResult r = compare(zeros.data(), 3, zeros.data(), zeros.data(), 3, 4, 8, kElementwise);
    EXPECT_TRUE(r.pass);
    EXPECT_EQ(r.rel_frobenius, 0.0);
}

// A zero reference with zero scale (beta * 0, k = 0) leaves no room for any error.
TEST(Compare, NonZeroOutputWhereReferenceAndScaleAreZeroFails) {
    const std::vector<double> zeros(12, 0.0);
    std::vector<double> out = zeros;
    out[5] = 1e-30;
    EXPECT_FALSE(compare(out.data(), 3, zeros.data(), zeros.data(), 3, 4, 8, kElementwise).pass);
}

TEST(Compare, DescribeMentionsBadCountAndPosition) {
    Fixture f;
    std::vector<double> out = f.ref;
    out[3 + 2 * f.m] = kNaN;
    const std::string text =
        gemmkit::verify::describe(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, kElementwise));
    EXPECT_TRUE(contains(text, "1 bad"));
    EXPECT_TRUE(contains(text, "(3, 2)"));
}

TEST(Tolerance, Fp32UsesUnitRoundoffTwoToTheMinus24) {
    for (int64_t k : {1, 64, 4096}) {
        const Tolerance t = gemmkit::verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, k);
        EXPECT_EQ(t.unit_roundoff, std::ldexp(1.0, -24)) << k;
        EXPECT_EQ(t.elem_factor, 4.0) << k;
        // DESIGN.md: FP32 well under 1e-5 * sqrt(K).
        EXPECT_GT(t.rel_frobenius, 0.0) << k;
        EXPECT_LT(t.rel_frobenius, 1e-5 * std::sqrt(static_cast<double>(k))) << k;
    }
}

TEST(Tolerance, LooserForLongerSums) {
    const auto at = [](int64_t k) { return gemmkit::verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, k); };
    EXPECT_LT(at(16).rel_frobenius, at(4096).rel_frobenius);
}

TEST(Tolerance, OrderedByPrecisionOfTheArithmetic) {
    using gemmkit::verify::tolerance_for;
    const double u64 = tolerance_for(GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F, 64).unit_roundoff;
    const double u32 = tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 64).unit_roundoff;
    const double tf32 = tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, 64).unit_roundoff;
    const double f16 = tolerance_for(GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, 64).unit_roundoff;
    const double bf16 = tolerance_for(GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, 64).unit_roundoff;
    EXPECT_EQ(u64, std::ldexp(1.0, -53));
    EXPECT_EQ(tf32, std::ldexp(1.0, -11));  // 10 stored mantissa bits
    EXPECT_LT(u64, u32);
    EXPECT_LT(u32, tf32);
    EXPECT_LE(f16, bf16);  // bf16 keeps 7 mantissa bits, f16 10
}

TEST(UniformValue, IsAPureFunctionOfSeedAndIndex) {
    for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{12345}, int64_t{1} << 40})
        EXPECT_EQ(gemmkit::verify::uniform_value(2024, i), gemmkit::verify::uniform_value(2024, i)) << i;
}

TEST(UniformValue, StaysInMinusOneToOne) {
    double lo = 1, hi = -1;
    for (int64_t i = 0; i < 100000; ++i) {
        const double v = gemmkit::verify::uniform_value(7, i);
        ASSERT_GE(v, -1.0) << i;
        ASSERT_LT(v, 1.0) << i;
        lo = std::min(lo, v), hi = std::max(hi, v);
    }
    // 100000 draws come within 1e-3 of both ends with overwhelming probability.
    EXPECT_LT(lo, -0.999);
    EXPECT_GT(hi, 0.999);
}

TEST(UniformValue, DifferentSeedsGiveDifferentSequences) {
    int same = 0;
    for (int64_t i = 0; i < 1000; ++i)
        same += gemmkit::verify::uniform_value(1, i) == gemmkit::verify::uniform_value(2, i);
    EXPECT_EQ(same, 0);
}

TEST(UniformValue, NeighbouringIndicesDiffer) {
    std::set<double> values;
    for (int64_t i = 0; i < 10000; ++i) values.insert(gemmkit::verify::uniform_value(3, i));
    EXPECT_EQ(values.size(), 10000u);
}

// Mean 0 and variance 1/3 for U[-1, 1); the standard error of the mean over 1e5 draws is
// 0.0018, so 0.01 is more than five of them.
TEST(UniformValue, MeanNearZeroAndVarianceNearOneThird) {
    const int64_t count = 100000;
    double sum = 0, sum2 = 0;
    for (int64_t i = 0; i < count; ++i) {
        const double v = gemmkit::verify::uniform_value(2024, i);
        sum += v;
        sum2 += v * v;
    }
    const double mean = sum / count;
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(sum2 / count - mean * mean, 1.0 / 3.0, 0.01);
}

}  // namespace
