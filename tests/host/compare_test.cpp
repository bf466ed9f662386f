// verify::compare decides whether a kernel passes, so its bounds are tested at their edges;
// uniform_value is the host twin of the device generator every check draws inputs from.
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "test_util.hpp"
#include "verify/compare.hpp"
#include "verify/dtypes.hpp"
#include "verify/matrix_init.hpp"

namespace {

using gemmkit::test::contains;
using gemmkit::verify::compare;
using gemmkit::verify::CompareResult;
using gemmkit::verify::Tolerance;
using gemmkit::verify::tolerance_for;

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

// An FP16 output below FP16's smallest normal is rounded on an absolute grid (2^-24): its
// relative error may exceed the Frobenius bound's, and it must still pass. The values are a
// GPU test's 1x1x1 case (seed 7957136422962467938): 0.144897 * -0.000320196 = -4.63956e-5,
// stored as the nearest FP16, -4.63724e-5; one subnormal step more must still fail.
TEST(Compare, Fp16OutputBelowTheSmallestNormalPassesWhenCorrectlyRounded) {
    const double ref = 0.144897 * -0.000320196;
    const __half nearest = __float2half(static_cast<float>(ref));
    const double scale = std::fabs(ref);
    const Tolerance tol = tolerance_for(GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, 1);
    const CompareResult good = compare(&nearest, 1, &ref, &scale, 1, 1, 1, tol);
    EXPECT_GT(good.rel_frobenius, tol.rel_frobenius) << "the case must exercise the subnormal floor";
    EXPECT_TRUE(good.pass) << good.rel_frobenius;
    const __half off_by_three = __float2half(__half2float(nearest) - 3 * 0x1.0p-24f);
    EXPECT_FALSE(compare(&off_by_three, 1, &ref, &scale, 1, 1, 1, tol).pass);
}

// Where alpha a b and beta c nearly cancel, the output is small against its terms and its
// relative error large, though within its elementwise bound. A GPU test's 1x1x1 FP32 case
// (seed 7957136422962465583, alpha 0.5, beta 2): 0.5 * 0.61441 * 0.737692 + 2 * -0.113724.
TEST(Compare, CancellingTermsAreJudgedAgainstTheirMagnitude) {
    const double ref = -0.0008249899772, scale = 0.454071;
    const float out = -0.0008249878883f;  // FP32's fmaf(alpha, a * b, beta * c)
    const Tolerance tol = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 1);
    const CompareResult r = compare(&out, 1, &ref, &scale, 1, 1, 1, tol);
    EXPECT_GT(r.rel_frobenius, tol.rel_frobenius) << "the case must exercise the cancellation";
    EXPECT_LT(r.worst_ratio, 0.1);
    EXPECT_TRUE(r.pass);
    const float wrong = static_cast<float>(ref + 1e-5);  // ~45 times its elementwise bound (2.2e-7)
    EXPECT_FALSE(compare(&wrong, 1, &ref, &scale, 1, 1, 1, tol).pass);
}

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
    const auto tol = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, f.k);
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
    const auto tol = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, f.k);
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
    const auto tol = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, f.k);
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
        const Tolerance t = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, k);
        EXPECT_EQ(t.unit_roundoff, std::ldexp(1.0, -24)) << k;
        EXPECT_EQ(t.elem_factor, 4.0) << k;
        // DESIGN.md: FP32 well under 1e-5 * sqrt(K).
        EXPECT_GT(t.rel_frobenius, 0.0) << k;
        EXPECT_LT(t.rel_frobenius, 1e-5 * std::sqrt(static_cast<double>(k))) << k;
    }
}

TEST(Tolerance, LooserForLongerSums) {
    const auto at = [](int64_t k) { return tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, k); };
    EXPECT_LT(at(16).rel_frobenius, at(4096).rel_frobenius);
}

TEST(Tolerance, OrderedByPrecisionOfTheArithmetic) {
    const double u64 = tolerance_for(GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F, 64).unit_roundoff;
    const double u32 = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 64).unit_roundoff;
    const double tf32 = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, 64).unit_roundoff;
    const double f16 = tolerance_for(GEMMKIT_R_16F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 64).unit_roundoff;
    const double bf16 = tolerance_for(GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 64).unit_roundoff;
    EXPECT_LT(u64, u32);
    EXPECT_LT(u32, tf32);
    // The reference reads the same rounded inputs, so only the FP32 accumulation differs:
    // all three tensor-core kinds share one u.
    EXPECT_EQ(f16, tf32);
    EXPECT_EQ(bf16, tf32);
}

