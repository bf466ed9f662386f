// The C API's argument checks. They run before any device work, so every case here
// returns without touching a GPU; a check that slipped behind the device query would
// show up as GEMMKIT_CUDA_ERROR on a machine without one.
#include <cctype>
#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gemmkit/gemmkit.h"
#include "registry.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::test::contains;
using gemmkit::test::fake_ptr;
using gemmkit::test::names;

enum class Entry { kSgemm, kGemmEx };

// Keeps ctest's test names readable ("... GetParam() = sgemm").
void PrintTo(Entry e, std::ostream* os) { *os << (e == Entry::kSgemm ? "sgemm" : "gemm_ex"); }

// One call's arguments; the defaults are a valid 4x3x2 NN FP32 problem.
struct Args {
    gemmkit_op transa = GEMMKIT_OP_N, transb = GEMMKIT_OP_N;
    int64_t m = 4, n = 3, k = 2;
    const void* alpha = nullptr;
    const void* A = fake_ptr<const float>(0x1000);
    gemmkit_dtype a_type = GEMMKIT_R_32F;
    int64_t lda = 4;
    const void* B = fake_ptr<const float>(0x2000);
    gemmkit_dtype b_type = GEMMKIT_R_32F;
    int64_t ldb = 2;
    const void* beta = nullptr;
    void* C = nullptr;
    gemmkit_dtype c_type = GEMMKIT_R_32F;
    int64_t ldc = 4;
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;
    const char* kernel = nullptr;
};

gemmkit_status call(Entry entry, const Args& a) {
    if (entry == Entry::kSgemm)
        return gemmkit_sgemm(nullptr, a.transa, a.transb, a.m, a.n, a.k, static_cast<const float*>(a.alpha),
                             static_cast<const float*>(a.A), a.lda, static_cast<const float*>(a.B), a.ldb,
                             static_cast<const float*>(a.beta), static_cast<float*>(a.C), a.ldc);
    return gemmkit_gemm_ex(nullptr, a.transa, a.transb, a.m, a.n, a.k, a.alpha, a.A, a.a_type, a.lda, a.B, a.b_type,
                           a.ldb, a.beta, a.C, a.c_type, a.ldc, a.compute, a.kernel);
}

constexpr float kSentinel = 1234.5f;

// C is a real host buffer full of sentinels, so "no memory is touched" can be checked.
class ApiArgs : public ::testing::Test {
protected:
    ApiArgs() : c_buf_(64, kSentinel) {}

    Args valid() {
        Args a;
        a.alpha = &alpha_;
        a.beta = &beta_;
        a.C = c_buf_.data();
        return a;
    }

    bool c_untouched() const {
        for (float v : c_buf_)
            if (v != kSentinel) return false;
        return true;
    }

    void expect_invalid(Entry entry, const Args& a, const std::string& arg) {
        EXPECT_EQ(call(entry, a), GEMMKIT_INVALID_VALUE);
        EXPECT_TRUE(names(gemmkit_last_error(), arg));
        EXPECT_TRUE(c_untouched());
    }

    float alpha_ = 1.0f, beta_ = 0.0f;
    std::vector<float> c_buf_;
};

// Checks that both entry points share.
class ApiArgsBoth : public ApiArgs, public ::testing::WithParamInterface<Entry> {};

INSTANTIATE_TEST_SUITE_P(Entries, ApiArgsBoth, ::testing::Values(Entry::kSgemm, Entry::kGemmEx),
                         [](const ::testing::TestParamInfo<Entry>& info) {
                             return info.param == Entry::kSgemm ? std::string("sgemm") : std::string("gemm_ex");
                         });

// Out-of-range enumerators are what a C caller can pass; the library must refuse them.
TEST_P(ApiArgsBoth, RejectsTransaOutsideNandT) {
    Args a = valid();
    a.transa = static_cast<gemmkit_op>(2);
    expect_invalid(GetParam(), a, "transa");
}

TEST_P(ApiArgsBoth, RejectsTransbOutsideNandT) {
    Args a = valid();
    a.transb = static_cast<gemmkit_op>(2);
    expect_invalid(GetParam(), a, "transb");
}

TEST_P(ApiArgsBoth, RejectsNegativeM) {
    Args a = valid();
    a.m = -1;
    expect_invalid(GetParam(), a, "m");
}

TEST_P(ApiArgsBoth, RejectsNegativeN) {
    Args a = valid();
    a.n = -1;
    expect_invalid(GetParam(), a, "n");
}

TEST_P(ApiArgsBoth, RejectsNegativeK) {
    Args a = valid();
    a.k = -1;
    expect_invalid(GetParam(), a, "k");
}

