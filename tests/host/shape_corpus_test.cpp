// The shape corpus of `gemmkit bench --suite shapes` (issue 43, "No cliffs"): its size, that every
// class the issue names is there with the shapes it names, its byte arithmetic, that auto has a
// kernel for every row and type on sm_90; and the command line of the suite.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "cli_args.hpp"
#include "cli_test_util.hpp"
#include "registry.hpp"
#include "shape_corpus.hpp"
#include "test_util.hpp"
#include "verify/verify.hpp"

namespace {

using gemmkit::cli::CorpusShape;
using gemmkit::cli::shape_corpus;
using gemmkit::test::contains;
using gemmkit::test::Parsed;
using gemmkit::test::parse;

constexpr gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;

// Whether the corpus has the row m x n x k with these ops (any class, any ld_pad).
bool has(int64_t m, int64_t n, int64_t k, gemmkit_op a, gemmkit_op b) {
    return std::any_of(shape_corpus().begin(), shape_corpus().end(), [&](const CorpusShape& s) {
        return s.m == m && s.n == n && s.k == k && s.a == a && s.b == b;
    });
}

std::vector<CorpusShape> of_class(const std::string& shape_class) {
    std::vector<CorpusShape> out;
    for (const CorpusShape& s : shape_corpus())
        if (shape_class == s.shape_class) out.push_back(s);
    return out;
}

// Enough to find cliffs, little enough to run within about 4 minutes on an H100.
TEST(ShapeCorpus, HasSixtyToSeventyFiveRows) {
    EXPECT_GE(shape_corpus().size(), 60u);
    EXPECT_LE(shape_corpus().size(), 75u);
}

TEST(ShapeCorpus, EveryClassTheIssueNamesHasRows) {
    const std::map<std::string, size_t> at_least = {{"cube", 8},     {"few-vectors", 20}, {"deep-k", 2}, {"wide-k", 2},
                                                     {"unaligned", 6}, {"all-ops", 4},      {"big", 2}};
    const std::vector<std::string>& classes = gemmkit::cli::corpus_classes();
    EXPECT_EQ(std::set<std::string>(classes.begin(), classes.end()).size(), at_least.size());
    for (const auto& [shape_class, least] : at_least) {
        EXPECT_NE(std::find(classes.begin(), classes.end(), shape_class), classes.end()) << shape_class;
        EXPECT_GE(of_class(shape_class).size(), least) << shape_class;
    }
    for (const CorpusShape& s : shape_corpus())
        EXPECT_NE(std::find(classes.begin(), classes.end(), s.shape_class), classes.end()) << s.shape_class;
}

TEST(ShapeCorpus, SizesArePositiveAndPadsSmall) {
    for (const CorpusShape& s : shape_corpus()) {
        EXPECT_GT(s.m, 0);
        EXPECT_GT(s.n, 0);
        EXPECT_GT(s.k, 0);
        EXPECT_GE(s.ld_pad, 0);
        EXPECT_LE(s.ld_pad, 3);
    }
}

TEST(ShapeCorpus, NoRowTwice) {
    std::set<std::tuple<int64_t, int64_t, int64_t, int, int, int64_t>> seen;
    for (const CorpusShape& s : shape_corpus())
        EXPECT_TRUE(seen.insert({s.m, s.n, s.k, s.a, s.b, s.ld_pad}).second)
            << s.shape_class << " " << s.m << "x" << s.n << "x" << s.k;
}

// Weights times 1 .. 128 vectors, as TN (weights are A, n vectors) and as NN (m vectors).
TEST(ShapeCorpus, FewVectorRowsCoverOneToOneHundredTwentyEightVectorsInTnAndNn) {
    const std::vector<CorpusShape> rows = of_class("few-vectors");
    for (int64_t v : {1, 8, 16, 32, 64, 128}) {
        EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const CorpusShape& s) {
            return s.n == v && s.a == T && s.b == N;
        })) << "n = " << v << " TN";
        EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const CorpusShape& s) {
            return s.m == v && s.a == N && s.b == N;
        })) << "m = " << v << " NN";
    }
    for (const CorpusShape& s : rows) EXPECT_LE(std::min(s.m, s.n), 128) << s.m << "x" << s.n << "x" << s.k;
}

TEST(ShapeCorpus, TransformerSizesAppear) {
    for (int64_t size : {4096, 8192, 14336, 28672}) {
        const std::vector<CorpusShape> rows = of_class("few-vectors");
        EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const CorpusShape& s) {
            return s.m == size || s.n == size || s.k == size;
        })) << size;
    }
    EXPECT_TRUE(has(4096, 16, 4096, T, N));
    EXPECT_TRUE(has(14336, 16, 4096, T, N));
    EXPECT_TRUE(has(28672, 16, 8192, T, N));
    EXPECT_TRUE(has(4096, 1, 4096, T, N));
    EXPECT_TRUE(has(4096, 128, 4096, T, N));
    EXPECT_TRUE(has(16, 4096, 4096, N, N));
    EXPECT_TRUE(has(128, 4096, 4096, N, N));
}

