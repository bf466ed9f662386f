// Grouped GEMM on the host: the C API's checks of a grouped call's own arguments (they run before
// any device work, so no case here touches a GPU), and which rows plan one.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gemmkit/gemmkit.h"
#include "plan/plan.hpp"
#include "registry.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::DeviceFacts;
using gemmkit::Problem;
using gemmkit::test::contains;
using gemmkit::test::fake_ptr;
using gemmkit::test::h100_facts;
using gemmkit::test::names;

constexpr uint16_t kSentinel = 0x7bcd;  // a BF16 bit pattern the checks must leave as it is

// A valid grouped call in BF16: 3 groups over n = 48 columns of C (m = 32, k = 64), A of op T
// (one 64 x 32 matrix a group, stride 64 * 32), B of op N, C a host buffer of sentinels.
class GroupedArgs : public ::testing::Test {
protected:
    GroupedArgs() : c_(32 * 48, kSentinel) {}

    gemmkit_status call(int64_t groups, const int32_t* ends, int64_t stride_a = 64 * 32, int64_t k = 64,
                        const gemmkit_epilogue* epilogue = nullptr, gemmkit_dtype type = GEMMKIT_R_16BF) {
        return gemmkit_gemm_grouped_ex(nullptr, GEMMKIT_OP_T, GEMMKIT_OP_N, 32, 48, k, &alpha_,
                                       fake_ptr<const void>(0x10000), type, 64, stride_a, fake_ptr<const void>(0x20000),
                                       type, 64, &beta_, c_.data(), type, 32, ends, groups, GEMMKIT_COMPUTE_32F,
                                       epilogue, nullptr);
    }

    void expect_refused(gemmkit_status s, gemmkit_status want, const std::string& arg) {
        EXPECT_EQ(s, want);
        EXPECT_TRUE(names(gemmkit_last_error(), arg)) << gemmkit_last_error();
        EXPECT_TRUE(untouched());
    }

    bool untouched() const {
        for (uint16_t v : c_)
            if (v != kSentinel) return false;
        return true;
    }

    const int32_t* ends_ = fake_ptr<const int32_t>(0x30000);
    float alpha_ = 1.0f, beta_ = 0.0f;
    std::vector<uint16_t> c_;
};

TEST_F(GroupedArgs, RejectsNegativeGroupCount) {
    expect_refused(call(-1, ends_), GEMMKIT_INVALID_VALUE, "group_count");
}

TEST_F(GroupedArgs, RejectsMissingOrMisalignedEnds) {
    expect_refused(call(3, nullptr), GEMMKIT_INVALID_VALUE, "group_ends");
    expect_refused(call(3, fake_ptr<const int32_t>(0x30002)), GEMMKIT_INVALID_VALUE, "group_ends");
}

TEST_F(GroupedArgs, RejectsNegativeOrOverflowingStrideA) {
    expect_refused(call(3, ends_, -1), GEMMKIT_INVALID_VALUE, "stride_a");
    expect_refused(call(3, ends_, int64_t{1} << 60), GEMMKIT_INVALID_VALUE, "stride_a");
}

TEST_F(GroupedArgs, RejectsAnAuxStride) {
    gemmkit_epilogue e = GEMMKIT_EPILOGUE_INIT;
    e.aux = fake_ptr<void>(0x40000);
    e.aux_type = GEMMKIT_R_16BF;
    e.ld_aux = 32;
    e.aux_stride = 32 * 48;
    expect_refused(call(3, ends_, 64 * 32, 64, &e), GEMMKIT_INVALID_VALUE, "aux_stride");
}

TEST_F(GroupedArgs, RefusesWhatTheGroupedKernelDoesNotServe) {
    expect_refused(call(70000, ends_), GEMMKIT_NOT_SUPPORTED, "group_count");
    expect_refused(call(3, ends_, 64 * 32, 0), GEMMKIT_NOT_SUPPORTED, "k");
}

TEST_F(GroupedArgs, NoGroupsIsANoOp) {
    EXPECT_EQ(call(0, nullptr), GEMMKIT_SUCCESS);
    EXPECT_TRUE(untouched());
}

// The problem call() describes, as the plan sees it.
Problem grouped_problem(int64_t groups, gemmkit_dtype type = GEMMKIT_R_16BF) {
    Problem p;
    p.transa = GEMMKIT_OP_T;
    p.m = 4096, p.n = 8192, p.k = 7168;
    p.A = fake_ptr<const void>(0x100000), p.lda = 7168;
    p.B = fake_ptr<const void>(0x200000), p.ldb = 7168;
    p.C = fake_ptr<void>(0x300000), p.ldc = 4096;
    p.a_type = p.b_type = p.c_type = type;
    p.batch.stride_a = int64_t{4096} * 7168;
    p.groups = {fake_ptr<const int32_t>(0x400000), groups};
    return p;
}

