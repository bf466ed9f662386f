// FP8 scaled GEMM on the host: the checks of gemmkit_gemm_scaled_ex's own arguments (the scaling
// descriptor, block scales with fast_accum among them, the FP8 operand types, alpha and beta),
// which run before any device work, so no case here touches a GPU; the refusals the FP8 row makes
// (ops other than TN, both operands E5M2, C's type, operands TMA cannot read, block scales on the
// row that keeps its sums in the tensor cores), through the C API for their status and through the
// plan, a pure host function, for their reasons; which row `auto` plans an FP8 problem on; and the
// FP8 types' names and sizes.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gemmkit/gemmkit.h"
#include "plan/plan.hpp"
#include "problem.hpp"
#include "registry.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::Problem;
using gemmkit::test::contains;
using gemmkit::test::fake_ptr;
using gemmkit::test::h100_facts;
using gemmkit::test::names;

constexpr const char* kFp8Rows[] = {"fp8.01_wgmma_scaled", "fp8.02_promoted"};
constexpr const char* kAutoRow = "fp8.02_promoted";  // the highest step: its sums promoted to FP32
constexpr uint16_t kSentinel = 0x7bcd;  // a BF16 bit pattern the checks must leave as it is

// The arguments of one gemmkit_gemm_scaled_ex call, valid as they start: a 64 x 64 x 64 TN
// problem in E4M3 (A stored k x m, B stored k x n, lda = ldb = 64: 16-byte columns) at fake
// 16-byte aligned addresses, BF16 C a host buffer of sentinels (ldc = 64 + 3), outer scales at
// fake 4-byte aligned addresses. m = n = k, so that flipping an op leaves every leading dimension
// valid and the refusal is the FP8 row's, not lda's.
struct ScaledCall {
    gemmkit_op transa = GEMMKIT_OP_T, transb = GEMMKIT_OP_N;
    int64_t m = 64, n = 64, k = 64;
    const float* alpha = nullptr;
    const void* A = fake_ptr<const void>(0x10000);
    gemmkit_dtype a_type = GEMMKIT_R_8F_E4M3;
    int64_t lda = 64;
    const void* B = fake_ptr<const void>(0x20000);
    gemmkit_dtype b_type = GEMMKIT_R_8F_E4M3;
    int64_t ldb = 64;
    const float* beta = nullptr;
    void* C = nullptr;
    gemmkit_dtype c_type = GEMMKIT_R_16BF;
    int64_t ldc = 67;
    const gemmkit_scaling* scaling = nullptr;
    const gemmkit_epilogue* epilogue = nullptr;
    const char* kernel = nullptr;

    gemmkit_status operator()() const {
        return gemmkit_gemm_scaled_ex(nullptr, transa, transb, m, n, k, alpha, A, a_type, lda, B, b_type, ldb, beta,
                                      C, c_type, ldc, scaling, epilogue, kernel);
    }
};

class Fp8Args : public ::testing::Test {
protected:
    Fp8Args() : c_(67 * 64, kSentinel) {
        scaling_.mode = GEMMKIT_SCALE_OUTER;
        scaling_.scale_a = fake_ptr<const float>(0x30000);
        scaling_.scale_b = fake_ptr<const float>(0x40000);
    }

    // A valid call; tests change one thing.
    ScaledCall valid() {
        ScaledCall call;
        call.alpha = &alpha_;
        call.beta = &beta_;
        call.C = c_.data();
        call.scaling = &scaling_;
        return call;
    }

    void expect_refused(gemmkit_status s, gemmkit_status want, const std::string& arg) {
        EXPECT_EQ(s, want) << gemmkit_status_string(s) << ": " << gemmkit_last_error();
        EXPECT_TRUE(names(gemmkit_last_error(), arg));
        EXPECT_TRUE(untouched());
    }

    // A valid call goes on to the device: without one that is GEMMKIT_CUDA_ERROR; where a GPU is
    // present, INVALID_VALUE naming C (a host buffer), or on a GPU older than sm_90 NOT_SUPPORTED
    // saying so. Never a refusal of the checks under test.
    void expect_past_the_checks(gemmkit_status s) {
        const std::string msg = gemmkit_last_error();
        EXPECT_NE(s, GEMMKIT_SUCCESS);
        if (s == GEMMKIT_NOT_SUPPORTED) {
            EXPECT_TRUE(contains(msg, "needs sm_90"));
        }
        for (const char* arg : {"scaling->size", "scaling->mode", "scaling->scale_a", "scaling->scale_b", "a_type",
                                "b_type", "c_type", "alpha", "beta"})
            EXPECT_FALSE(names(msg, arg)) << msg;
        EXPECT_TRUE(untouched());
    }

