// gemmkit_quantize_fp8's and gemmkit_quantize_fp8_blocks's checks, on the host: each bad
// argument is refused with a message naming it, before any device work (the pointers are fake
// and never read); a call with nothing to do succeeds; a valid call gets past every check. And
// the arithmetic the kernels share with the GPU tests (kernels/fp8/quantize.hpp).
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "gemmkit/gemmkit.h"
#include "kernels/fp8/quantize.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::test::contains;
using gemmkit::test::fake_ptr;
using gemmkit::test::names;

// One call's arguments, valid as they start: x of BF16 stored 64 x 32 (ldx 70), q E4M3 (ldq 72),
// per-column scales; all at fake addresses far apart.
struct QuantizeCall {
    int64_t k = 64, mn = 32;
    const void* x = fake_ptr<const void>(0x100000);
    gemmkit_dtype x_type = GEMMKIT_R_16BF;
    int64_t ldx = 70;
    void* q = fake_ptr<void>(0x200000);
    gemmkit_dtype q_type = GEMMKIT_R_8F_E4M3;
    int64_t ldq = 72;
    gemmkit_scale_mode mode = GEMMKIT_SCALE_OUTER;
    float* scales = fake_ptr<float>(0x300000);

    gemmkit_status operator()() const {
        return gemmkit_quantize_fp8(nullptr, k, mn, x, x_type, ldx, q, q_type, ldq, mode, scales);
    }
};

// QuantizeCall's arguments for gemmkit_quantize_fp8_blocks, 1 x 128 blocks: 32 scales (k 64 is
// one block of k).
struct QuantizeBlocksCall : QuantizeCall {
    int64_t block_mn = 1;

    gemmkit_status operator()() const {
        return gemmkit_quantize_fp8_blocks(nullptr, k, mn, x, x_type, ldx, q, q_type, ldq, block_mn, scales);
    }
};

// A call every argument check lets through: without a device it fails with CUDA_ERROR, with one
// the fake x is refused as memory it cannot read; never by a check naming one of `args`.
template <class Call>
void expect_past_the_checks(const Call& call, std::initializer_list<const char*> args) {
    const gemmkit_status s = call();
    const std::string msg = gemmkit_last_error();
    EXPECT_NE(s, GEMMKIT_SUCCESS);
    for (const char* arg : args) EXPECT_FALSE(contains(msg, arg)) << msg;
}

template <class Call>
void expect_refused(const Call& call, gemmkit_status want, const std::string& arg) {
    const gemmkit_status s = call();
    EXPECT_EQ(s, want) << gemmkit_status_string(s) << ": " << gemmkit_last_error();
    EXPECT_TRUE(names(gemmkit_last_error(), arg)) << gemmkit_last_error();
}

TEST(QuantizeArgs, AValidCallGetsPastEveryCheck) {
    for (gemmkit_scale_mode mode : {GEMMKIT_SCALE_TENSOR, GEMMKIT_SCALE_OUTER})
        for (gemmkit_dtype x_type : {GEMMKIT_R_32F, GEMMKIT_R_16F, GEMMKIT_R_16BF})
            for (gemmkit_dtype q_type : {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2}) {
                QuantizeCall call;
                call.mode = mode, call.x_type = x_type, call.q_type = q_type;
                expect_past_the_checks(call, {"k =", "mn =", "x_type", "q_type", "mode", "ldx", "ldq", "overlaps"});
            }
}

TEST(QuantizeArgs, NothingToDoSucceedsWithoutReadingAPointer) {
    for (int64_t k : {0, 5}) {
        QuantizeCall call;
        call.k = k, call.mn = k == 0 ? 3 : 0;
        call.x = nullptr, call.q = nullptr, call.scales = nullptr;
        EXPECT_EQ(call(), GEMMKIT_SUCCESS) << gemmkit_last_error();
    }
}

TEST(QuantizeArgs, RejectsNegativeSizes) {
    QuantizeCall call;
    call.k = -1;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "k");
    call = QuantizeCall{};
    call.mn = -2;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "mn");
}

TEST(QuantizeArgs, TakesBf16Fp16OrFp32Values) {
    QuantizeCall call;
    call.x_type = GEMMKIT_R_64F;
    expect_refused(call, GEMMKIT_NOT_SUPPORTED, "x_type");
    call.x_type = GEMMKIT_R_8F_E4M3;
    expect_refused(call, GEMMKIT_NOT_SUPPORTED, "x_type");
    call.x_type = static_cast<gemmkit_dtype>(42);
    expect_refused(call, GEMMKIT_INVALID_VALUE, "x_type");
}

TEST(QuantizeArgs, WritesE4m3OrE5m2) {
    QuantizeCall call;
    call.q_type = GEMMKIT_R_16BF;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "q_type");
}