// Expected values written out from the formula: u, u_out, factor 4, 8 u (sqrt(k) + 1) + u_out.
void expect_tolerance(const Tolerance& t, double u, double u_out, int64_t k) {
    EXPECT_EQ(t.unit_roundoff, u) << k;
    EXPECT_EQ(t.output_roundoff, u_out) << k;
    EXPECT_EQ(t.output_min_normal, u_out == 0x1.0p-11 ? 0x1.0p-14 : u_out == 0x1.0p-8 ? 0x1.0p-126 : 0.0) << k;
    EXPECT_EQ(t.elem_factor, 4.0) << k;
    EXPECT_DOUBLE_EQ(t.rel_frobenius, 8.0 * u * (std::sqrt(static_cast<double>(k)) + 1.0) + u_out) << k;
}

TEST(Tolerance, Fp32FollowsTheFormula) {
    for (int64_t k : {1, 257, 4096})
        expect_tolerance(tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, k), 0x1.0p-24, 0.0, k);
}

// TF32 tensor cores: the reference rounds A and B to TF32 too, so u is the FP32 accumulation's,
// with room for adders that truncate (2^-22); C stays FP32 (no output rounding term).
TEST(Tolerance, Tf32FollowsTheFormula) {
    for (int64_t k : {1, 64, 4096}) {
        const Tolerance t = tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, k);
        expect_tolerance(t, 0x1.0p-22, 0.0, k);
        EXPECT_LT(t.rel_frobenius, 1e-3) << k;  // DESIGN.md: TF32 ~1e-3, and well under it here
    }
}

TEST(Tolerance, Fp64FollowsTheFormula) {
    for (int64_t k : {1, 64, 4096})
        expect_tolerance(tolerance_for(GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F, k), 0x1.0p-52, 0.0, k);
}

TEST(Tolerance, HalfOperandsAddTheRoundingOfTheirOutputType) {
    const int64_t k = 257;
    const auto t = [&](gemmkit_dtype ab, gemmkit_dtype c) { return tolerance_for(ab, c, GEMMKIT_COMPUTE_32F, k); };
    expect_tolerance(t(GEMMKIT_R_16F, GEMMKIT_R_16F), 0x1.0p-22, 0x1.0p-11, k);
    expect_tolerance(t(GEMMKIT_R_16BF, GEMMKIT_R_16BF), 0x1.0p-22, 0x1.0p-8, k);
    expect_tolerance(t(GEMMKIT_R_16F, GEMMKIT_R_32F), 0x1.0p-22, 0.0, k);
    expect_tolerance(t(GEMMKIT_R_16BF, GEMMKIT_R_32F), 0x1.0p-22, 0.0, k);
}

// The three-argument form is all three types the same.
TEST(Tolerance, OneTypeFormMeansABAndCOfThatType) {
    const Tolerance one = tolerance_for(GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, 33);
    const Tolerance all = tolerance_for(GEMMKIT_R_16BF, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, 33);
    EXPECT_EQ(one.rel_frobenius, all.rel_frobenius);
    EXPECT_EQ(one.output_roundoff, all.output_roundoff);
}

// Elementwise: E + u_out (|ref| + E), with E the accumulation's bound; here E = 20 u at scale 1.
TEST(Compare, OutputRoundingWidensTheBoundByUOutTimesRefPlusE) {
    Fixture f;
    const Tolerance tol{1.0, 0x1.0p-24, 4.0, 0x1.0p-8};
    const double e = f.bound();
    const double x = f.ref[4];
    const double bound = e + 0x1.0p-8 * (x + e);
    std::vector<double> out = f.ref;
    out[4] = x + 0.99 * bound;
    EXPECT_TRUE(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol).pass);
    out[4] = x - 1.01 * bound;
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol);
    EXPECT_FALSE(r.pass);
    EXPECT_NEAR(r.worst_ratio, 1.01, 1e-6);
}

// Output types of 16 bits: the reference rounded to them passes; an error of two units in
// the last place fails (values near 1, where u_out |ref| is less than one ulp).
template <class T>
struct HalfOutput : ::testing::Test {};
using HalfTypes = ::testing::Types<__half, __nv_bfloat16>;
TYPED_TEST_SUITE(HalfOutput, HalfTypes);

template <class T>
gemmkit_dtype dtype_of() {
    return std::is_same_v<T, __half> ? GEMMKIT_R_16F : GEMMKIT_R_16BF;
}