TEST(ShapeCorpus, CubesDeepKWideKAndBigRows) {
    for (int64_t size : {256, 768, 1000, 1024, 1536}) EXPECT_TRUE(has(size, size, size, N, N)) << size;
    EXPECT_TRUE(has(512, 512, 8192, N, N));
    EXPECT_TRUE(has(256, 256, 16384, N, N));
    EXPECT_TRUE(has(4096, 4096, 1024, N, N));
    EXPECT_TRUE(has(16384, 16384, 1024, N, N));
    EXPECT_TRUE(has(8192, 8192, 8192, N, N));
}

TEST(ShapeCorpus, FourOpsOnTheBigCubeAndEveryOpSomewhere) {
    std::set<std::string> ops;
    for (const CorpusShape& s : shape_corpus()) ops.insert(gemmkit::ops_name(s.a, s.b));
    EXPECT_EQ(ops, (std::set<std::string>{"NN", "NT", "TN", "TT"}));
    for (gemmkit_op a : {N, T})
        for (gemmkit_op b : {N, T}) EXPECT_TRUE(has(4096, 4096, 4096, a, b)) << gemmkit::ops_name(a, b);
}

TEST(ShapeCorpus, UnalignedRowsHaveOddSizesAndPaddedLeadingDimensions) {
    const std::vector<CorpusShape> rows = of_class("unaligned");
    EXPECT_TRUE(has(4097, 4097, 4097, N, N));
    for (int64_t pad : {1, 3})
        EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const CorpusShape& s) { return s.ld_pad == pad; }))
            << "ld_pad " << pad;
    for (const CorpusShape& s : rows)
        EXPECT_TRUE(s.ld_pad > 0 || s.m % 2 == 1 || s.n % 2 == 1 || s.k % 2 == 1) << s.m << "x" << s.n << "x" << s.k;
}

// The repeat check times the first kRepeatedRows again: FP16 1024^3 (the issue's 0.32x) and a
// few-vector row of each op lead the corpus.
TEST(ShapeCorpus, RepeatedRowsAreThe1024CubeAndFewVectorRows) {
    ASSERT_GE(shape_corpus().size(), gemmkit::cli::kRepeatedRows);
    ASSERT_GE(gemmkit::cli::kRepeatedRows, 2u);
    const CorpusShape& first = shape_corpus()[0];
    EXPECT_EQ(std::tie(first.m, first.n, first.k), std::make_tuple(int64_t{1024}, int64_t{1024}, int64_t{1024}));
    std::set<std::string> few_vector_ops;
    for (size_t i = 0; i < gemmkit::cli::kRepeatedRows; ++i)
        if (std::string(shape_corpus()[i].shape_class) == "few-vectors")
            few_vector_ops.insert(gemmkit::ops_name(shape_corpus()[i].a, shape_corpus()[i].b));
    EXPECT_EQ(few_vector_ops, (std::set<std::string>{"NN", "TN"}));
}

TEST(ShapeCorpus, TheFiveTypesInOrder) {
    std::vector<std::string> names;
    for (const gemmkit::cli::CorpusType& t : gemmkit::cli::corpus_types()) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"f32", "tf32", "f16", "bf16", "f64"}));
    const gemmkit::cli::CorpusType& tf32 = gemmkit::cli::corpus_types()[1];
    EXPECT_EQ(tf32.ab, GEMMKIT_R_32F);
    EXPECT_EQ(tf32.compute, GEMMKIT_COMPUTE_32F_FAST_TF32);
}

TEST(ShapeCorpus, OperandBytesCountEachMatrixOnce) {
    // FP16 4096 x 16 x 4096: A 4096 x 4096, B 4096 x 16, C 4096 x 16, two bytes each.
    EXPECT_DOUBLE_EQ(gemmkit::cli::operand_bytes(4096, 16, 4096, 2, 2), 2.0 * (4096.0 * 4096 + 2 * 4096.0 * 16));
    // FP16 in, FP32 C.
    EXPECT_DOUBLE_EQ(gemmkit::cli::operand_bytes(8, 4, 2, 2, 4), 2.0 * (8 * 2 + 2 * 4) + 4.0 * 8 * 4);
    // A cube of FP32: 2n^3 / 12n^2 = n / 6.
    EXPECT_DOUBLE_EQ(gemmkit::cli::arithmetic_intensity(1200, 1200, 1200, 4, 4), 200.0);
    // Few vectors stay below the H100's FP16 ridge point (~295 FLOP/B), a large cube far above.
    EXPECT_LT(gemmkit::cli::arithmetic_intensity(4096, 128, 4096, 2, 2), 295.0);
    EXPECT_GT(gemmkit::cli::arithmetic_intensity(4096, 4096, 4096, 2, 2), 295.0);
}