TEST(QuantizeArgs, BlockScalesTakeTheBlocksEntryAndOtherModesAreInvalid) {
    QuantizeCall call;
    call.mode = GEMMKIT_SCALE_BLOCK;
    expect_refused(call, GEMMKIT_NOT_SUPPORTED, "mode");
    EXPECT_TRUE(names(gemmkit_last_error(), "gemmkit_quantize_fp8_blocks")) << gemmkit_last_error();
    call.mode = static_cast<gemmkit_scale_mode>(7);
    expect_refused(call, GEMMKIT_INVALID_VALUE, "mode");
}

TEST(QuantizeArgs, LeadingDimensionsHoldAColumn) {
    QuantizeCall call;
    call.ldx = 63;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "ldx");
    call = QuantizeCall{};
    call.ldq = 0;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "ldq");
    call = QuantizeCall{};
    call.ldx = std::numeric_limits<int64_t>::max() / 2;  // the last column's offset passes int64
    expect_refused(call, GEMMKIT_INVALID_VALUE, "ldx");
}

TEST(QuantizeArgs, RejectsNullAndMisalignedPointers) {
    for (const char* arg : {"x", "q", "scales"}) {
        QuantizeCall call;
        if (std::string(arg) == "x") call.x = nullptr;
        if (std::string(arg) == "q") call.q = nullptr;
        if (std::string(arg) == "scales") call.scales = nullptr;
        expect_refused(call, GEMMKIT_INVALID_VALUE, arg);
    }
    QuantizeCall call;
    call.x = fake_ptr<const void>(0x100001);  // BF16 off 2 bytes
    expect_refused(call, GEMMKIT_INVALID_VALUE, "x");
    call = QuantizeCall{};
    call.scales = fake_ptr<float>(0x300002);
    expect_refused(call, GEMMKIT_INVALID_VALUE, "scales");
}

TEST(QuantizeArgs, RejectsOutputsThatOverlapTheInputOrEachOther) {
    QuantizeCall call;
    call.q = fake_ptr<void>(0x100000 + 64);  // inside x's first column
    expect_refused(call, GEMMKIT_INVALID_VALUE, "q");
    call = QuantizeCall{};
    call.scales = fake_ptr<float>(0x100000 + 2 * 70 * 31);  // x's last column
    expect_refused(call, GEMMKIT_INVALID_VALUE, "scales");
    call = QuantizeCall{};
    call.scales = fake_ptr<float>(0x200000 + 72 * 31);  // q's last column
    expect_refused(call, GEMMKIT_INVALID_VALUE, "scales");
    call = QuantizeCall{};
    call.scales = fake_ptr<float>(0x200000 + 72 * 31 + 64);  // just past q's last value: no overlap
    const gemmkit_status s = call();
    EXPECT_FALSE(contains(gemmkit_last_error(), "overlaps")) << gemmkit_status_string(s);
}

TEST(QuantizeBlocksArgs, AValidCallGetsPastEveryCheck) {
    for (int64_t block_mn : {1, 128})
        for (gemmkit_dtype x_type : {GEMMKIT_R_32F, GEMMKIT_R_16F, GEMMKIT_R_16BF})
            for (gemmkit_dtype q_type : {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2}) {
                QuantizeBlocksCall call;
                call.block_mn = block_mn, call.x_type = x_type, call.q_type = q_type;
                expect_past_the_checks(call,
                                       {"k =", "mn =", "x_type", "q_type", "block_mn", "ldx", "ldq", "overlaps"});
            }
}

TEST(QuantizeBlocksArgs, BlocksAre1Or128ColumnsWide) {
    for (int64_t block_mn : {0, -1, 2, 64, 127, 256}) {
        QuantizeBlocksCall call;
        call.block_mn = block_mn;
        expect_refused(call, GEMMKIT_INVALID_VALUE, "block_mn");
        call.k = 0;  // refused even with nothing to do
        expect_refused(call, GEMMKIT_INVALID_VALUE, "block_mn");
    }
}

TEST(QuantizeBlocksArgs, NothingToDoSucceedsWithoutReadingAPointer) {
    for (int64_t block_mn : {1, 128})
        for (int64_t k : {0, 5}) {
            QuantizeBlocksCall call;
            call.block_mn = block_mn, call.k = k, call.mn = k == 0 ? 3 : 0;
            call.x = nullptr, call.q = nullptr, call.scales = nullptr;
            EXPECT_EQ(call(), GEMMKIT_SUCCESS) << gemmkit_last_error();
        }
}

