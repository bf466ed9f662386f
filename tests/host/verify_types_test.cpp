// The type plumbing of the verification harness, which needs no device: the names printed
// beside results, the types a registry row is run with, grouping, and problem_of / describe.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "registry.hpp"
#include "test_util.hpp"
#include "verify/verify.hpp"

namespace {

using gemmkit::KernelInfo;
using gemmkit::test::contains;
using gemmkit::verify::Types;
using gemmkit::verify::types_name;

KernelInfo row(const char* name, gemmkit_dtype dtype, gemmkit_compute compute) {
    KernelInfo info{};
    info.name = name;
    info.dtype = dtype;
    info.compute = compute;
    return info;
}

TEST(TypesName, ShortNamesForEveryFamily) {
    EXPECT_EQ(types_name({}), "f32");
    EXPECT_EQ(types_name({GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F}), "f16");
    EXPECT_EQ(types_name({GEMMKIT_R_16BF, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F}), "bf16");
    EXPECT_EQ(types_name({GEMMKIT_R_16F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F}), "f16->f32");
    EXPECT_EQ(types_name({GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F}), "bf16->f32");
    EXPECT_EQ(types_name({GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32}), "tf32");
    EXPECT_EQ(types_name({GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F}), "f64");
}

// A combination no family uses still says exactly what ran.
TEST(TypesName, UnusualComputeIsNamed) {
    EXPECT_EQ(types_name({GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_64F}), "f32 c64f");
}

TEST(TypesOfRow, HalfRowsWriteTheirOwnTypeUnlessAskedForFp32) {
    const KernelInfo bf16 = row("bf16.x", GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F);
    EXPECT_EQ(gemmkit::verify::types_of(bf16, false), (Types{GEMMKIT_R_16BF, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F}));
    EXPECT_EQ(gemmkit::verify::types_of(bf16, true), (Types{GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F}));
    const KernelInfo f16 = row("f16.x", GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F);
    EXPECT_EQ(gemmkit::verify::types_of(f16, true), (Types{GEMMKIT_R_16F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F}));
}

// --c-type f32 is about 16-bit outputs: the other families keep theirs.
TEST(TypesOfRow, OtherFamiliesIgnoreTheCTypeChoice) {
    for (bool c_f32 : {false, true}) {
        EXPECT_EQ(gemmkit::verify::types_of(row("sgemm.x", GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F), c_f32), Types{});
        EXPECT_EQ(gemmkit::verify::types_of(row("tf32.x", GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32), c_f32),
                  (Types{GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32}));
        EXPECT_EQ(gemmkit::verify::types_of(row("dgemm.x", GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F), c_f32),
                  (Types{GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F}));
    }
}

TEST(GroupByTypes, GroupsInOrderOfFirstAppearanceKeepingRowOrder) {
    const KernelInfo s1 = row("sgemm.1", GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F);
    const KernelInfo h1 = row("f16.1", GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F);
    const KernelInfo s2 = row("sgemm.2", GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F);
    const KernelInfo b1 = row("bf16.1", GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F);
    const KernelInfo h2 = row("f16.2", GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F);
    const std::vector<const KernelInfo*> rows = {&s1, &h1, &s2, &b1, &h2};
    const auto groups = gemmkit::verify::group_by_types(rows, false);
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(types_name(groups[0].types), "f32");
    EXPECT_EQ(groups[0].kernels, (std::vector<const KernelInfo*>{&s1, &s2}));
    EXPECT_EQ(types_name(groups[1].types), "f16");
    EXPECT_EQ(groups[1].kernels, (std::vector<const KernelInfo*>{&h1, &h2}));
    EXPECT_EQ(types_name(groups[2].types), "bf16");
    EXPECT_EQ(groups[2].kernels, (std::vector<const KernelInfo*>{&b1}));
    EXPECT_TRUE(gemmkit::verify::group_by_types({}, false).empty());
}

TEST(GroupByTypes, FloatOutputChoiceRenamesTheHalfGroups) {
    const KernelInfo h1 = row("f16.1", GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F);
    const KernelInfo b1 = row("bf16.1", GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F);
    const auto groups = gemmkit::verify::group_by_types({&h1, &b1}, true);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(types_name(groups[0].types), "f16->f32");
    EXPECT_EQ(types_name(groups[1].types), "bf16->f32");
}

// The registry's own rows all have a name for their types, but the FP8 rows, which the Checker
// cannot feed (FP8 data and scales: fp8_gpu_test.cpp) and group_by_types leaves out.
TEST(GroupByTypes, EveryRegistryRowButFp8HasAGroup) {
    std::vector<const KernelInfo*> rows;
    size_t fp8_rows = 0;
    for (const KernelInfo& info : gemmkit::registry()) {
        rows.push_back(&info);
        fp8_rows += gemmkit::fp8(info.dtype);
    }
    EXPECT_GT(fp8_rows, 0u);
    size_t grouped = 0;
    for (const auto& g : gemmkit::verify::group_by_types(rows, false)) {
        grouped += g.kernels.size();
        EXPECT_FALSE(types_name(g.types).empty());
        for (const KernelInfo* k : g.kernels) EXPECT_FALSE(gemmkit::fp8(k->dtype)) << k->name;
    }
    EXPECT_EQ(grouped + fp8_rows, rows.size());
}

TEST(ProblemOf, CarriesTheCaseTypes) {
    gemmkit::verify::Case c = gemmkit::verify::make_case(GEMMKIT_OP_T, GEMMKIT_OP_N, 7, 8, 9, 1);
    c = gemmkit::verify::with_types(c, {GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F});
    const gemmkit::Problem p = gemmkit::verify::problem_of(c);
    EXPECT_EQ(p.a_type, GEMMKIT_R_16BF);
    EXPECT_EQ(p.b_type, GEMMKIT_R_16BF);
    EXPECT_EQ(p.c_type, GEMMKIT_R_32F);
    EXPECT_EQ(p.compute, GEMMKIT_COMPUTE_32F);
    EXPECT_EQ(p.lda, 9);  // op T: A is stored k x m
    EXPECT_EQ(p.ldc, 7);
    EXPECT_EQ(gemmkit::verify::types_of(c), (Types{GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F}));
}

// alpha and beta reach the kernel in the compute type: the reference must use those values.
TEST(ProblemOf, ScalarsAreRoundedToTheComputeType) {
    gemmkit::verify::Case c = gemmkit::verify::make_case(GEMMKIT_OP_N, GEMMKIT_OP_N, 4, 4, 4, 1);
    c.alpha = 0.1;
    c.beta = -1.0 / 3.0;
    const gemmkit::Problem p32 = gemmkit::verify::problem_of(c);
    EXPECT_EQ(p32.alpha, static_cast<double>(0.1f));
    EXPECT_EQ(p32.beta, static_cast<double>(static_cast<float>(-1.0 / 3.0)));
    c = gemmkit::verify::with_types(c, {GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F});
    const gemmkit::Problem p64 = gemmkit::verify::problem_of(c);
    EXPECT_EQ(p64.alpha, 0.1);
    EXPECT_EQ(p64.beta, -1.0 / 3.0);
}

TEST(DescribeCase, PlainFp32SaysNoTypes) {
    const auto c = gemmkit::verify::make_case(GEMMKIT_OP_N, GEMMKIT_OP_T, 127, 129, 33, 5);
    const std::string text = gemmkit::verify::describe(c);
    EXPECT_EQ(text.rfind("NT 127x129x33", 0), 0u) << text;
    EXPECT_TRUE(contains(text, "seed=5"));
}

TEST(DescribeCase, OtherTypesLeadTheLine) {
    auto c = gemmkit::verify::make_case(GEMMKIT_OP_N, GEMMKIT_OP_T, 127, 129, 33, 5);
    const auto starts = [&](const Types& t, const std::string& prefix) {
        const std::string text = gemmkit::verify::describe(gemmkit::verify::with_types(c, t));
        EXPECT_EQ(text.rfind(prefix, 0), 0u) << text;
    };
    starts({GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F}, "bf16->f32 NT 127x129x33");
    starts({GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F}, "f16 NT 127x129x33");
    starts({GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32}, "tf32 NT");
    starts({GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F}, "f64 NT");
}

}  // namespace