// A row auto cannot serve would only be reported "skipped" on the GPU: find it here.
TEST(ShapeCorpus, AutoHasAKernelForEveryRowAndTypeOnSm90) {
    for (const CorpusShape& s : shape_corpus()) {
        for (const gemmkit::cli::CorpusType& t : gemmkit::cli::corpus_types()) {
            gemmkit::verify::Case c = gemmkit::verify::make_case(s.a, s.b, s.m, s.n, s.k, 1);
            c = gemmkit::verify::with_types(c, {t.ab, t.c, t.compute});
            c.ld_pad = s.ld_pad;
            std::string why;
            EXPECT_NE(gemmkit::choose_kernel(gemmkit::verify::problem_of(c), 90, &why), nullptr)
                << t.name << " " << gemmkit::verify::describe(c) << ": " << why;
        }
    }
}

TEST(CliArgsShapeSuite, SuiteShapesParsesAndLadderIsTheDefault) {
    EXPECT_EQ(parse({"bench"}).opt.suite, "ladder");
    const Parsed r = parse({"bench", "--suite", "shapes"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.suite, "shapes");
    EXPECT_TRUE(r.opt.types.empty());
    const Parsed eq = parse({"bench", "--suite=ladder"});
    ASSERT_TRUE(eq.ok) << eq.err;
    EXPECT_EQ(eq.opt.suite, "ladder");
}

TEST(CliArgsShapeSuite, BadSuiteIsAnErrorNamingTheOptionAndValue) {
    for (const char* bad : {"shape", "Shapes", "", "shapes,ladder"}) {
        const Parsed r = parse({"bench", "--suite", bad});
        EXPECT_FALSE(r.ok) << bad;
        EXPECT_TRUE(contains(r.err, "--suite")) << bad;
        EXPECT_TRUE(contains(r.err, std::string("'") + bad + "'")) << bad;
    }
    const Parsed missing = parse({"bench", "--suite"});
    EXPECT_FALSE(missing.ok);
    EXPECT_TRUE(contains(missing.err, "--suite"));
}

TEST(CliArgsShapeSuite, SuiteIsForBenchOnly) {
    const Parsed r = parse({"verify", "--suite", "shapes"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--suite"));
}

TEST(CliArgsShapeSuite, TypesAreASubsetInTheOrderGiven) {
    const Parsed r = parse({"bench", "--suite", "shapes", "--types", "f64,f16"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.types, (std::vector<std::string>{"f64", "f16"}));
    for (const char* bad : {"fp16", "f16,f8", "f16,f16", "", "f16,"}) {
        const Parsed b = parse({"bench", "--suite", "shapes", "--types", bad});
        EXPECT_FALSE(b.ok) << bad;
        EXPECT_TRUE(contains(b.err, "--types")) << bad << ": " << b.err;
    }
    EXPECT_TRUE(contains(parse({"bench", "--suite", "shapes", "--types", "f16,f8"}).err, "'f8'"));
}

TEST(CliArgsShapeSuite, TypesNeedTheShapeSuite) {
    const Parsed r = parse({"bench", "--types", "f16"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--types"));
    EXPECT_TRUE(contains(r.err, "--suite shapes"));
}

// The corpus fixes shapes, ops, kernels and types: options that would choose them are errors.
TEST(CliArgsShapeSuite, OptionsTheCorpusFixesAreErrors) {
    for (std::vector<const char*> extra : std::vector<std::vector<const char*>>{
             {"--mnk", "64"}, {"--m", "64"}, {"--ops", "NN"}, {"--kernels", "sgemm.*"}, {"--c-type", "f32"},
             {"--json", "x.json"}, {"--samples", "x.csv"}}) {
        std::vector<const char*> args = {"bench", "--suite", "shapes"};
        args.insert(args.end(), extra.begin(), extra.end());
        const Parsed r = parse(args);
        EXPECT_FALSE(r.ok) << extra[0];
        EXPECT_TRUE(contains(r.err, extra[0])) << r.err;
        EXPECT_TRUE(contains(r.err, "--suite shapes")) << r.err;
    }
    const Parsed ok = parse({"bench", "--suite", "shapes", "--csv", "x.csv", "--iters", "5", "--seed", "3", "--quiet"});
    EXPECT_TRUE(ok.ok) << ok.err;
}

// The suite has timing defaults of its own, used where the options are not given.
TEST(CliArgsShapeSuite, TimingOptionsAreKnownAsGiven) {
    const Parsed r = parse({"bench", "--suite", "shapes", "--iters", "20"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_TRUE(gemmkit::cli::was_given(r.opt, "--iters"));
    EXPECT_FALSE(gemmkit::cli::was_given(r.opt, "--warmup"));
    EXPECT_FALSE(gemmkit::cli::was_given(r.opt, "--max-seconds"));
    EXPECT_FALSE(gemmkit::cli::was_given(parse({"bench"}).opt, "--iters"));
}

TEST(CliArgsShapeSuite, BenchHelpNamesTheSuiteAndItsTypes) {
    const std::string help = gemmkit::cli::command_help(*gemmkit::cli::find_command("bench"));
    EXPECT_TRUE(contains(help, "--suite ladder|shapes"));
    EXPECT_TRUE(contains(help, "--types LIST"));
    EXPECT_TRUE(contains(help, "f32,tf32,f16,bf16,f64"));
}

}  // namespace