// The checks gemmkit_quantize_fp8 makes, made here too.
TEST(QuantizeBlocksArgs, ChecksTheOtherArgumentsAsTheTensorEntryDoes) {
    QuantizeBlocksCall call;
    call.k = -1;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "k");
    call = QuantizeBlocksCall{};
    call.mn = -1;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "mn");
    call = QuantizeBlocksCall{};
    call.x_type = GEMMKIT_R_64F;
    expect_refused(call, GEMMKIT_NOT_SUPPORTED, "x_type");
    call = QuantizeBlocksCall{};
    call.q_type = GEMMKIT_R_16F;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "q_type");
    call = QuantizeBlocksCall{};
    call.ldx = 63;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "ldx");
    call = QuantizeBlocksCall{};
    call.ldq = 63;
    expect_refused(call, GEMMKIT_INVALID_VALUE, "ldq");
    for (const char* arg : {"x", "q", "scales"}) {
        call = QuantizeBlocksCall{};
        if (std::string(arg) == "x") call.x = nullptr;
        if (std::string(arg) == "q") call.q = nullptr;
        if (std::string(arg) == "scales") call.scales = nullptr;
        expect_refused(call, GEMMKIT_INVALID_VALUE, arg);
    }
    call = QuantizeBlocksCall{};
    call.scales = fake_ptr<float>(0x300001);
    expect_refused(call, GEMMKIT_INVALID_VALUE, "scales");
}

// The scales' extent is one float a block: 32 for 1 x 128 blocks of 64 x 32, 1 for 128 x 128.
TEST(QuantizeBlocksArgs, TheScalesOfEveryBlockStayApartFromXAndQ) {
    QuantizeBlocksCall call;
    call.scales = fake_ptr<float>(0x100000 - 64);  // 16 floats before x: the 17th is x's
    expect_refused(call, GEMMKIT_INVALID_VALUE, "scales");
    call.block_mn = 128;  // one float: clear of x
    call();
    EXPECT_FALSE(contains(gemmkit_last_error(), "overlaps")) << gemmkit_last_error();
    call = QuantizeBlocksCall{};
    call.scales = fake_ptr<float>(0x200000 - 4 * 31);  // the last of 32 floats is q's first byte
    expect_refused(call, GEMMKIT_INVALID_VALUE, "scales");
    call.scales = fake_ptr<float>(0x200000 - 4 * 32);  // all 32 before q
    call();
    EXPECT_FALSE(contains(gemmkit_last_error(), "overlaps")) << gemmkit_last_error();
    call = QuantizeBlocksCall{};
    call.q = fake_ptr<void>(0x100000 + 64);
    expect_refused(call, GEMMKIT_INVALID_VALUE, "q");
}

TEST(QuantizeScale, OneScaleABlockOf128OfKAndBlockMnColumns) {
    gemmkit::QuantizeArgs a;
    a.k = 300, a.mn = 130;  // 3 blocks of k, the last of 44
    EXPECT_EQ(gemmkit::quantize_scale_count(a), 1);
    a.mode = GEMMKIT_SCALE_OUTER;
    EXPECT_EQ(gemmkit::quantize_scale_count(a), 130);
    a.block_mn = 1;  // the mode no longer counts
    EXPECT_EQ(gemmkit::quantize_scale_count(a), 3 * 130);
    a.block_mn = 128;
    EXPECT_EQ(gemmkit::quantize_scale_count(a), 3 * 2);
    a.k = 128, a.mn = 128;
    EXPECT_EQ(gemmkit::quantize_scale_count(a), 1);
}

TEST(QuantizeScale, TheLargestMagnitudeLandsOnTheFormatsLargestValue) {
    EXPECT_EQ(gemmkit::fp8_max(GEMMKIT_R_8F_E4M3), 448.0f);
    EXPECT_EQ(gemmkit::fp8_max(GEMMKIT_R_8F_E5M2), 57344.0f);
    EXPECT_EQ(gemmkit::fp8_scale_of(448.0f, GEMMKIT_R_8F_E4M3), 1.0f);
    EXPECT_EQ(gemmkit::fp8_scale_of(3.5f, GEMMKIT_R_8F_E4M3), 3.5f / 448.0f);
    EXPECT_EQ(gemmkit::fp8_scale_of(57344.0f * 4, GEMMKIT_R_8F_E5M2), 4.0f);
    EXPECT_EQ(gemmkit::fp8_scale_of(0.0f, GEMMKIT_R_8F_E4M3), 1.0f);  // all zeros
    EXPECT_TRUE(std::isnan(gemmkit::fp8_scale_of(std::nanf(""), GEMMKIT_R_8F_E4M3)));
    EXPECT_TRUE(std::isinf(gemmkit::fp8_scale_of(INFINITY, GEMMKIT_R_8F_E5M2)));
}

TEST(QuantizeScale, TheMaximumKeepsNaN) {
    const float nan = std::nanf("");
    EXPECT_EQ(gemmkit::nan_max(1.0f, 2.0f), 2.0f);
    EXPECT_EQ(gemmkit::nan_max(2.0f, 1.0f), 2.0f);
    EXPECT_TRUE(std::isnan(gemmkit::nan_max(nan, 2.0f)));
    EXPECT_TRUE(std::isnan(gemmkit::nan_max(2.0f, nan)));
    EXPECT_EQ(gemmkit::nan_max(0.0f, INFINITY), INFINITY);
}

}  // namespace
