// verify/dtypes.hpp: the conversions every reference is built on. TF32 rounding must match
// PTX cvt.rn.tf32.f32 bit for bit (nearest, ties to even), and truncation what wgmma
// reads, or the reference and the tensor cores would read different A and B.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "problem.hpp"
#include "verify/dtypes.hpp"
#include "verify/matrix_init.hpp"

namespace {

using gemmkit::verify::from_double;
using gemmkit::verify::round_to_tf32;
using gemmkit::verify::to_double;

uint32_t bits_of(float x) {
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

TEST(RoundToTf32, KeepsValuesWithTenMantissaBits) {
    for (float x : {0.0f, -0.0f, 1.0f, -2.5f, 1.0f + 0x1.0p-10f, 0x1.ffcp+100f})
        EXPECT_EQ(bits_of(round_to_tf32(x)), bits_of(x)) << x;
}

// 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the neighbour whose last kept bit
// is even (1), as cvt.rn does; 1 + 2^-10 + 2^-11 lies halfway between two whose even one is above.
TEST(RoundToTf32, TiesGoToEven) {
    EXPECT_EQ(round_to_tf32(1.0f + 0x1.0p-11f), 1.0f);
    EXPECT_EQ(round_to_tf32(-(1.0f + 0x1.0p-11f)), -1.0f);
    EXPECT_EQ(round_to_tf32(1.0f + 0x1.0p-10f + 0x1.0p-11f), 1.0f + 0x1.0p-9f);
    EXPECT_EQ(round_to_tf32(-(1.0f + 0x1.0p-10f + 0x1.0p-11f)), -(1.0f + 0x1.0p-9f));
}

TEST(RoundToTf32, RoundsToNearestOffTies) {
    EXPECT_EQ(round_to_tf32(1.0f + 0x1.0p-11f - 0x1.0p-23f), 1.0f);
    EXPECT_EQ(round_to_tf32(1.0f + 0x1.0p-11f + 0x1.0p-23f), 1.0f + 0x1.0p-10f);
    EXPECT_EQ(round_to_tf32(-(1.0f + 0x1.0p-12f)), -1.0f);
}

TEST(RoundToTf32, CarriesIntoTheExponent) { EXPECT_EQ(round_to_tf32(2.0f - 0x1.0p-23f), 2.0f); }

TEST(RoundToTf32, InfinityAndNaNPassUnchanged) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(round_to_tf32(inf), inf);
    EXPECT_EQ(round_to_tf32(-inf), -inf);
    EXPECT_TRUE(std::isnan(round_to_tf32(std::numeric_limits<float>::quiet_NaN())));
}

// Over many generator values: the low 13 bits are cleared and the error is at most half a
// TF32 ulp, i.e. 2^-11 relative.
TEST(RoundToTf32, ClearsThirteenBitsWithinHalfAnUlp) {
    for (int64_t i = 0; i < 10000; ++i) {
        const float x = static_cast<float>(gemmkit::verify::uniform_value(11, i));
        const float r = round_to_tf32(x);
        ASSERT_EQ(bits_of(r) & 0x1FFFu, 0u) << x;
        ASSERT_LE(std::fabs(static_cast<double>(r) - x), std::ldexp(std::fabs(static_cast<double>(x)), -11)) << x;
    }
}

// What wgmma reads of an FP32 word: the 13 low bits dropped, toward zero, never up.
TEST(TruncateToTf32, DropsThirteenBitsTowardZero) {
    EXPECT_EQ(gemmkit::verify::truncate_to_tf32(1.0f + 0x1.0p-11f + 0x1.0p-12f), 1.0f);
    EXPECT_EQ(gemmkit::verify::truncate_to_tf32(-(2.0f - 0x1.0p-23f)), -(2.0f - 0x1.0p-10f));
    EXPECT_EQ(gemmkit::verify::truncate_to_tf32(1.0f + 0x1.0p-10f), 1.0f + 0x1.0p-10f);
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(gemmkit::verify::truncate_to_tf32(-inf), -inf);
    // A NaN whose payload sits in the dropped bits must stay a NaN, not become infinity.
    uint32_t nan_bits = 0x7F800001u;
    float nan;
    std::memcpy(&nan, &nan_bits, sizeof nan);
    EXPECT_TRUE(std::isnan(gemmkit::verify::truncate_to_tf32(nan)));
}

TEST(ToTf32, FollowsTheKernelsWay) {
    using gemmkit::verify::Tf32Inputs;
    using gemmkit::verify::to_tf32;
    const float x = 1.0f + 0x1.0p-11f + 0x1.0p-12f;  // above the tie: nearest goes up
    EXPECT_EQ(to_tf32(x, Tf32Inputs::exact), x);
    EXPECT_EQ(to_tf32(x, Tf32Inputs::rounded), 1.0f + 0x1.0p-10f);
    EXPECT_EQ(to_tf32(x, Tf32Inputs::truncated), 1.0f);
}

// Ties go to even; just above a tie goes up, which rounding through float first would lose
// (2^-40 does not survive in float, leaving the tie, which rounds down).
TEST(FromDouble, RoundsToNearestEvenInOneStep) {
    EXPECT_EQ(to_double(from_double<__half>(1.0 + 0x1.0p-11)), 1.0);
    EXPECT_EQ(to_double(from_double<__half>(1.0 + 0x1.0p-11 + 0x1.0p-40)), 1.0 + 0x1.0p-10);
    EXPECT_EQ(to_double(from_double<__nv_bfloat16>(1.0 + 0x1.0p-8)), 1.0);
    EXPECT_EQ(to_double(from_double<__nv_bfloat16>(1.0 + 0x1.0p-8 + 0x1.0p-40)), 1.0 + 0x1.0p-7);
    EXPECT_EQ(from_double<float>(0.1), 0.1f);
    EXPECT_EQ(from_double<double>(0.1), 0.1);
}

TEST(ToDouble, IsExactForSixteenBitTypes) {
    EXPECT_EQ(to_double(from_double<__half>(0.1)), 0.0999755859375);           // 1638 / 16384
    EXPECT_EQ(to_double(from_double<__nv_bfloat16>(0.1)), 0.10009765625);      // 205 / 2048
    EXPECT_EQ(to_double(from_double<__half>(65504.0)), 65504.0);               // FP16's largest
    EXPECT_EQ(to_double(from_double<__half>(0x1.0p-24)), 0x1.0p-24);          // its smallest subnormal
}

TEST(VisitDtype, GivesTheTypeOfEachSize) {
    for (gemmkit_dtype t : {GEMMKIT_R_32F, GEMMKIT_R_64F, GEMMKIT_R_16F, GEMMKIT_R_16BF}) {
        const size_t size = gemmkit::verify::visit_dtype(t, []<class T>(std::type_identity<T>) { return sizeof(T); });
        EXPECT_EQ(size, gemmkit::dtype_size(t)) << gemmkit::dtype_name(t);
    }
    EXPECT_TRUE(gemmkit::verify::visit_dtype(GEMMKIT_R_16BF, []<class T>(std::type_identity<T>) {
        return std::is_same_v<T, __nv_bfloat16>;
    }));
}

TEST(VisitDtype, UnknownTypeThrows) {
    EXPECT_THROW(gemmkit::verify::visit_dtype(static_cast<gemmkit_dtype>(7), [](auto) { return 0; }),
                 std::invalid_argument);
}

}  // namespace