template <class T>
T round_to(double x) {
    if constexpr (std::is_same_v<T, __half>) return __double2half(x);
    else return __double2bfloat16(x);
}

// x moved by `ulps` units in the last place, away from zero for positive counts (x > 0).
template <class T>
T add_ulps(T x, int ulps) {
    using Raw = std::conditional_t<std::is_same_v<T, __half>, __half_raw, __nv_bfloat16_raw>;
    Raw raw = x;
    raw.x = static_cast<unsigned short>(raw.x + ulps);
    return T(raw);
}

TYPED_TEST(HalfOutput, ReferenceRoundedToTheOutputTypePasses) {
    Fixture f;
    std::vector<TypeParam> out;
    for (double x : f.ref) out.push_back(round_to<TypeParam>(x));
    const auto tol = tolerance_for(dtype_of<TypeParam>(), dtype_of<TypeParam>(), GEMMKIT_COMPUTE_32F, f.k);
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol);
    EXPECT_TRUE(r.pass) << gemmkit::verify::describe(r);
    EXPECT_GT(r.rel_frobenius, 0.0);  // the rounding is really there
}

TYPED_TEST(HalfOutput, TwoUlpsOffFails) {
    Fixture f;
    std::vector<TypeParam> out;
    for (double x : f.ref) out.push_back(round_to<TypeParam>(x));
    for (int ulps : {2, -2, 3}) {
        std::vector<TypeParam> bad = out;
        bad[3 + 2 * f.m] = add_ulps(bad[3 + 2 * f.m], ulps);
        const auto tol = tolerance_for(dtype_of<TypeParam>(), dtype_of<TypeParam>(), GEMMKIT_COMPUTE_32F, f.k);
        const CompareResult r = compare(bad.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol);
        EXPECT_FALSE(r.pass) << ulps;
        EXPECT_EQ(r.bad_elements, 1) << ulps;
        EXPECT_EQ(r.first_bad_row, 3) << ulps;
        EXPECT_EQ(r.first_bad_col, 2) << ulps;
    }
}

// The same values in FP32 output (C = f32 with 16-bit operands) have no rounding allowance:
// the 16-bit rounding error is far over the FP32-accumulation bound.
TYPED_TEST(HalfOutput, RoundingIsNotAllowedWhenTheOutputIsFp32) {
    Fixture f;
    std::vector<float> out;
    for (double x : f.ref) out.push_back(gemmkit::verify::to_double(round_to<TypeParam>(x)));
    const auto tol = tolerance_for(dtype_of<TypeParam>(), GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, f.k);
    EXPECT_FALSE(compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol).pass);
}

// Below FP16's smallest normal (2^-14) rounding is absolute: half the subnormal spacing,
// 2^-25, however small the value. A product that small must still pass once rounded.
TEST(Compare, SubnormalHalfOutputRoundedFromReferencePasses) {
    const int64_t k = 1;
    const std::vector<double> ref = {1e-6, -3e-7, 5e-5, 0x1.0p-24 * 0.75};
    const std::vector<double> scale = {1e-6, 3e-7, 5e-5, 0x1.0p-24 * 0.75};  // k = 1: scale = |ref|
    std::vector<__half> out;
    for (double x : ref) out.push_back(__double2half(x));
    const auto tol = tolerance_for(GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, k);
    EXPECT_EQ(tol.output_min_normal, 0x1.0p-14);
    const CompareResult r = compare(out.data(), 4, ref.data(), scale.data(), 4, 1, k, tol);
    EXPECT_TRUE(r.pass) << gemmkit::verify::describe(r);
    // One subnormal step (2^-24) off is more than the half step rounding allows.
    std::vector<__half> bad = out;
    bad[0] = add_ulps(bad[0], 1);
    EXPECT_FALSE(compare(bad.data(), 4, ref.data(), scale.data(), 4, 1, k, tol).pass);
}

TYPED_TEST(HalfOutput, NaNNeverPasses) {
    Fixture f;
    std::vector<TypeParam> out;
    for (double x : f.ref) out.push_back(round_to<TypeParam>(x));
    out[7] = round_to<TypeParam>(kNaN);
    const auto tol = tolerance_for(dtype_of<TypeParam>(), dtype_of<TypeParam>(), GEMMKIT_COMPUTE_32F, f.k);
    const CompareResult r = compare(out.data(), f.m, f.ref.data(), f.scale.data(), f.m, f.n, f.k, tol);
    EXPECT_FALSE(r.pass);
    EXPECT_EQ(r.bad_elements, 1);
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