TEST_P(ApiArgsBoth, RejectsLdaBelowMForTransaN) {
    Args a = valid();
    a.m = 4, a.k = 6, a.lda = 3, a.ldc = 4;
    expect_invalid(GetParam(), a, "lda");
}

// With op T, A is stored k x m: lda >= m is not enough.
TEST_P(ApiArgsBoth, RejectsLdaBelowKForTransaT) {
    Args a = valid();
    a.transa = GEMMKIT_OP_T;
    a.m = 4, a.k = 6, a.lda = 5, a.ldb = 6;
    expect_invalid(GetParam(), a, "lda");
}

// cuBLAS requires lda >= max(1, rows) even when there are no rows.
TEST_P(ApiArgsBoth, RejectsLdaZeroWhenMIsZero) {
    Args a = valid();
    a.m = 0, a.lda = 0;
    expect_invalid(GetParam(), a, "lda");
}

TEST_P(ApiArgsBoth, RejectsLdbBelowKForTransbN) {
    Args a = valid();
    a.k = 6, a.lda = 4, a.ldb = 5;
    expect_invalid(GetParam(), a, "ldb");
}

// With op T, B is stored n x k: ldb >= k is not enough.
TEST_P(ApiArgsBoth, RejectsLdbBelowNForTransbT) {
    Args a = valid();
    a.transb = GEMMKIT_OP_T;
    a.n = 7, a.k = 2, a.ldb = 6;
    expect_invalid(GetParam(), a, "ldb");
}

TEST_P(ApiArgsBoth, RejectsLdcBelowM) {
    Args a = valid();
    a.ldc = 3;
    expect_invalid(GetParam(), a, "ldc");
}

TEST_P(ApiArgsBoth, RejectsNullAlpha) {
    Args a = valid();
    a.alpha = nullptr;
    expect_invalid(GetParam(), a, "alpha");
}

TEST_P(ApiArgsBoth, RejectsNullBeta) {
    Args a = valid();
    a.beta = nullptr;
    expect_invalid(GetParam(), a, "beta");
}

TEST_P(ApiArgsBoth, RejectsNullC) {
    Args a = valid();
    a.C = nullptr;
    expect_invalid(GetParam(), a, "C");
}

TEST_P(ApiArgsBoth, RejectsNullAWhenRead) {
    Args a = valid();
    a.A = nullptr;
    expect_invalid(GetParam(), a, "A");
}

TEST_P(ApiArgsBoth, RejectsNullBWhenRead) {
    Args a = valid();
    a.B = nullptr;
    expect_invalid(GetParam(), a, "B");
}

TEST_P(ApiArgsBoth, RejectsMisalignedA) {
    Args a = valid();
    a.A = fake_ptr<const float>(0x1002);
    expect_invalid(GetParam(), a, "A");
}

TEST_P(ApiArgsBoth, RejectsMisalignedB) {
    Args a = valid();
    a.B = fake_ptr<const float>(0x2002);
    expect_invalid(GetParam(), a, "B");
}

TEST_P(ApiArgsBoth, RejectsMisalignedCAndLeavesItUntouched) {
    Args a = valid();
    a.C = reinterpret_cast<char*>(c_buf_.data()) + 2;
    expect_invalid(GetParam(), a, "C");
}

TEST_P(ApiArgsBoth, EmptyMIsSuccessWithNullMatrices) {
    Args a = valid();
    a.m = 0, a.A = nullptr, a.B = nullptr, a.C = nullptr;
    EXPECT_EQ(call(GetParam(), a), GEMMKIT_SUCCESS) << gemmkit_last_error();
}

TEST_P(ApiArgsBoth, EmptyNIsSuccessWithNullMatrices) {
    Args a = valid();
    a.n = 0, a.A = nullptr, a.B = nullptr, a.C = nullptr;
    EXPECT_EQ(call(GetParam(), a), GEMMKIT_SUCCESS) << gemmkit_last_error();
}