    bool untouched() const {
        for (uint16_t v : c_)
            if (v != kSentinel) return false;
        return true;
    }

    float alpha_ = 0.75f, beta_ = 0.5f;
    gemmkit_scaling scaling_ = GEMMKIT_SCALING_INIT;
    std::vector<uint16_t> c_;
};

// --- What passes ------------------------------------------------------------------------------

TEST_F(Fp8Args, ValidCallsPassTheChecks) {
    expect_past_the_checks(valid()());  // outer scales
    ScaledCall call = valid();
    gemmkit_scaling tensor = GEMMKIT_SCALING_INIT;  // per tensor, no scales: all 1
    call.scaling = &tensor;
    expect_past_the_checks(call());
    call.scaling = nullptr;  // the same as GEMMKIT_SCALING_INIT
    expect_past_the_checks(call());
    gemmkit_scaling b_only = scaling_;  // a NULL scale is 1, in either mode
    b_only.scale_a = nullptr;
    call.scaling = &b_only;
    expect_past_the_checks(call());
    for (const auto& [a, b] :
         {std::pair{GEMMKIT_R_8F_E5M2, GEMMKIT_R_8F_E4M3}, {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2}}) {
        call = valid();
        call.a_type = a, call.b_type = b;
        expect_past_the_checks(call());
    }
    for (gemmkit_dtype c : {GEMMKIT_R_32F, GEMMKIT_R_16F}) {
        call = valid();
        call.c_type = c;
        expect_past_the_checks(call());
    }
}

TEST_F(Fp8Args, NothingToComputeIsANoOp) {
    ScaledCall call = valid();
    call.m = 0;
    EXPECT_EQ(call(), GEMMKIT_SUCCESS) << gemmkit_last_error();
    call = valid();
    call.n = 0;
    EXPECT_EQ(call(), GEMMKIT_SUCCESS) << gemmkit_last_error();
    EXPECT_TRUE(untouched());
}

// --- The scaling descriptor -------------------------------------------------------------------

TEST_F(Fp8Args, RejectsASizeOfNoVersion) {
    ScaledCall call = valid();
    for (size_t size : {size_t{0}, sizeof(gemmkit_scaling) - sizeof(void*)}) {
        scaling_.size = size;
        expect_refused(call(), GEMMKIT_INVALID_VALUE, "scaling->size");
    }
}

// A caller built with a newer header passes a larger struct: refused, not read in part.
TEST_F(Fp8Args, RejectsASizeLargerThanThisLibrarysStruct) {
    scaling_.size = sizeof(gemmkit_scaling) + 8;
    expect_refused(valid()(), GEMMKIT_INVALID_VALUE, "scaling->size");
    EXPECT_TRUE(contains(gemmkit_last_error(), std::to_string(sizeof(gemmkit_scaling))));
}

// Out-of-range enumerators are what a C caller can pass; the library must refuse them.
TEST_F(Fp8Args, RejectsAModeOutsideTheEnum) {
    for (int mode : {3, -1}) {
        scaling_.mode = static_cast<gemmkit_scale_mode>(mode);
        expect_refused(valid()(), GEMMKIT_INVALID_VALUE, "scaling->mode");
    }
}

TEST_F(Fp8Args, RejectsAFastAccumOtherThanZeroOrOne) {
    for (int flag : {2, -1}) {
        scaling_.fast_accum = flag;
        expect_refused(valid()(), GEMMKIT_INVALID_VALUE, "scaling->fast_accum");
    }
    scaling_.fast_accum = 1;
    expect_past_the_checks(valid()());
}

