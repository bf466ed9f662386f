// gemmkit::validate at its boundaries: what the C API tests cannot reach without a device
// (a valid call goes on to the GPU), checked on the Problem directly.
#include <cstdint>

#include <gtest/gtest.h>

#include "problem.hpp"
#include "test_util.hpp"
#include "validate.hpp"

namespace {

using gemmkit::Problem;
using gemmkit::validate;
using gemmkit::test::fake_ptr;

// A valid 5 x 3 x 7 NN FP32 problem with every leading dimension at its minimum.
Problem minimal() {
    Problem p;
    p.m = 5, p.n = 3, p.k = 7;
    p.A = fake_ptr<const float>(0x1000);
    p.B = fake_ptr<const float>(0x2000);
    p.C = fake_ptr<float>(0x3000);
    p.lda = 5, p.ldb = 7, p.ldc = 5;
    p.alpha = 1.0, p.beta = 0.0;
    return p;
}

gemmkit_status check(const Problem& p) { return validate(p, false, false); }

TEST(Validate, AcceptsLeadingDimensionsAtTheirMinimumForNN) { EXPECT_EQ(check(minimal()), GEMMKIT_SUCCESS); }

TEST(Validate, AcceptsLdaEqualToKForTransaT) {
    Problem p = minimal();
    p.transa = GEMMKIT_OP_T;
    // A is stored k x m = 7 x 5: the minimal NN lda of 5 is now too small.
    EXPECT_EQ(check(p), GEMMKIT_INVALID_VALUE);
    p.lda = p.k;
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
    p.lda = p.k - 1;
    EXPECT_EQ(check(p), GEMMKIT_INVALID_VALUE);
}

TEST(Validate, AcceptsLdaOfKBelowMForTransaT) {
    Problem p = minimal();
    p.transa = GEMMKIT_OP_T;
    p.m = 9, p.ldc = 9;
    p.lda = p.k;  // 7 < m = 9: fine, A is stored k x m
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
}

TEST(Validate, AcceptsLdbEqualToNForTransbT) {
    Problem p = minimal();
    p.transb = GEMMKIT_OP_T;
    p.ldb = p.n;  // 3 < k = 7: fine, B is stored n x k
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
    p.ldb = p.n - 1;
    EXPECT_EQ(check(p), GEMMKIT_INVALID_VALUE);
}

TEST(Validate, LeadingDimensionOneIsEnoughForEmptyMatrices) {
    Problem p = minimal();
    p.m = 0, p.k = 0;
    p.lda = 1, p.ldb = 1, p.ldc = 1;
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
}

TEST(Validate, NullAAndBAcceptedWhenKIsZero) {
    Problem p = minimal();
    p.k = 0, p.ldb = 1;
    p.A = nullptr, p.B = nullptr;
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
}

TEST(Validate, NullAAndBAcceptedWhenAlphaIsZero) {
    Problem p = minimal();
    p.alpha = 0.0;
    p.A = nullptr, p.B = nullptr;
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
}

TEST(Validate, NullCAcceptedWhenNIsZero) {
    Problem p = minimal();
    p.n = 0;
    p.C = nullptr;
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
}

TEST(Validate, NullAlphaOrBetaFlagRejected) {
    EXPECT_EQ(validate(minimal(), true, false), GEMMKIT_INVALID_VALUE);
    EXPECT_EQ(validate(minimal(), false, true), GEMMKIT_INVALID_VALUE);
}

// Half-precision arrays only need 2-byte alignment, but not 1.
TEST(Validate, HalfPointersNeedTwoByteAlignment) {
    Problem p = minimal();
    p.a_type = p.b_type = p.c_type = GEMMKIT_R_16F;
    p.A = fake_ptr<const void>(0x1002);
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
    p.A = fake_ptr<const void>(0x1001);
    EXPECT_EQ(check(p), GEMMKIT_INVALID_VALUE);
}

TEST(Validate, DoublePointersNeedEightByteAlignment) {
    Problem p = minimal();
    p.a_type = p.b_type = p.c_type = GEMMKIT_R_64F;
    p.compute = GEMMKIT_COMPUTE_64F;
    p.C = fake_ptr<void>(0x3008);
    EXPECT_EQ(check(p), GEMMKIT_SUCCESS);
    p.C = fake_ptr<void>(0x3004);
    EXPECT_EQ(check(p), GEMMKIT_INVALID_VALUE);
}

TEST(ProblemHelpers, StoredRowsFollowTheOp) {
    Problem p;
    p.m = 3, p.n = 5, p.k = 11;
    EXPECT_EQ(gemmkit::stored_rows_a(p), 3);
    EXPECT_EQ(gemmkit::stored_rows_b(p), 11);
    p.transa = p.transb = GEMMKIT_OP_T;
    EXPECT_EQ(gemmkit::stored_rows_a(p), 11);
    EXPECT_EQ(gemmkit::stored_rows_b(p), 5);
}

TEST(ProblemHelpers, OpsNameIsOpAThenOpB) {
    EXPECT_STREQ(gemmkit::ops_name(GEMMKIT_OP_N, GEMMKIT_OP_N), "NN");
    EXPECT_STREQ(gemmkit::ops_name(GEMMKIT_OP_N, GEMMKIT_OP_T), "NT");
    EXPECT_STREQ(gemmkit::ops_name(GEMMKIT_OP_T, GEMMKIT_OP_N), "TN");
    EXPECT_STREQ(gemmkit::ops_name(GEMMKIT_OP_T, GEMMKIT_OP_T), "TT");
}

TEST(ProblemHelpers, DtypeSizesAndNames) {
    EXPECT_EQ(gemmkit::dtype_size(GEMMKIT_R_32F), 4u);
    EXPECT_EQ(gemmkit::dtype_size(GEMMKIT_R_64F), 8u);
    EXPECT_EQ(gemmkit::dtype_size(GEMMKIT_R_16F), 2u);
    EXPECT_EQ(gemmkit::dtype_size(GEMMKIT_R_16BF), 2u);
    EXPECT_EQ(gemmkit::dtype_size(static_cast<gemmkit_dtype>(7)), 0u);
    EXPECT_STREQ(gemmkit::dtype_name(GEMMKIT_R_16BF), "bf16");
    EXPECT_STREQ(gemmkit::dtype_name(static_cast<gemmkit_dtype>(7)), "invalid");
}

TEST(ProblemHelpers, ReadsAbOnlyWhenThereIsAProduct) {
    Problem p;
    p.m = 2, p.n = 2, p.k = 2, p.alpha = 1.0;
    EXPECT_TRUE(gemmkit::reads_ab(p));
    p.alpha = 0.0;
    EXPECT_FALSE(gemmkit::reads_ab(p));
    p.alpha = 1.0, p.k = 0;
    EXPECT_FALSE(gemmkit::reads_ab(p));
    p.k = 2, p.m = 0;
    EXPECT_FALSE(gemmkit::reads_ab(p));
}

}  // namespace
