// Occupancy, arithmetic intensity and peak arithmetic: hand-computed cases from the CUDA
// occupancy calculator's rules (cuda_occupancy.h) and NVIDIA's published per-SM rates.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "analysis/device_info.hpp"
#include "analysis/occupancy.hpp"

namespace {

using gemmkit::TileShape;
using gemmkit::analysis::DeviceInfo;
using gemmkit::analysis::Occupancy;
using gemmkit::analysis::SmLimits;
using gemmkit::analysis::theoretical_occupancy;
using gemmkit::analysis::theoretical_peaks;
using gemmkit::analysis::tile_arithmetic_intensity;

SmLimits limits(int sm) {
    SmLimits lim;
    EXPECT_TRUE(gemmkit::analysis::sm_limits_for(sm, &lim)) << sm;
    return lim;
}

TEST(TileIntensity, RegisterBlocked128x128Fp32Is32FlopsPerByte) {
    // 2 * 128 * 128 / ((128 + 128) * 4)
    EXPECT_DOUBLE_EQ(tile_arithmetic_intensity(TileShape{128, 128, 8, 256}, 4), 32.0);
}

TEST(TileIntensity, NoReuseIsOneFmaPerTwoElements) {
    EXPECT_DOUBLE_EQ(tile_arithmetic_intensity(TileShape{1, 1, 1, 1024}, 4), 0.25);
}

TEST(TileIntensity, Square32TileFp32Is8) {
    EXPECT_DOUBLE_EQ(tile_arithmetic_intensity(TileShape{32, 32, 32, 1024}, 4), 8.0);
}

// BK cancels out; halving the element size doubles the intensity.
TEST(TileIntensity, IndependentOfBkAndInverseInElementSize) {
    EXPECT_DOUBLE_EQ(tile_arithmetic_intensity(TileShape{64, 128, 32, 256}, 2),
                     2 * tile_arithmetic_intensity(TileShape{64, 128, 8, 256}, 4));
    // 2 * 64 * 128 / (192 * 8)
    EXPECT_DOUBLE_EQ(tile_arithmetic_intensity(TileShape{64, 128, 16, 256}, 8), 16384.0 / 1536.0);
}

TEST(SmLimits, Hopper) {
    const SmLimits lim = limits(90);
    EXPECT_EQ(lim.sm, 90);
    EXPECT_EQ(lim.regs_per_sm, 65536);
    EXPECT_EQ(lim.reg_alloc_unit, 256);
    EXPECT_EQ(lim.max_warps_per_sm, 64);
    EXPECT_EQ(lim.max_blocks_per_sm, 32);
    EXPECT_EQ(lim.smem_per_sm, 228u * 1024);
    EXPECT_EQ(lim.smem_reserved_per_block, 1024u);
    EXPECT_EQ(lim.smem_alloc_unit, 128u);
}

TEST(SmLimits, VoltaHasNoReservedSharedMemoryAnd256ByteUnits) {
    const SmLimits lim = limits(70);
    EXPECT_EQ(lim.max_warps_per_sm, 64);
    EXPECT_EQ(lim.max_blocks_per_sm, 32);
    EXPECT_EQ(lim.smem_per_sm, 96u * 1024);
    EXPECT_EQ(lim.smem_reserved_per_block, 0u);
    EXPECT_EQ(lim.smem_alloc_unit, 256u);
}

// Turing and consumer Ampere/Ada run fewer warps and blocks per SM than the data-centre parts.
TEST(SmLimits, SmallerArchitecturesHaveFewerWarpsAndBlocks) {
    EXPECT_EQ(limits(75).max_warps_per_sm, 32);
    EXPECT_EQ(limits(75).max_blocks_per_sm, 16);
    EXPECT_EQ(limits(86).max_warps_per_sm, 48);
    EXPECT_EQ(limits(86).max_blocks_per_sm, 16);
    EXPECT_EQ(limits(89).max_warps_per_sm, 48);
    EXPECT_EQ(limits(89).max_blocks_per_sm, 24);
    EXPECT_EQ(limits(80).smem_per_sm, 164u * 1024);
}

TEST(SmLimits, UnknownSmIsFalseAndFallsBackToHopper) {
    SmLimits lim;
    lim.max_warps_per_sm = -1;
    EXPECT_FALSE(gemmkit::analysis::sm_limits_for(12, &lim));
    EXPECT_EQ(lim.max_warps_per_sm, limits(90).max_warps_per_sm);
    EXPECT_EQ(lim.smem_per_sm, limits(90).smem_per_sm);
}

// The seed article's V100 example: 136 registers x 32 = 4352 per warp, 8 warps per block;
// 65536 / 34816 leaves room for one block, 8 of 64 warps.
TEST(Occupancy, V100With136RegistersFitsOneBlock) {
    const Occupancy occ = theoretical_occupancy(limits(70), 256, 136, 0);
    EXPECT_EQ(occ.blocks_per_sm, 1);
    EXPECT_EQ(occ.active_warps, 8);
    EXPECT_DOUBLE_EQ(occ.fraction, 0.125);
    EXPECT_STREQ(occ.limiter, "registers");
}

// 33 registers x 32 = 1056, granted as 1280; 16384 / 1280 = 12 warps per sub-partition,
// 48 per SM, 12 blocks of 4 warps. Without rounding 15 blocks would fit.
TEST(Occupancy, RegistersRoundUpToTheAllocationUnit) {
    const Occupancy occ = theoretical_occupancy(limits(90), 128, 33, 0);
    EXPECT_EQ(occ.blocks_per_sm, 12);
    EXPECT_DOUBLE_EQ(occ.fraction, 0.75);
    EXPECT_STREQ(occ.limiter, "registers");
}

// 128 registers fit 2 blocks of 256 threads; one more register per thread costs a block.
TEST(Occupancy, OneRegisterPast128CostsABlock) {
    EXPECT_EQ(theoretical_occupancy(limits(90), 256, 128, 0).blocks_per_sm, 2);
    EXPECT_EQ(theoretical_occupancy(limits(90), 256, 129, 0).blocks_per_sm, 1);
}

// The register file is four 16384-register banks, one per SM sub-partition, and a warp's
// registers come from one bank (cuda_occupancy.h, cudaOccMaxBlocksPerSMRegsLimit):
// 4352-register warps fit 3 per bank, 12 per SM, not 65536 / 4352 = 15.
TEST(Occupancy, RegistersAreAllocatedPerSubPartition) {
    const Occupancy occ = theoretical_occupancy(limits(70), 32, 136, 0);
    EXPECT_EQ(occ.blocks_per_sm, 12);
    EXPECT_STREQ(occ.limiter, "registers");
}

// 25 warps of 2560 registers use 64000 <= 65536 in total, but a bank holds only 6 such
// warps, so 24 per SM: the block cannot launch.
TEST(Occupancy, BlockThatFitsTheTotalButNotTheBanksGetsZero) {
    const Occupancy occ = theoretical_occupancy(limits(90), 800, 80, 0);
    EXPECT_EQ(occ.blocks_per_sm, 0);
    EXPECT_EQ(occ.fraction, 0.0);
}

// 1024 threads x 65 registers: 2304 per warp x 32 warps = 73728 > 65536.
TEST(Occupancy, BlockNeedingMoreThanTheRegisterFileGetsZero) {
    const Occupancy occ = theoretical_occupancy(limits(90), 1024, 65, 0);
    EXPECT_EQ(occ.blocks_per_sm, 0);
    EXPECT_EQ(occ.active_warps, 0);
    EXPECT_EQ(occ.fraction, 0.0);
}

TEST(Occupancy, MoreThan1024ThreadsIsTooLarge) {
    const Occupancy occ = theoretical_occupancy(limits(90), 2048, 16, 0);
    EXPECT_EQ(occ.blocks_per_sm, 0);
    EXPECT_STREQ(occ.limiter, "too large");
}

TEST(Occupancy, MoreRegistersThanAThreadMayHaveIsTooLarge) {
    const Occupancy occ = theoretical_occupancy(limits(90), 32, 300, 0);
    EXPECT_EQ(occ.blocks_per_sm, 0);
}

// 1024 threads are 32 warps: two blocks fill Hopper's 64 warps.
TEST(Occupancy, TwoFullBlocksReachFullOccupancy) {
    const Occupancy occ = theoretical_occupancy(limits(90), 1024, 32, 0);
    EXPECT_EQ(occ.blocks_per_sm, 2);
    EXPECT_EQ(occ.active_warps, 64);
    EXPECT_DOUBLE_EQ(occ.fraction, 1.0);
}

// With 16 registers the register file would take 4 such blocks; warps stop it at 2.
TEST(Occupancy, ThreadsLimitLargeBlocks) {
    const Occupancy occ = theoretical_occupancy(limits(90), 1024, 16, 0);
    EXPECT_EQ(occ.blocks_per_sm, 2);
    EXPECT_STREQ(occ.limiter, "threads");
}

// Sm_75 has half the warps: a 1024-thread block alone fills it.
TEST(Occupancy, TuringFitsOne1024ThreadBlock) {
    const Occupancy occ = theoretical_occupancy(limits(75), 1024, 16, 0);
    EXPECT_EQ(occ.blocks_per_sm, 1);
    EXPECT_DOUBLE_EQ(occ.fraction, 1.0);
}

// Single-warp blocks with few registers hit the 32-block cap at half occupancy.
TEST(Occupancy, SmallBlocksHitTheBlockLimit) {
    const Occupancy occ = theoretical_occupancy(limits(90), 32, 16, 0);
    EXPECT_EQ(occ.blocks_per_sm, 32);
    EXPECT_DOUBLE_EQ(occ.fraction, 0.5);
    EXPECT_STREQ(occ.limiter, "blocks");
}

// 14465 bytes + 1 KiB reserved = 15489, rounded to 128 = 15616; 233472 / 15616 = 14.
// Without the reserve it would be 16 blocks, without the rounding 15.
TEST(Occupancy, SharedMemoryCountsReserveAndRounding) {
    const Occupancy occ = theoretical_occupancy(limits(90), 128, 32, 14465);
    EXPECT_EQ(occ.blocks_per_sm, 14);
    EXPECT_DOUBLE_EQ(occ.fraction, 14.0 * 4 / 64);
    EXPECT_STREQ(occ.limiter, "shared memory");
}

TEST(Occupancy, VoltaSharedMemoryHasNoReserve) {
    const Occupancy occ = theoretical_occupancy(limits(70), 256, 32, 48 * 1024);
    EXPECT_EQ(occ.blocks_per_sm, 2);
    EXPECT_STREQ(occ.limiter, "shared memory");
}

// The largest dynamic allocation Hopper allows is 227 KiB: 228 KiB with the reserve.
TEST(Occupancy, HopperLargestSharedAllocationFitsOnceAndOneMoreByteDoesNot) {
    EXPECT_EQ(theoretical_occupancy(limits(90), 128, 32, 227 * 1024).blocks_per_sm, 1);
    EXPECT_EQ(theoretical_occupancy(limits(90), 128, 32, 227 * 1024 + 1).blocks_per_sm, 0);
}

// H100 SXM as cudaDeviceProp reports it.
DeviceInfo h100_sxm() {
    DeviceInfo d;
    d.name = "NVIDIA H100 80GB HBM3";
    d.sm = 90;
    d.sm_count = 132;
    d.clock_khz = 1980000;
    d.mem_clock_khz = 2619000;
    d.bus_width_bits = 5120;
    d.driver_version = 13000;
    d.runtime_version = 12040;
    return d;
}

// 128 FP32 lanes per SM, an FMA is 2 FLOPs: 66.9 TFLOP/s.
TEST(Peaks, H100Fp32AndFp64) {
    const auto p = theoretical_peaks(h100_sxm());
    EXPECT_DOUBLE_EQ(p.fp32, 132.0 * 128 * 2 * 1.98e9);
    EXPECT_DOUBLE_EQ(p.fp64, p.fp32 / 2);
}

// Dense tensor rates per SM per clock: FP16 4096, TF32 2048, FP64 DMMA 256 FLOPs.
TEST(Peaks, H100TensorRates) {
    const auto p = theoretical_peaks(h100_sxm());
    EXPECT_DOUBLE_EQ(p.fp16_tensor, 132.0 * 4096 * 1.98e9);
    EXPECT_DOUBLE_EQ(p.tf32_tensor, p.fp16_tensor / 2);
    EXPECT_DOUBLE_EQ(p.fp64_tensor, 2 * p.fp64);
}

// HBM3: two transfers per 2619 MHz clock over 5120 bits = 3.35 TB/s.
TEST(Peaks, H100DramBandwidth) {
    EXPECT_DOUBLE_EQ(theoretical_peaks(h100_sxm()).dram_bandwidth, 2 * 2.619e9 * 5120 / 8);
}

// A100 SXM: 108 SMs at 1410 MHz, 64 FP32 lanes per SM: 19.5 FP32, 312 FP16 tensor TFLOP/s.
TEST(Peaks, A100MatchesPublishedRates) {
    DeviceInfo d;
    d.sm = 80, d.sm_count = 108, d.clock_khz = 1410000;
    const auto p = theoretical_peaks(d);
    EXPECT_DOUBLE_EQ(p.fp32, 108.0 * 64 * 2 * 1.41e9);
    EXPECT_DOUBLE_EQ(p.fp64, p.fp32 / 2);
    EXPECT_DOUBLE_EQ(p.fp64_tensor, p.fp32);
    EXPECT_DOUBLE_EQ(p.fp16_tensor, 108.0 * 2048 * 1.41e9);
}

TEST(Peaks, UntabulatedArchitectureHasNoComputePeaks) {
    DeviceInfo d = h100_sxm();
    d.sm = 12;
    const auto p = theoretical_peaks(d);
    EXPECT_EQ(p.fp32, 0.0);
    EXPECT_EQ(p.fp64, 0.0);
    EXPECT_EQ(p.fp64_tensor, 0.0);
    EXPECT_EQ(p.tf32_tensor, 0.0);
    EXPECT_EQ(p.fp16_tensor, 0.0);
}

TEST(Peaks, ScaleLinearlyWithSmCountAndClock) {
    DeviceInfo d = h100_sxm();
    const double base = theoretical_peaks(d).fp32;
    d.sm_count *= 2;
    EXPECT_DOUBLE_EQ(theoretical_peaks(d).fp32, 2 * base);
    d.clock_khz /= 2;
    EXPECT_DOUBLE_EQ(theoretical_peaks(d).fp32, base);
}

TEST(OneLine, NamesDeviceSmClockAndVersions) {
    EXPECT_EQ(gemmkit::analysis::one_line(h100_sxm()),
              "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 1980 MHz, driver 13.0, runtime 12.4");
}

}  // namespace
