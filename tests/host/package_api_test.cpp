// What issue 40 asked of the API, checked without a device: the version a program can read,
// NOT_SUPPORTED (not CUDA_ERROR) for a type combination nothing serves, and gemm_row_major
// naming its own arguments (it passes B as the C API's A, so the C API's names are swapped).
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "gemmkit/gemmkit.h"
#include "gemmkit/gemmkit.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::test::contains;
using gemmkit::test::fake_ptr;

TEST(Version, LibraryAndHeaderAgree) {
    EXPECT_EQ(gemmkit_version(), GEMMKIT_VERSION);
    EXPECT_EQ(GEMMKIT_VERSION, GEMMKIT_VERSION_MAJOR * 10000 + GEMMKIT_VERSION_MINOR * 100 + GEMMKIT_VERSION_PATCH);
}

gemmkit_status call_types(gemmkit_dtype a, gemmkit_dtype b, gemmkit_dtype c, gemmkit_compute compute) {
    const double one = 1.0, zero = 0.0;  // read as float or double by compute type; both are fine
    const float onef = 1.0f, zerof = 0.0f;
    const bool f64 = compute == GEMMKIT_COMPUTE_64F;
    return gemmkit_gemm_ex(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 3, 2, f64 ? static_cast<const void*>(&one) : &onef,
                           fake_ptr<const void>(0x1000), a, 4, fake_ptr<const void>(0x2000), b, 2,
                           f64 ? static_cast<const void*>(&zero) : &zerof, fake_ptr<void>(0x3000), c, 4, compute,
                           nullptr);
}

// Before the fix these asked for the device first, and a machine without one got CUDA_ERROR.
TEST(TypeCombinations, UnservedIsNotSupportedBeforeAnyDeviceWork) {
    EXPECT_EQ(call_types(GEMMKIT_R_16F, GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F), GEMMKIT_NOT_SUPPORTED);
    EXPECT_TRUE(contains(gemmkit_last_error(), "no kernel serves A/B/C = f16/f32/f32")) << gemmkit_last_error();
    EXPECT_EQ(call_types(GEMMKIT_R_16F, GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F), GEMMKIT_NOT_SUPPORTED);
    EXPECT_EQ(call_types(GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_32F), GEMMKIT_NOT_SUPPORTED);
    EXPECT_EQ(call_types(GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F_FAST_TF32),
              GEMMKIT_NOT_SUPPORTED);
}

// Every throw below happens before the C API touches a pointer: the helper's own checks, or
// the C API's argument checks.
std::string row_major_error(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                            const float* B, int64_t ldb, int64_t ldc) {
    try {
        gemmkit::gemm_row_major(nullptr, ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, fake_ptr<float>(0x3000), ldc);
    } catch (const gemmkit::Error& e) {
        EXPECT_EQ(e.status(), GEMMKIT_INVALID_VALUE);
        return e.what();
    }
    ADD_FAILURE() << "gemm_row_major did not throw";
    return "";
}

const float* const kA = fake_ptr<const float>(0x1000);
const float* const kB = fake_ptr<const float>(0x2000);

// Row-major A (M x K) has rows of K, B (K x N) rows of N, C rows of N.
TEST(GemmRowMajor, NamesABadLdaAsLda) {
    const std::string msg = row_major_error(false, false, 5, 6, 7, kA, 6, kB, 6, 6);
    EXPECT_TRUE(contains(msg, "lda = 6 is less than max(1, 7)")) << msg;
}

TEST(GemmRowMajor, NamesABadLdbAsLdb) {
    const std::string msg = row_major_error(false, false, 5, 6, 7, kA, 7, kB, 5, 6);
    EXPECT_TRUE(contains(msg, "ldb = 5 is less than max(1, 6)")) << msg;
}

TEST(GemmRowMajor, TransposedOperandsHaveRowsOfTheOtherLength) {
    // trans_a: A is stored K x M, rows of M; trans_b: B is stored N x K, rows of K.
    EXPECT_TRUE(contains(row_major_error(true, false, 5, 6, 7, kA, 4, kB, 6, 6), "lda = 4 is less than max(1, 5)"));
    EXPECT_TRUE(contains(row_major_error(false, true, 5, 6, 7, kA, 7, kB, 6, 6), "ldb = 6 is less than max(1, 7)"));
}

TEST(GemmRowMajor, NamesABadLdc) {
    const std::string msg = row_major_error(false, false, 5, 6, 7, kA, 7, kB, 6, 5);
    EXPECT_TRUE(contains(msg, "ldc = 5 is less than max(1, 6)")) << msg;
}

TEST(GemmRowMajor, NamesNegativeSizesByItsOwnNames) {
    EXPECT_TRUE(contains(row_major_error(false, false, -1, 6, 7, kA, 7, kB, 6, 6), "M = -1 is negative"));
    EXPECT_TRUE(contains(row_major_error(false, false, 5, -2, 7, kA, 7, kB, 6, 6), "N = -2 is negative"));
}

TEST(GemmRowMajor, NamesANullAAsA) {
    const std::string msg = row_major_error(false, false, 5, 6, 7, nullptr, 7, kB, 6, 6);
    EXPECT_TRUE(contains(msg, "A is NULL")) << msg;
    EXPECT_FALSE(contains(msg, "B is NULL")) << msg;
}

}  // namespace
