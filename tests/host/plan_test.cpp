// The plan (src/plan/plan.hpp): the golden corpus, and the rules' both sides on a few shapes.
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "plan/configs.hpp"
#include "plan/corpus.hpp"
#include "plan/plan.hpp"
#include "registry.hpp"
#include "test_util.hpp"

namespace gemmkit {
namespace {

Plan plan_of(const std::string& type, gemmkit_op a, gemmkit_op b, int64_t m, int64_t n, int64_t k, int64_t pad = 0,
             bool beta = false, const DeviceFacts& d = test::h100_facts()) {
    Problem p;
    std::string why;
    EXPECT_TRUE(problem_of({type, a, b, m, n, k, pad, beta}, &p, &why)) << why;
    Plan plan;
    EXPECT_TRUE(plan_gemm(p, d, nullptr, &plan, &why)) << why;
    return plan;
}

constexpr gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Every case's plan equals the recorded one: a change to a rule must change the file with it.
TEST(PlanCorpus, MatchesTheGoldenFile) {
    std::ifstream file(GEMMKIT_PLAN_CORPUS);
    ASSERT_TRUE(file) << "cannot read " << GEMMKIT_PLAN_CORPUS;
    std::stringstream golden;
    golden << file.rdbuf();
    const std::vector<std::string> want = lines_of(golden.str()), got = lines_of(corpus_text(test::h100_facts()));
    ASSERT_GE(got.size(), 300u) << "the corpus covers at least 300 problems";
    int shown = 0;
    for (size_t i = 0; i < want.size() && i < got.size() && shown < 10; ++i)
        if (want[i] != got[i]) {
            ADD_FAILURE() << "line " << i + 1 << "\n  recorded: " << want[i] << "\n  planned:  " << got[i];
            ++shown;
        }
    EXPECT_EQ(want.size(), got.size());
    if (shown > 0 || want.size() != got.size())
        ADD_FAILURE() << "if the change is meant: gemmkit plan --corpus > tests/host/plan_corpus.txt, and review the diff";
}

TEST(PlanCorpus, EveryCaseHasAPlanAndAReasonForEachDecision) {
    for (const PlanCase& c : plan_corpus()) {
        SCOPED_TRACE(case_name(c));
        Problem p;
        std::string why;
        ASSERT_TRUE(problem_of(c, &p, &why)) << why;
        Plan plan;
        ASSERT_TRUE(plan_gemm(p, test::h100_facts(), nullptr, &plan, &why)) << why;
        ASSERT_NE(plan.kernel, nullptr);
        // A row auto may serve by level, the tuning table's, or the few-vectors rule's.
        const std::string& first = plan.reasons.front().why;
        EXPECT_TRUE(plan.kernel->serves_auto || first.find("tuning table") != std::string::npos ||
                    (plan.kernel->rules == PlanRules::kFewVectors && first.find("few vectors") != std::string::npos))
            << plan.kernel->name;
        ASSERT_FALSE(plan.reasons.empty());
        EXPECT_EQ(plan.reasons.front().what, "kernel");
        for (const Decision& d : plan.reasons) EXPECT_FALSE(d.why.empty()) << d.what;
    }
}

// A GEMM call plans without reasons (explain false, api.cpp): the same plan, every field, and
// no strings kept.
TEST(PlanCorpus, PlansWithoutReasonsAreTheSamePlans) {
    for (const PlanCase& c : plan_corpus()) {
        SCOPED_TRACE(case_name(c));
        Problem p;
        std::string why;
        ASSERT_TRUE(problem_of(c, &p, &why)) << why;
        Plan explained, bare;
        ASSERT_TRUE(plan_gemm(p, test::h100_facts(), nullptr, &explained, &why, /*explain=*/true)) << why;
        ASSERT_TRUE(plan_gemm(p, test::h100_facts(), nullptr, &bare, &why, /*explain=*/false)) << why;
        EXPECT_EQ(plan_summary(bare), plan_summary(explained));
        EXPECT_EQ(bare.config, explained.config);
        EXPECT_EQ(bare.fallback_config, explained.fallback_config);
        EXPECT_EQ(std::make_tuple(bare.bm, bare.bn, bare.bk, bare.stages, bare.cluster),
                  std::make_tuple(explained.bm, explained.bn, explained.bk, explained.stages, explained.cluster));
        EXPECT_TRUE(bare.reasons.empty());
        EXPECT_FALSE(explained.reasons.empty());
    }
}

TEST(Plan, FewColumnsTakeNarrowTilesOnlyWhereBIsKMajor) {
    const Plan nn = plan_of("bf16", N, N, 4096, 16, 4096);
    EXPECT_STREQ(nn.kernel->name, "bf16.14_sized_tiles");
    EXPECT_EQ(nn.config, static_cast<int>(HopperTiles::kNarrow64x16));
    EXPECT_EQ(nn.bn, 16);
    EXPECT_EQ(nn.epilogue, EpiloguePath::kRegisters);  // narrower than a staged piece
    const Plan nt = plan_of("bf16", N, T, 4096, 16, 4096);
    EXPECT_NE(nt.config, static_cast<int>(HopperTiles::kNarrow64x16));
    EXPECT_EQ(nt.bn, 64);
    // TF32 transposes B of op T first, so it takes the narrow tiles there too.
    const Plan tf32 = plan_of("tf32", N, T, 4096, 16, 4096);
    EXPECT_TRUE(tf32.transpose_b);
    EXPECT_EQ(tf32.config, static_cast<int>(HopperTiles::kNarrow64x16));
}

TEST(Plan, SmallerProblemsTakeSmallerTiles) {
    EXPECT_EQ(plan_of("f16", N, N, 8192, 8192, 8192).config, static_cast<int>(HopperTiles::kStep));
    EXPECT_EQ(plan_of("f16", N, N, 1536, 1536, 1536).config, static_cast<int>(HopperTiles::kMid128x192));
    EXPECT_EQ(plan_of("f16", N, N, 1280, 1280, 1280).config, static_cast<int>(HopperTiles::kSmall128));
    EXPECT_EQ(plan_of("f16", N, N, 1024, 1024, 1024).config, static_cast<int>(HopperTiles::kTiny128x64));
    EXPECT_EQ(plan_of("f16", N, N, 512, 512, 512).config, static_cast<int>(HopperTiles::kMicro64));
    // ...unless stream-K would then cut the small tiles more (small_tiles_pay): 128x64 pairs.
    EXPECT_EQ(plan_of("f16", N, N, 512, 512, 8192).config, static_cast<int>(HopperTiles::kTiny128x64));
}

TEST(Plan, TheSmCountIsAFactNotAConstant) {
    DeviceFacts half = test::h100_facts();
    half.sm_count = 66;
    // 1024^3: 64 pairs of 128x64 fill 66 clusters, but 32 pairs of 128x128 fill 33 as well.
    EXPECT_EQ(plan_of("f16", N, N, 1024, 1024, 1024).config, static_cast<int>(HopperTiles::kTiny128x64));
    const Plan small = plan_of("f16", N, N, 1024, 1024, 1024, 0, false, half);
    EXPECT_EQ(small.config, static_cast<int>(HopperTiles::kSmall128));
    EXPECT_EQ(small.sm_count, 66);
}

TEST(Plan, OperandsTmaCannotReadAreCopiedAndBetaKeepsCInRegisters) {
    const Plan odd = plan_of("f16", N, N, 1000, 1000, 1000, 1);
    EXPECT_TRUE(odd.copy_a && odd.copy_b);
    const Plan packed = plan_of("f16", N, N, 1000, 1000, 1000);
    EXPECT_FALSE(packed.copy_a || packed.copy_b);
    EXPECT_EQ(plan_of("f16", N, N, 4096, 4096, 4096).epilogue, EpiloguePath::kTmaStore);
    EXPECT_EQ(plan_of("f16", N, N, 4096, 4096, 4096, 0, true).epilogue, EpiloguePath::kRegisters);
    // C's columns off 16 bytes (ldc = m + 1): staged as for TMA and copied out by the warpgroup
    // where C is not read, from registers where it is.
    EXPECT_EQ(plan_of("f16", N, N, 2049, 2049, 2049, 1).epilogue, EpiloguePath::kStaged);
    EXPECT_EQ(plan_of("tf32", N, N, 2049, 2049, 2049, 1).epilogue, EpiloguePath::kStaged);
    EXPECT_EQ(plan_of("f16", N, N, 2049, 2049, 2049, 1, true).epilogue, EpiloguePath::kRegisters);
    // FP32 operands whose copies also form C's last row and column (4097 = 16 x 256 + 1).
    const Plan peeled = plan_of("tf32", N, N, 4097, 4097, 4097, 1);
    EXPECT_EQ(peeled.peel_rows, 1);
    EXPECT_EQ(peeled.peel_cols, 1);
}

TEST(Plan, WithoutTheHopperImageTheStepsRunThePipeline) {
    DeviceFacts d = test::h100_facts();
    d.hopper_code = false;
    const Plan plan = plan_of("bf16", N, N, 4096, 4096, 4096, 0, false, d);
    EXPECT_STREQ(plan.kernel->name, "bf16.14_sized_tiles");
    EXPECT_EQ(plan.config, static_cast<int>(HopperTiles::kPipeline));
    EXPECT_EQ(plan.bm, 256);
}

TEST(Plan, Fp64SizesItsTilesAndSplits) {
    EXPECT_EQ(plan_of("f64", N, N, 4096, 16, 4096).config, static_cast<int>(DmmaTiles::kCols16));
    EXPECT_EQ(plan_of("f64", N, N, 16, 4096, 4096).config, static_cast<int>(DmmaTiles::kRows16));
    EXPECT_EQ(plan_of("f64", N, N, 512, 512, 512).config, static_cast<int>(DmmaTiles::k64));
    const Plan big = plan_of("f64", N, N, 4097, 4097, 4097);
    EXPECT_EQ(big.config, static_cast<int>(DmmaTiles::k128));
    EXPECT_EQ(big.split.kind, SplitKind::kStreamK);
    EXPECT_GT(big.split.pieces, 0);
}

TEST(Plan, NamedKernelsArePlannedAndCheckedToo) {
    Problem p;
    std::string why;
    ASSERT_TRUE(problem_of({"f16", N, N, 4096, 4096, 4096, 0, false}, &p, &why));
    Plan plan;
    ASSERT_TRUE(plan_gemm(p, test::h100_facts(), "f16.12_stream_k", &plan, &why)) << why;
    EXPECT_STREQ(plan.kernel->name, "f16.12_stream_k");
    EXPECT_EQ(plan.split.kind, SplitKind::kStreamK);
    EXPECT_FALSE(plan_gemm(p, test::h100_facts(), "sgemm.01_naive", &plan, &why));
    EXPECT_NE(why.find("sgemm.01_naive"), std::string::npos) << why;
    EXPECT_FALSE(plan_gemm(p, test::h100_facts(), "no.such_kernel", &plan, &why));
    DeviceFacts ampere = test::h100_facts();
    ampere.sm = 80;
    EXPECT_FALSE(plan_gemm(p, ampere, "f16.14_sized_tiles", &plan, &why));
    EXPECT_NE(why.find("sm_90"), std::string::npos) << why;
    ASSERT_TRUE(plan_gemm(p, ampere, nullptr, &plan, &why)) << why;
    EXPECT_STREQ(plan.kernel->name, "f16.05_tuned_256x128x32_s4");
}

TEST(Plan, IsTheSameFromManyThreads) {
    const std::string want = corpus_text(test::h100_facts());
    std::vector<std::string> got(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < got.size(); ++i) threads.emplace_back([&got, i] { got[i] = corpus_text(test::h100_facts()); });
    for (std::thread& t : threads) t.join();
    for (const std::string& g : got) EXPECT_TRUE(g == want);
}

TEST(Plan, BuiltInDevicesAreKnownByName) {
    DeviceFacts d;
    for (const std::string& name : builtin_device_names()) {
        ASSERT_TRUE(builtin_device_facts(name, &d)) << name;
        EXPECT_EQ(d.sm, 90);
        EXPECT_EQ(d.sm_count, 132);
    }
    EXPECT_FALSE(builtin_device_facts("a100", &d));
}

// The few-vectors rule (few_vectors_rules.cu): FP32 with at most 16 columns or rows; the form
// follows the layout; k is split only where C's rows leave block slots empty.
TEST(Plan, FewVectorsTakeTheBandwidthKernelWhereItWasMeasuredFaster) {
    const Plan nn = plan_of("f32", N, N, 4096, 16, 4096);
    EXPECT_EQ(std::string(nn.kernel->name), "sgemm.14_few_vectors");
    EXPECT_EQ(nn.config_name, "axpy form, 128 rows a block");
    EXPECT_EQ(nn.split.kind, SplitKind::kSplitK);  // 32 blocks for 264 slots: 8 ranges of 512
    EXPECT_EQ(nn.split.pieces, 8);
    EXPECT_EQ(nn.bk, 512);
    const Plan tn = plan_of("f32", T, N, 14336, 16, 4096);
    EXPECT_EQ(std::string(tn.kernel->name), "sgemm.14_few_vectors");
    EXPECT_EQ(tn.config_name, "dot form, 64 rows a block");
    EXPECT_EQ(tn.split.kind, SplitKind::kNone);  // 224 blocks fill the 132 slots
    const Plan rows_axpy = plan_of("f32", N, T, 16, 4096, 4096);
    EXPECT_EQ(std::string(rows_axpy.kernel->name), "sgemm.14_few_vectors");
    EXPECT_EQ(rows_axpy.config_name, "axpy form, 128 rows a block, C^T");
    const Plan rows_dot = plan_of("f32", N, N, 16, 4096, 4096);
    EXPECT_EQ(std::string(rows_dot.kernel->name), "sgemm.14_few_vectors");
    EXPECT_EQ(rows_dot.config_name, "dot form, 64 rows a block, C^T");
    // The other side of each condition.
    EXPECT_NE(std::string(plan_of("f32", T, N, 4096, 17, 4096).kernel->name), "sgemm.14_few_vectors");  // 17 columns
    EXPECT_NE(std::string(plan_of("f16", T, N, 4096, 16, 4096).kernel->name), "f16.15_few_vectors");    // FP16
    EXPECT_NE(std::string(plan_of("f64", N, N, 4096, 16, 4096).kernel->name), "dgemm.10_few_vectors");  // FP64
    EXPECT_NE(std::string(plan_of("tf32", N, N, 4096, 16, 4096).kernel->name), "sgemm.14_few_vectors");  // TF32
}

}  // namespace
}  // namespace gemmkit