// Block scales (m = n = k = 64: ceil(64 / 128) * 64 values of A's, one of B's, both inside the
// outer scales' fake arrays) pass the checks, with either scale NULL too.
TEST_F(Fp8Args, BlockScalingPassesTheChecks) {
    scaling_.mode = GEMMKIT_SCALE_BLOCK;
    expect_past_the_checks(valid()());
    scaling_.scale_a = nullptr;
    expect_past_the_checks(valid()());
    scaling_.scale_a = fake_ptr<const float>(0x30000);
    scaling_.scale_b = nullptr;
    expect_past_the_checks(valid()());
}

// Block scales are applied as the sums move into FP32 every 128 of k; fast_accum keeps them in the
// tensor cores for all of k, so the two do not go together (as in cuBLASLt and torch._scaled_mm).
TEST_F(Fp8Args, BlockScalingWithFastAccumIsNotSupported) {
    scaling_.mode = GEMMKIT_SCALE_BLOCK;
    scaling_.fast_accum = 1;
    expect_refused(valid()(), GEMMKIT_NOT_SUPPORTED, "scaling->fast_accum");
    // By name too: the check comes before the plan.
    ScaledCall call = valid();
    call.kernel = "fp8.02_promoted";
    expect_refused(call(), GEMMKIT_NOT_SUPPORTED, "scaling->fast_accum");
}

TEST_F(Fp8Args, RejectsMisalignedScales) {
    scaling_.scale_a = fake_ptr<const float>(0x30002);
    expect_refused(valid()(), GEMMKIT_INVALID_VALUE, "scaling->scale_a");
    scaling_.scale_a = fake_ptr<const float>(0x30000);
    scaling_.scale_b = fake_ptr<const float>(0x40001);
    expect_refused(valid()(), GEMMKIT_INVALID_VALUE, "scaling->scale_b");
    // Per tensor, the one value must be a float too; per block, each of them.
    for (gemmkit_scale_mode mode : {GEMMKIT_SCALE_TENSOR, GEMMKIT_SCALE_BLOCK}) {
        scaling_.mode = mode;
        expect_refused(valid()(), GEMMKIT_INVALID_VALUE, "scaling->scale_b");
    }
}

// --- Types, ops, scalars ----------------------------------------------------------------------

TEST_F(Fp8Args, RejectsOperandsThatAreNotFp8) {
    for (gemmkit_dtype t : {GEMMKIT_R_16F, GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_R_64F}) {
        ScaledCall call = valid();
        call.a_type = t;
        expect_refused(call(), GEMMKIT_INVALID_VALUE, "a_type");
        EXPECT_TRUE(contains(gemmkit_last_error(), "FP8"));
        call = valid();
        call.b_type = t;
        expect_refused(call(), GEMMKIT_INVALID_VALUE, "b_type");
        EXPECT_TRUE(contains(gemmkit_last_error(), "FP8"));
    }
}

// The FP8 row's refusals: NOT_SUPPORTED (C of an FP8 type or FP64, either status), with or
// without a device. Their messages come from the row's supports(), which the plan tests below
// read; on the GPU, fp8_gpu_test.cpp reads them through the call.
TEST_F(Fp8Args, RefusesWhatTheFp8RowDoesNotServe) {
    ScaledCall call = valid();
    call.a_type = call.b_type = GEMMKIT_R_8F_E5M2;
    EXPECT_EQ(call(), GEMMKIT_NOT_SUPPORTED) << gemmkit_last_error();
    for (const auto& [ta, tb] : {std::pair{GEMMKIT_OP_N, GEMMKIT_OP_N}, {GEMMKIT_OP_N, GEMMKIT_OP_T},
                                 {GEMMKIT_OP_T, GEMMKIT_OP_T}}) {
        call = valid();
        call.transa = ta, call.transb = tb;
        EXPECT_EQ(call(), GEMMKIT_NOT_SUPPORTED) << gemmkit::ops_name(ta, tb) << ": " << gemmkit_last_error();
    }
    for (gemmkit_dtype c : {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2, GEMMKIT_R_64F}) {
        call = valid();
        call.c_type = c;
        const gemmkit_status s = call();
        EXPECT_TRUE(s == GEMMKIT_NOT_SUPPORTED || s == GEMMKIT_INVALID_VALUE)
            << gemmkit::dtype_name(c) << ": " << gemmkit_status_string(s) << ": " << gemmkit_last_error();
    }
    EXPECT_TRUE(untouched());
}

