// When the Hopper kernels may use TMA (host-side decisions; the copies themselves are GPU-tested).
#include <gtest/gtest.h>

#include "kernels/hopper/tensor_map.hpp"
#include "problem.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::Problem;
using gemmkit::hopper::tma_addressable;
using gemmkit::hopper::tma_reads_operands;
using gemmkit::hopper::tma_writes_c;
using gemmkit::test::fake_ptr;

// A 64 x 32 x 16 BF16 NN problem whose operands TMA can read and whose C it can write.
Problem aligned_bf16() {
    Problem p;
    p.m = 64, p.n = 32, p.k = 16;
    p.a_type = p.b_type = p.c_type = GEMMKIT_R_16BF;
    p.A = fake_ptr<const void>(0x10000);
    p.B = fake_ptr<const void>(0x20000);
    p.C = fake_ptr<void>(0x30000);
    p.lda = 64, p.ldb = 16, p.ldc = 64;
    return p;
}

TEST(HopperTma, AddressableNeedsAlignedBaseAndLeadingDimension) {
    EXPECT_TRUE(tma_addressable(fake_ptr<const void>(0x1000), 8, GEMMKIT_R_16BF));  // 16-byte columns
    EXPECT_FALSE(tma_addressable(fake_ptr<const void>(0x1008), 8, GEMMKIT_R_16BF));  // base 8-byte aligned
    EXPECT_FALSE(tma_addressable(fake_ptr<const void>(0x1000), 4097, GEMMKIT_R_16BF));  // 8194-byte columns
    EXPECT_TRUE(tma_addressable(fake_ptr<const void>(0x1000), 4, GEMMKIT_R_32F));
    EXPECT_FALSE(tma_addressable(fake_ptr<const void>(0x1000), 6, GEMMKIT_R_32F));
}

TEST(HopperTma, ReadsOperandsOnlyWhenBothAreAddressable) {
    Problem p = aligned_bf16();
    EXPECT_TRUE(tma_reads_operands(p));
    p.lda = 65;
    EXPECT_FALSE(tma_reads_operands(p));
    p = aligned_bf16();
    p.B = fake_ptr<const void>(0x20002);
    EXPECT_FALSE(tma_reads_operands(p));
}

// An A whose columns start on odd multiples of 16 bytes is copied on large enough problems
// (copies_pay_for_a); B only where TMA cannot read it.
TEST(HopperTma, CopiesAnAOfOdd16ByteColumnsOnLargeProblems) {
    using gemmkit::hopper::kCopyAMinBytes;
    using gemmkit::hopper::kCopyAMinN;
    using gemmkit::hopper::operand_copies;
    Problem p = aligned_bf16();
    p.m = p.n = p.k = p.lda = p.ldb = p.ldc = 10040;  // 20080-byte columns: 16 past a 32-byte boundary
    EXPECT_TRUE(operand_copies(p).a);  // A of 202 MB
    EXPECT_FALSE(operand_copies(p).b);  // B reads as slowly, but its copy did not pay
    p.lda = 10048;  // 20096 bytes: on 32-byte boundaries
    EXPECT_FALSE(operand_copies(p).any());
    p.A = fake_ptr<const void>(0x10010);  // ...but the base 16 bytes into a sector
    EXPECT_TRUE(operand_copies(p).a);
    p.A = fake_ptr<const void>(0x10000), p.lda = 8200;  // 8200^3: 16400-byte columns, A of 134 MB
    p.m = p.n = p.k = 8200;
    EXPECT_FALSE(operand_copies(p).a);  // the GEMM on A as it is measured faster
    p.m = p.k = p.lda = 9208;  // A of 170 MB: still faster as it is (2%)
    EXPECT_FALSE(operand_copies(p).a);
    p.m = p.k = 10040, p.lda = 10040;  // A of 202 MB
    EXPECT_TRUE(operand_copies(p).a);
    p.n = kCopyAMinN - 1;  // too few columns of C for one pass over A to pay
    EXPECT_FALSE(operand_copies(p).a);
    p.n = kCopyAMinN, p.m = 1024, p.k = kCopyAMinBytes / 2 / 1024 - 1;  // one column short of the bytes
    EXPECT_FALSE(operand_copies(p).a);
    p.k += 1;
    EXPECT_TRUE(operand_copies(p).a);
    p.a_type = p.b_type = p.c_type = GEMMKIT_R_32F;  // FP32 (TF32): the bytes count, not the elements
    p.m = p.k = 7100, p.lda = 7104;  // 28416-byte columns, on 32 bytes
    EXPECT_FALSE(operand_copies(p).a);
    p.lda = 7100;  // 28400 bytes; A of 202 MB
    EXPECT_TRUE(operand_copies(p).a);
    p.m = 6500;  // 185 MB
    EXPECT_FALSE(operand_copies(p).a);
    p = aligned_bf16();
    p.lda = 4097;  // TMA cannot read it at all: copied at any size
    EXPECT_TRUE(operand_copies(p).a);
    p.ldb = 4097;
    EXPECT_TRUE(operand_copies(p).b);
}

// Tensor maps promote L2 fetches to 256 bytes only where every column starts on a 128-byte line.
TEST(HopperTma, KnowsColumnsOn128ByteLines) {
    using gemmkit::hopper::on_128_byte_columns;
    EXPECT_TRUE(on_128_byte_columns(fake_ptr<const void>(0x10000), 4096, GEMMKIT_R_16BF));   // 8192 bytes
    EXPECT_TRUE(on_128_byte_columns(fake_ptr<const void>(0x10080), 64, GEMMKIT_R_16F));      // 128 bytes
    EXPECT_TRUE(on_128_byte_columns(fake_ptr<const void>(0x10000), 4128, GEMMKIT_R_32F));    // 16512 bytes
    EXPECT_FALSE(on_128_byte_columns(fake_ptr<const void>(0x10000), 6000, GEMMKIT_R_16F));   // 12000 bytes
    EXPECT_FALSE(on_128_byte_columns(fake_ptr<const void>(0x10000), 4100, GEMMKIT_R_32F));   // 16400 bytes
    EXPECT_FALSE(on_128_byte_columns(fake_ptr<const void>(0x10040), 4096, GEMMKIT_R_16BF));  // base off a line
}

TEST(HopperTma, WritesCOnlyFor16BitOrFp32UnreadWholeChunkColumns) {
    Problem p = aligned_bf16();
    EXPECT_TRUE(tma_writes_c(p));
    p.beta = 0.5;  // C must be read: the register epilogue does that
    EXPECT_FALSE(tma_writes_c(p));
    p = aligned_bf16();
    p.m = 60, p.lda = 64;  // columns of 120 bytes: TMA would write past m
    EXPECT_FALSE(tma_writes_c(p));
    p = aligned_bf16();
    p.c_type = GEMMKIT_R_32F;  // FP32 C is staged in 64 x 32 pieces
    EXPECT_TRUE(tma_writes_c(p));
    p.m = 60, p.lda = 64;  // 240-byte FP32 columns: whole 16-byte chunks
    EXPECT_TRUE(tma_writes_c(p));
    p.m = 62;  // 248 bytes: TMA would write past m
    EXPECT_FALSE(tma_writes_c(p));
    p = aligned_bf16();
    p.c_type = GEMMKIT_R_64F;  // no staging layout for 8-byte C
    EXPECT_FALSE(tma_writes_c(p));
    p = aligned_bf16();
    p.ldc = 68;  // 136-byte columns: not 16-byte aligned
    EXPECT_FALSE(tma_writes_c(p));
}

}  // namespace