TEST(GroupedPlan, AutoTakesTheGroupedRowOfTheType) {
    for (gemmkit_dtype type : {GEMMKIT_R_16BF, GEMMKIT_R_16F}) {
        gemmkit::Plan plan;
        std::string why;
        ASSERT_TRUE(gemmkit::plan_gemm(grouped_problem(8, type), h100_facts(), nullptr, &plan, &why)) << why;
        EXPECT_EQ(std::string(plan.kernel->name),
                  type == GEMMKIT_R_16BF ? "bf16.16_grouped_tma_store" : "f16.16_grouped_tma_store");
    }
}

// The register-epilogue rows run grouped calls when named; auto keeps to the rows it serves.
TEST(GroupedPlan, TheRegisterEpilogueRowsAreNamedOnly) {
    for (const char* name : {"f16.16_grouped", "bf16.16_grouped"}) {
        const gemmkit::KernelInfo* row = gemmkit::find_kernel(name);
        ASSERT_NE(row, nullptr) << name;
        EXPECT_TRUE(row->groups);
        EXPECT_FALSE(row->serves_auto);
        gemmkit::Plan plan;
        std::string why;
        const gemmkit_dtype type = name[0] == 'b' ? GEMMKIT_R_16BF : GEMMKIT_R_16F;
        ASSERT_TRUE(gemmkit::plan_gemm(grouped_problem(8, type), h100_facts(), name, &plan, &why)) << why;
        EXPECT_EQ(plan.kernel, row);
        ASSERT_TRUE(gemmkit::plan_gemm(grouped_problem(8, type), h100_facts(), nullptr, &plan, &why)) << why;
        EXPECT_NE(plan.kernel, row);
    }
}

// The plan decides the epilogue of the _tma_store rows (choose_tma_store); the register rows,
// named, always store from registers.
TEST(GroupedPlan, ThePlanTmaStoresCWhereCTakesIt) {
    using gemmkit::EpiloguePath;
    auto epilogue_of = [](const Problem& p, const char* name) {
        gemmkit::Plan plan;
        std::string why;
        EXPECT_TRUE(gemmkit::plan_gemm(p, h100_facts(), name, &plan, &why)) << why;
        return plan.epilogue;
    };
    for (gemmkit_dtype type : {GEMMKIT_R_16BF, GEMMKIT_R_16F}) {
        EXPECT_EQ(epilogue_of(grouped_problem(8, type), nullptr), EpiloguePath::kTmaStore);
        Problem read = grouped_problem(8, type);
        read.beta = 1.0;
        EXPECT_EQ(epilogue_of(read, nullptr), EpiloguePath::kRegisters);
        Problem odd_ldc = grouped_problem(8, type);
        odd_ldc.ldc = 4097;
        EXPECT_EQ(epilogue_of(odd_ldc, nullptr), EpiloguePath::kRegisters);
        const char* registers = type == GEMMKIT_R_16BF ? "bf16.16_grouped" : "f16.16_grouped";
        EXPECT_EQ(epilogue_of(grouped_problem(8, type), registers), EpiloguePath::kRegisters);
    }
}

TEST(GroupedPlan, GroupedRowsAndOtherRowsKeepApart) {
    const Problem grouped = grouped_problem(8);
    Problem plain = grouped;
    plain.groups = {};
    std::string why;
    for (const gemmkit::KernelInfo& row : gemmkit::registry()) {
        if (row.groups) {
            EXPECT_FALSE(gemmkit::row_supports(row, plain, &why)) << row.name;
            EXPECT_TRUE(contains(why, "grouped calls only")) << why;
        } else {
            EXPECT_FALSE(gemmkit::row_supports(row, grouped, &why)) << row.name;
        }
    }
}

TEST(GroupedPlan, OperandsTmaCannotReadAreNotServed) {
    Problem p = grouped_problem(8);
    p.lda = 7169;  // columns off 16 bytes
    gemmkit::Plan plan;
    std::string why;
    EXPECT_FALSE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why));
    EXPECT_TRUE(contains(why, "TMA")) << why;
    DeviceFacts ampere = h100_facts();
    ampere.sm = 80;
    EXPECT_FALSE(gemmkit::plan_gemm(grouped_problem(8), ampere, nullptr, &plan, &why));
    EXPECT_TRUE(contains(why, "bf16.16_grouped_tma_store: needs sm_90; the device is sm_80")) << why;
    p = grouped_problem(8, GEMMKIT_R_32F);  // no FP32 grouped kernel
    p.compute = GEMMKIT_COMPUTE_32F;
    EXPECT_FALSE(gemmkit::plan_gemm(p, h100_facts(), nullptr, &plan, &why));
}

}  // namespace