TEST_F(Fp8Args, RejectsNullScalars) {
    ScaledCall call = valid();
    call.alpha = nullptr;
    expect_refused(call(), GEMMKIT_INVALID_VALUE, "alpha");
    EXPECT_TRUE(contains(gemmkit_last_error(), "alpha is NULL"));
    call = valid();
    call.beta = nullptr;
    expect_refused(call(), GEMMKIT_INVALID_VALUE, "beta");
    EXPECT_TRUE(contains(gemmkit_last_error(), "beta is NULL"));
}

// The epilogue descriptor is read as gemmkit_gemm_epilogue_ex reads it.
TEST_F(Fp8Args, RejectsAnEpilogueOfNoVersion) {
    gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
    e.size = 0;
    ScaledCall call = valid();
    call.epilogue = &e;
    expect_refused(call(), GEMMKIT_INVALID_VALUE, "epilogue->size");
}

// --- The plan ---------------------------------------------------------------------------------

// A large FP8 TN problem as the plan sees it (A stored k x m, B stored k x n; 16-byte columns).
Problem fp8_problem(gemmkit_dtype a = GEMMKIT_R_8F_E4M3, gemmkit_dtype b = GEMMKIT_R_8F_E4M3,
                    gemmkit_dtype c = GEMMKIT_R_16BF) {
    Problem p;
    p.transa = GEMMKIT_OP_T, p.transb = GEMMKIT_OP_N;
    p.m = 4096, p.n = 8192, p.k = 7168;
    p.A = fake_ptr<const void>(0x100000), p.lda = 7168;
    p.B = fake_ptr<const void>(0x200000), p.ldb = 7168;
    p.C = fake_ptr<void>(0x300000), p.ldc = 4096;
    p.a_type = a, p.b_type = b, p.c_type = c;
    p.compute = GEMMKIT_COMPUTE_32F;
    return p;
}

TEST(Fp8Plan, TheRowsAreRegisteredForHopper) {
    for (const char* name : kFp8Rows) {
        const gemmkit::KernelInfo* row = gemmkit::find_kernel(name);
        ASSERT_NE(row, nullptr) << name;
        EXPECT_EQ(row->min_sm, 90) << name;
        EXPECT_TRUE(row->serves_auto) << name;
    }
}

TEST(Fp8Plan, AutoTakesTheFp8RowForEveryTypeItServes) {
    for (const auto& [a, b] : {std::pair{GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E4M3}, {GEMMKIT_R_8F_E5M2, GEMMKIT_R_8F_E4M3},
                               {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2}})
        for (gemmkit_dtype c : {GEMMKIT_R_16BF, GEMMKIT_R_16F, GEMMKIT_R_32F}) {
            gemmkit::Plan plan;
            std::string why;
            const std::string types = std::string(gemmkit::dtype_name(a)) + "/" + gemmkit::dtype_name(b) + "/" +
                                      gemmkit::dtype_name(c);
            ASSERT_TRUE(gemmkit::plan_gemm(fp8_problem(a, b, c), h100_facts(), nullptr, &plan, &why))
                << types << ": " << why;
            EXPECT_EQ(std::string(plan.kernel->name), kAutoRow) << types;
            for (const char* name : kFp8Rows) {  // by name too
                ASSERT_TRUE(gemmkit::plan_gemm(fp8_problem(a, b, c), h100_facts(), name, &plan, &why))
                    << types << ": " << why;
                EXPECT_EQ(std::string(plan.kernel->name), name) << types;
            }
        }
}

// fast_accum picks the row that keeps its sums in the tensor cores; by default auto takes the
// one that moves them into FP32, as cuBLASLt does by default.
TEST(Fp8Plan, FastAccumPicksTheRowThatKeepsItsSums) {
    Problem p = fp8_problem();
    gemmkit::Plan plan;
    std::string why;
    ASSERT_TRUE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why)) << why;
    EXPECT_FALSE(plan.kernel->fast_accum);
    EXPECT_EQ(std::string(plan.kernel->name), kAutoRow);
    p.scaling.fast_accum = true;
    ASSERT_TRUE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why)) << why;
    EXPECT_TRUE(plan.kernel->fast_accum);
    EXPECT_EQ(std::string(plan.kernel->name), "fp8.01_wgmma_scaled");
}