// beta = 2 would change every element if the no-op wrote anything.
TEST_P(ApiArgsBoth, EmptyMLeavesCUntouched) {
    Args a = valid();
    beta_ = 2.0f;
    a.m = 0;
    EXPECT_EQ(call(GetParam(), a), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_TRUE(c_untouched());
}

TEST_P(ApiArgsBoth, SuccessClearsThePreviousError) {
    Args bad = valid();
    bad.k = -3;
    ASSERT_EQ(call(GetParam(), bad), GEMMKIT_INVALID_VALUE);
    ASSERT_STRNE(gemmkit_last_error(), "");
    Args empty = valid();
    empty.n = 0;
    ASSERT_EQ(call(GetParam(), empty), GEMMKIT_SUCCESS);
    EXPECT_STREQ(gemmkit_last_error(), "");
}

TEST_F(ApiArgs, GemmExRejectsInvalidAType) {
    Args a = valid();
    a.a_type = static_cast<gemmkit_dtype>(7);
    expect_invalid(Entry::kGemmEx, a, "a_type");
}

TEST_F(ApiArgs, GemmExRejectsInvalidBType) {
    Args a = valid();
    a.b_type = static_cast<gemmkit_dtype>(7);
    expect_invalid(Entry::kGemmEx, a, "b_type");
}

TEST_F(ApiArgs, GemmExRejectsInvalidCType) {
    Args a = valid();
    a.c_type = static_cast<gemmkit_dtype>(7);
    expect_invalid(Entry::kGemmEx, a, "c_type");
}

TEST_F(ApiArgs, GemmExRejectsInvalidCompute) {
    Args a = valid();
    a.compute = static_cast<gemmkit_compute>(3);
    expect_invalid(Entry::kGemmEx, a, "compute");
}

// Alignment follows the element size: 4-byte alignment is not enough for doubles.
TEST_F(ApiArgs, GemmExRejectsDoubleAOnFourByteBoundary) {
    const double alpha = 1.0, beta = 0.0;
    std::vector<double> c(16, 7.0);
    Args a = valid();
    a.alpha = &alpha, a.beta = &beta;
    a.a_type = a.b_type = a.c_type = GEMMKIT_R_64F;
    a.compute = GEMMKIT_COMPUTE_64F;
    a.A = fake_ptr<const double>(0x1004);
    a.B = fake_ptr<const double>(0x2000);
    a.C = c.data();
    EXPECT_EQ(call(Entry::kGemmEx, a), GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_last_error(), "A"));
    EXPECT_EQ(c, std::vector<double>(16, 7.0));
}

TEST_F(ApiArgs, GemmExRejectsUnknownKernelByName) {
    Args a = valid();
    a.kernel = "sgemm.99_no_such_kernel";
    EXPECT_EQ(call(Entry::kGemmEx, a), GEMMKIT_UNKNOWN_KERNEL);
    EXPECT_TRUE(contains(gemmkit_last_error(), "sgemm.99_no_such_kernel"));
    EXPECT_TRUE(c_untouched());
}

// Names are exact: a prefix of a real name is not a kernel.
TEST_F(ApiArgs, GemmExRejectsPrefixOfKernelName) {
    Args a = valid();
    a.kernel = "sgemm.05";
    EXPECT_EQ(call(Entry::kGemmEx, a), GEMMKIT_UNKNOWN_KERNEL);
    EXPECT_TRUE(c_untouched());
}

TEST_F(ApiArgs, GemmExNamedFp32KernelRefusesHalfData) {
    Args a = valid();
    a.a_type = a.b_type = a.c_type = GEMMKIT_R_16F;
    a.A = fake_ptr<const void>(0x1002);  // 2-byte aligned is enough for f16
    a.kernel = "sgemm.05_register_blocking_2d";
    EXPECT_EQ(call(Entry::kGemmEx, a), GEMMKIT_NOT_SUPPORTED) << gemmkit_last_error();
    EXPECT_TRUE(contains(gemmkit_last_error(), "sgemm.05_register_blocking_2d"));
    EXPECT_TRUE(c_untouched());
}

TEST_F(ApiArgs, GemmExNamedFp32KernelRefusesTf32Compute) {
    Args a = valid();
    a.compute = GEMMKIT_COMPUTE_32F_FAST_TF32;
    a.kernel = "sgemm.05_register_blocking_2d";
    EXPECT_EQ(call(Entry::kGemmEx, a), GEMMKIT_NOT_SUPPORTED) << gemmkit_last_error();
    EXPECT_TRUE(c_untouched());
}

TEST(LastError, IsThreadLocal) {
    const float one = 1.0f;
    ASSERT_EQ(gemmkit_sgemm(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, -7, 1, 1, &one, nullptr, 1, nullptr, 1, &one,
                            nullptr, 1),
              GEMMKIT_INVALID_VALUE);
    std::string fresh_thread_start, other_thread_error;
    std::thread t([&] {
        fresh_thread_start = gemmkit_last_error();
        gemmkit_sgemm(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 1, -9, 1, &one, nullptr, 1, nullptr, 1, &one, nullptr, 1);
        other_thread_error = gemmkit_last_error();
    });
    t.join();
    EXPECT_EQ(fresh_thread_start, "");
    EXPECT_TRUE(contains(other_thread_error, "-9"));
    EXPECT_TRUE(contains(gemmkit_last_error(), "-7"));
    EXPECT_FALSE(contains(gemmkit_last_error(), "-9"));
}

