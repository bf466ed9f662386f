// Which of C's last rows and columns the Hopper launcher peels off a TF32 GEMM whose operands
// it copies (the copies and strips themselves are GPU-tested: kPeelShapes).
#include <gtest/gtest.h>

#include "kernels/hopper/peeled_edges.hpp"
#include "problem.hpp"

namespace {

using gemmkit::Problem;
using gemmkit::hopper::plan_edge_peel;

// FP32 A, B and C (the TF32 rows' problems).
Problem shape(int64_t m, int64_t n, int64_t k) {
    Problem p;
    p.m = m, p.n = n, p.k = k;
    p.a_type = p.b_type = p.c_type = GEMMKIT_R_32F;
    p.compute = GEMMKIT_COMPUTE_32F_FAST_TF32;
    return p;
}

constexpr int64_t kSms = 132;  // the launcher asks for as many 256 x 256 tiles as SMs

TEST(PeeledEdges, PeelsOneToFourPastAWholeTileWhereTheOtherOperandIsCopied) {
    const auto peel = plan_edge_peel(shape(4097, 4097, 4097), true, true, kSms);
    EXPECT_EQ(peel.rows, 1);
    EXPECT_EQ(peel.cols, 1);
    EXPECT_TRUE(peel.any());
    const auto four = plan_edge_peel(shape(4100, 3076, 64), true, true, kSms);
    EXPECT_EQ(four.rows, 4);
    EXPECT_EQ(four.cols, 4);
}

TEST(PeeledEdges, RowsNeedBsCopyAndColumnsNeedAs) {
    // C's last rows are formed while B is copied, its last columns while A is.
    EXPECT_EQ(plan_edge_peel(shape(4097, 4097, 64), true, false, kSms).rows, 0);
    EXPECT_EQ(plan_edge_peel(shape(4097, 4097, 64), true, false, kSms).cols, 1);
    EXPECT_EQ(plan_edge_peel(shape(4097, 4097, 64), false, true, kSms).rows, 1);
    EXPECT_EQ(plan_edge_peel(shape(4097, 4097, 64), false, true, kSms).cols, 0);
    EXPECT_FALSE(plan_edge_peel(shape(4097, 4097, 64), false, false, kSms).any());
}

TEST(PeeledEdges, LeavesWideRemaindersAndAlignedSizesToTheGemm) {
    EXPECT_FALSE(plan_edge_peel(shape(4101, 4101, 64), true, true, kSms).any());  // 5 past
    EXPECT_FALSE(plan_edge_peel(shape(4095, 4095, 64), true, true, kSms).any());  // 255 past
    EXPECT_FALSE(plan_edge_peel(shape(4096, 4096, 64), true, true, kSms).any());  // none past
}

TEST(PeeledEdges, OnlyWhereTheRestHasTwoRoundsOfTiles) {
    // 2049^3: 8 x 8 = 64 tiles left, one round: the peel lost there. 3073^3: 144 tiles.
    EXPECT_FALSE(plan_edge_peel(shape(2049, 2049, 2049), true, true, kSms).any());
    EXPECT_TRUE(plan_edge_peel(shape(3073, 3073, 3073), true, true, kSms).any());
    // The count is of the rest of C: 12 x 11 = 132 with 2817 columns, 12 x 12 with 2818.
    EXPECT_TRUE(plan_edge_peel(shape(3073, 2817, 64), true, true, kSms).any());
    EXPECT_EQ(plan_edge_peel(shape(3073, 2817, 64), true, true, kSms).cols, 1);
    EXPECT_FALSE(plan_edge_peel(shape(3073, 2561, 64), true, true, kSms).any());  // 12 x 10
    // Without a minimum (the GPU tests' small shapes run it through the launcher with 132),
    // anything past 256 with a row or column left.
    EXPECT_TRUE(plan_edge_peel(shape(257, 258, 64), true, true, 1).any());
    EXPECT_FALSE(plan_edge_peel(shape(3, 2, 64), true, true, 1).any());  // nothing left to the GEMM
}

TEST(PeeledEdges, OnlyForFp32Operands) {
    // FP16/BF16: the copies cost about what the GEMM saves (docs/ladder.md).
    for (const gemmkit_dtype t : {GEMMKIT_R_16F, GEMMKIT_R_16BF}) {
        Problem p = shape(4097, 4097, 4097);
        p.a_type = p.b_type = p.c_type = t;
        p.compute = GEMMKIT_COMPUTE_32F;
        EXPECT_FALSE(plan_edge_peel(p, true, true, kSms).any()) << gemmkit::dtype_name(t);
    }
}

TEST(PeeledEdges, NothingWhereAAndBAreNotRead) {
    Problem p = shape(4097, 4097, 4097);
    p.alpha = 0.0;
    EXPECT_FALSE(plan_edge_peel(p, true, true, kSms).any());
    EXPECT_FALSE(plan_edge_peel(shape(4097, 4097, 0), true, true, kSms).any());
}

}  // namespace