// The plan, not the launcher, decides the epilogue (choose_tma_store): TMA stores where beta is 0
// and C's columns are whole 16-byte chunks; else the register epilogue. For every FP8 row.
TEST(Fp8Plan, ThePlanTmaStoresCWhereCTakesIt) {
    using gemmkit::EpiloguePath;
    for (const char* name : {static_cast<const char*>(nullptr), "fp8.01_wgmma_scaled", "fp8.02_promoted"}) {
        SCOPED_TRACE(name == nullptr ? "auto" : name);
        auto epilogue_of = [&](const Problem& p) {
            gemmkit::Plan plan;
            std::string why;
            EXPECT_TRUE(gemmkit::plan_gemm(p, h100_facts(), name, &plan, &why)) << why;
            return plan.epilogue;
        };
        EXPECT_EQ(epilogue_of(fp8_problem()), EpiloguePath::kTmaStore);
        Problem read = fp8_problem();
        read.beta = 1.0;  // C read: the register epilogue
        EXPECT_EQ(epilogue_of(read), EpiloguePath::kRegisters);
        Problem odd_ldc = fp8_problem();
        odd_ldc.ldc = 4097;  // columns off 16 bytes
        EXPECT_EQ(epilogue_of(odd_ldc), EpiloguePath::kRegisters);
        Problem odd_m = fp8_problem();
        odd_m.m = 4095;  // a column of C is not whole 16-byte chunks
        EXPECT_EQ(epilogue_of(odd_m), EpiloguePath::kRegisters);
    }
}

// Block scales change every 128 of k: only the row that moves its sums into FP32 there applies
// them. auto takes it; the row that keeps its sums in the tensor cores refuses them by name.
TEST(Fp8Plan, BlockScalesAreServedByThePromotedRowAlone) {
    Problem p = fp8_problem();
    p.scaling.mode = GEMMKIT_SCALE_BLOCK;
    gemmkit::Plan plan;
    std::string why;
    ASSERT_TRUE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why)) << why;
    EXPECT_EQ(std::string(plan.kernel->name), kAutoRow);
    // The printed plan says where the scales go.
    const auto scales = std::find_if(plan.reasons.begin(), plan.reasons.end(),
                                     [](const gemmkit::Decision& d) { return d.what == "scales"; });
    ASSERT_NE(scales, plan.reasons.end());
    EXPECT_TRUE(contains(scales->choice, "blocks")) << scales->choice;
    ASSERT_TRUE(gemmkit::plan_gemm(p, h100_facts(), kAutoRow, &plan, &why)) << why;
    EXPECT_EQ(std::string(plan.kernel->name), kAutoRow);
    EXPECT_FALSE(gemmkit::plan_gemm(p, h100_facts(), "fp8.01_wgmma_scaled", &plan, &why));
    EXPECT_TRUE(contains(why, "fp8.01_wgmma_scaled")) << why;
    EXPECT_TRUE(contains(why, "block")) << why;
    // Sizes of no multiple of 128 or of the tile: the last block of k and of B's columns is partial.
    p.m = 130, p.n = 300, p.k = 200;
    p.lda = p.ldb = 208;
    p.ldc = 130;
    ASSERT_TRUE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why)) << why;
    EXPECT_EQ(std::string(plan.kernel->name), kAutoRow);
}

TEST(Fp8Plan, OpsOtherThanTnAreNotServedSayingKMajor) {
    for (const auto& [ta, tb] : {std::pair{GEMMKIT_OP_N, GEMMKIT_OP_N}, {GEMMKIT_OP_N, GEMMKIT_OP_T},
                                 {GEMMKIT_OP_T, GEMMKIT_OP_T}}) {
        Problem p = fp8_problem();
        p.transa = ta, p.transb = tb;
        p.lda = p.ldb = 8192;  // at least m, k and n: any op leaves them valid
        gemmkit::Plan plan;
        std::string why;
        EXPECT_FALSE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why)) << gemmkit::ops_name(ta, tb);
        EXPECT_TRUE(contains(why, "K-major")) << gemmkit::ops_name(ta, tb);
    }
}