TEST(StatusString, EveryStatusHasItsOwnName) {
    const std::vector<std::pair<gemmkit_status, std::string>> all = {
        {GEMMKIT_SUCCESS, "GEMMKIT_SUCCESS"},
        {GEMMKIT_INVALID_VALUE, "GEMMKIT_INVALID_VALUE"},
        {GEMMKIT_NOT_SUPPORTED, "GEMMKIT_NOT_SUPPORTED"},
        {GEMMKIT_CUDA_ERROR, "GEMMKIT_CUDA_ERROR"},
        {GEMMKIT_ALLOC_FAILED, "GEMMKIT_ALLOC_FAILED"},
        {GEMMKIT_UNKNOWN_KERNEL, "GEMMKIT_UNKNOWN_KERNEL"},
    };
    std::set<std::string> seen;
    for (const auto& [status, name] : all) {
        const char* s = gemmkit_status_string(status);
        ASSERT_NE(s, nullptr) << name;
        EXPECT_EQ(std::string(s), name);
        seen.insert(s);
    }
    EXPECT_EQ(seen.size(), all.size());
}

TEST(StatusString, UnknownStatusStillGivesAString) {
    const char* s = gemmkit_status_string(static_cast<gemmkit_status>(99));
    ASSERT_NE(s, nullptr);
    EXPECT_STRNE(s, "GEMMKIT_SUCCESS");
}

TEST(KernelList, CountAndNamesMatchTheRegistry) {
    const auto& table = gemmkit::registry();
    ASSERT_EQ(gemmkit_kernel_count(), static_cast<int>(table.size()));
    ASSERT_GT(gemmkit_kernel_count(), 0);
    for (int i = 0; i < gemmkit_kernel_count(); ++i) {
        ASSERT_NE(gemmkit_kernel_name(i), nullptr) << i;
        EXPECT_STREQ(gemmkit_kernel_name(i), table[i].name);
    }
}

TEST(KernelList, OutOfRangeIndexGivesNull) {
    EXPECT_EQ(gemmkit_kernel_name(-1), nullptr);
    EXPECT_EQ(gemmkit_kernel_name(gemmkit_kernel_count()), nullptr);
    EXPECT_EQ(gemmkit_kernel_name(1 << 30), nullptr);
}

}  // namespace

namespace {

// gemmkit_dgemm runs the same checks as gemmkit_sgemm, before any device work.
TEST(Dgemm, NegativeSizeIsRejectedByName) {
    const double alpha = 1, beta = 0;
    const double* A = fake_ptr<const double>(0x1000);
    double* C = fake_ptr<double>(0x3000);
    EXPECT_EQ(gemmkit_dgemm(nullptr, GEMMKIT_OP_N, GEMMKIT_OP_N, 4, -1, 2, &alpha, A, 4, A, 2, &beta, C, 4),
              GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_last_error(), "n"));
}

TEST(Dgemm, ShortLeadingDimensionIsRejectedByName) {
    const double alpha = 1, beta = 0;
    const double* A = fake_ptr<const double>(0x1000);
    double* C = fake_ptr<double>(0x3000);
    EXPECT_EQ(gemmkit_dgemm(nullptr, GEMMKIT_OP_T, GEMMKIT_OP_N, 4, 3, 2, &alpha, A, 1, A, 2, &beta, C, 4),
              GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_last_error(), "lda"));
}

// gemmkit_set_sm_limit: a negative count is refused and names the argument; the limit belongs
// to the thread that set it.
TEST(SmLimit, NegativeIsRefusedAndTheLimitIsPerThread) {
    EXPECT_EQ(gemmkit_set_sm_limit(-1), GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_last_error(), "sm_count"));
    EXPECT_EQ(gemmkit_sm_limit(), 0);
    ASSERT_EQ(gemmkit_set_sm_limit(100), GEMMKIT_SUCCESS);
    EXPECT_EQ(gemmkit_sm_limit(), 100);
    int seen_elsewhere = -1;
    std::thread([&] { seen_elsewhere = gemmkit_sm_limit(); }).join();
    EXPECT_EQ(seen_elsewhere, 0);
    ASSERT_EQ(gemmkit_set_sm_limit(0), GEMMKIT_SUCCESS);
    EXPECT_EQ(gemmkit_sm_limit(), 0);
}

}  // namespace