TEST(Fp8Plan, TypesTheRowDoesNotServeAreRefusedByName) {
    gemmkit::Plan plan;
    std::string why;
    EXPECT_FALSE(
        gemmkit::plan_gemm(fp8_problem(GEMMKIT_R_8F_E5M2, GEMMKIT_R_8F_E5M2), h100_facts(), nullptr, &plan, &why));
    EXPECT_TRUE(contains(why, "E5M2"));
    for (gemmkit_dtype c : {GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E5M2, GEMMKIT_R_64F}) {
        EXPECT_FALSE(gemmkit::plan_gemm(fp8_problem(GEMMKIT_R_8F_E4M3, GEMMKIT_R_8F_E4M3, c), h100_facts(), nullptr,
                                        &plan, &why))
            << gemmkit::dtype_name(c);
        EXPECT_TRUE(contains(why, "c_type")) << gemmkit::dtype_name(c);
    }
}

// The kernel reads A and B by TMA: 16-byte aligned, lda and ldb multiples of 16 (bytes =
// elements); anything else is not served (no copy stands in), nor on a GPU older than sm_90.
TEST(Fp8Plan, OperandsTmaCannotReadAreNotServed) {
    gemmkit::Plan plan;
    std::string why;
    Problem p = fp8_problem();
    p.lda = 7176;  // 8 bytes past a multiple of 16
    EXPECT_FALSE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why));
    EXPECT_TRUE(contains(why, "TMA")) << why;
    p = fp8_problem();
    p.B = fake_ptr<const void>(0x200008);
    EXPECT_FALSE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why));
    EXPECT_TRUE(contains(why, "TMA")) << why;
    gemmkit::DeviceFacts ampere = h100_facts();
    ampere.sm = 80;
    EXPECT_FALSE(gemmkit::plan_gemm(fp8_problem(), ampere, nullptr, &plan, &why));
    EXPECT_TRUE(contains(why, ": needs sm_90; the device is sm_80")) << why;
    EXPECT_TRUE(contains(why, "fp8.0")) << why;
}

// FP8 problems go to the FP8 row alone, and the FP8 row takes nothing else.
TEST(Fp8Plan, TheFp8RowAndTheOtherRowsKeepApart) {
    const Problem fp8 = fp8_problem();
    Problem bf16 = fp8;
    bf16.a_type = bf16.b_type = GEMMKIT_R_16BF;
    std::string why;
    for (const gemmkit::KernelInfo& row : gemmkit::registry()) {
        if (gemmkit::fp8(row.dtype)) {
            EXPECT_TRUE(gemmkit::row_supports(row, fp8, &why)) << why;
            EXPECT_FALSE(gemmkit::row_supports(row, bf16, &why));
        } else {
            EXPECT_FALSE(gemmkit::row_supports(row, fp8, &why)) << row.name;
        }
    }
}

// --- The types --------------------------------------------------------------------------------

TEST(Fp8Types, NamesAndSizes) {
    EXPECT_EQ(gemmkit::dtype_size(GEMMKIT_R_8F_E4M3), 1u);
    EXPECT_EQ(gemmkit::dtype_size(GEMMKIT_R_8F_E5M2), 1u);
    EXPECT_STREQ(gemmkit::dtype_name(GEMMKIT_R_8F_E4M3), "e4m3");
    EXPECT_STREQ(gemmkit::dtype_name(GEMMKIT_R_8F_E5M2), "e5m2");
    EXPECT_TRUE(gemmkit::fp8(GEMMKIT_R_8F_E4M3));
    EXPECT_TRUE(gemmkit::fp8(GEMMKIT_R_8F_E5M2));
    EXPECT_FALSE(gemmkit::fp8(GEMMKIT_R_16BF));
    EXPECT_EQ(GEMMKIT_R_8F_E4M3, 4);  // the ABI's values
    EXPECT_EQ(GEMMKIT_R_8F_E5M2, 5);
}

TEST(Fp8Types, TheScalingInitializerIsPerTensorWithoutScales) {
    const gemmkit_scaling s = GEMMKIT_SCALING_INIT;
    EXPECT_EQ(s.size, sizeof(gemmkit_scaling));
    EXPECT_EQ(s.mode, GEMMKIT_SCALE_TENSOR);
    EXPECT_EQ(s.scale_a, nullptr);
    EXPECT_EQ(s.scale_b, nullptr);
    EXPECT_EQ(s.fast_accum, 0);
}

}  // namespace
