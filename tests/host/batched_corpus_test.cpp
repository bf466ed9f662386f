// The batched corpus of `gemmkit bench --suite batched`: the issue's five torch.bmm rows as the
// column-major GEMMs cuBLAS gets from torch, the other classes, each row's layout (leading
// dimensions, strides that keep the problems' C apart, allocations that hold the last problem),
// its FLOP and byte arithmetic, that auto has a kernel that takes batches for every row and type
// on an H100; and the command line of the suite.
#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "batched_corpus.hpp"
#include "cli_args.hpp"
#include "cli_test_util.hpp"
#include "plan/plan.hpp"
#include "registry.hpp"
#include "shape_corpus.hpp"
#include "test_util.hpp"

namespace {

using gemmkit::cli::BatchedShape;
using gemmkit::cli::BatchLayout;
using gemmkit::cli::batched_corpus;
using gemmkit::cli::layout_of;
using gemmkit::cli::matrix_extent;
using gemmkit::test::contains;
using gemmkit::test::Parsed;
using gemmkit::test::parse;

constexpr gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;

std::vector<BatchedShape> of_class(const std::string& row_class) {
    std::vector<BatchedShape> out;
    for (const BatchedShape& s : batched_corpus())
        if (row_class == s.row_class) out.push_back(s);
    return out;
}

std::string name_of(const BatchedShape& s) {
    return std::string(s.row_class) + " " + std::to_string(s.batch) + " x " + std::to_string(s.m) + "x" +
           std::to_string(s.n) + "x" + std::to_string(s.k) + " " + gemmkit::cli::layout_name(s);
}

// The issue's rows as it writes them: batch x (M x N x K) of torch.bmm((batch, M, K), (batch, K, N)).
struct BmmRow {
    int64_t batch, M, N, K;
};
const std::vector<BmmRow> kIssueRows = {
    {64, 512, 512, 128}, {64, 512, 128, 512}, {512, 128, 128, 128}, {1024, 64, 64, 64}, {16, 2048, 2048, 2048}};

// torch hands cuBLAS C^T = w^T x^T: m = N, n = M, NN, and torch's contiguous leading dimensions
// and strides.
TEST(BatchedCorpus, IssueRowsAreTheFiveBmmShapesAsTorchCallsCublas) {
    const std::vector<BatchedShape> issue = of_class("issue");
    ASSERT_EQ(issue.size(), kIssueRows.size());
    for (const BmmRow& want : kIssueRows) {
        const auto row = std::find_if(issue.begin(), issue.end(), [&](const BatchedShape& s) {
            return std::tie(s.batch, s.m, s.n, s.k) == std::tie(want.batch, want.N, want.M, want.K);
        });
        ASSERT_NE(row, issue.end()) << want.batch << " x " << want.M << "x" << want.N << "x" << want.K;
        EXPECT_EQ(row->a, N);
        EXPECT_EQ(row->b, N);
        EXPECT_EQ(gemmkit::cli::layout_name(*row), "tight");
        const BatchLayout l = layout_of(*row);
        EXPECT_EQ(std::tie(l.lda, l.ldb, l.ldc), std::tie(want.N, want.K, want.N));
        EXPECT_EQ(l.stride_a, want.K * want.N);  // w: (batch, K, N)
        EXPECT_EQ(l.stride_b, want.M * want.K);  // x: (batch, M, K)
        EXPECT_EQ(l.stride_c, want.M * want.N);  // out: (batch, M, N)
    }
    // The one row where the swap shows: M = 512, N = 128 is m = 128, n = 512.
    const BatchedShape swapped = gemmkit::cli::from_bmm("issue", 64, 512, 128, 512);
    EXPECT_EQ(std::tie(swapped.m, swapped.n, swapped.k), std::make_tuple(int64_t{128}, int64_t{512}, int64_t{512}));
}

TEST(BatchedCorpus, EveryClassHasRowsAndEveryRowAClass) {
    const std::vector<std::string>& classes = gemmkit::cli::batched_classes();
    EXPECT_EQ(std::set<std::string>(classes.begin(), classes.end()).size(), classes.size());
    for (const std::string& c : classes) EXPECT_FALSE(of_class(c).empty()) << c;
    for (const BatchedShape& s : batched_corpus())
        EXPECT_NE(std::find(classes.begin(), classes.end(), s.row_class), classes.end()) << s.row_class;
    // A dozen rows: x 5 types, a few minutes on an H100.
    EXPECT_GE(batched_corpus().size(), 10u);
    EXPECT_LE(batched_corpus().size(), 16u);
}

TEST(BatchedCorpus, NoRowTwice) {
    std::set<std::tuple<int64_t, int64_t, int64_t, int64_t, int, int, int64_t, int64_t, bool, bool>> seen;
    for (const BatchedShape& s : batched_corpus())
        EXPECT_TRUE(seen.insert({s.batch, s.m, s.n, s.k, s.a, s.b, s.ld_pad, s.stride_pad, s.broadcast_b,
                                 s.pointer_arrays})
                        .second)
            << name_of(s);
}

TEST(BatchedCorpus, TheOtherClassesHoldWhatTheyAreNamedFor) {
    EXPECT_TRUE(std::any_of(batched_corpus().begin(), batched_corpus().end(), [](const BatchedShape& s) {
        return s.batch == 7 && s.m == 33 && s.n == 65 && s.k == 129;
    }));
    for (const BatchedShape& s : of_class("odd")) EXPECT_TRUE(s.m % 2 == 1 && s.n % 2 == 1 && s.k % 2 == 1) << name_of(s);
    for (const BatchedShape& s : of_class("broadcast-b")) {
        EXPECT_TRUE(s.broadcast_b) << name_of(s);
        EXPECT_EQ(layout_of(s).stride_b, 0) << name_of(s);
        EXPECT_GT(layout_of(s).stride_a, 0) << name_of(s);
    }
    // Padded: gaps between problems, one that keeps 16-byte alignment for every type and one
    // that keeps none.
    const std::vector<BatchedShape> padded = of_class("padded");
    for (const BatchedShape& s : padded) EXPECT_GT(s.stride_pad, 0) << name_of(s);
    EXPECT_TRUE(std::any_of(padded.begin(), padded.end(), [](const BatchedShape& s) {
        const BatchLayout l = layout_of(s);
        return l.stride_a % 8 == 0 && l.stride_b % 8 == 0 && l.stride_c % 8 == 0;
    }));
    EXPECT_TRUE(std::any_of(padded.begin(), padded.end(), [](const BatchedShape& s) {
        const BatchLayout l = layout_of(s);
        return s.ld_pad > 0 && l.stride_a % 2 == 1 && l.stride_c % 2 == 1;
    }));
    EXPECT_TRUE(std::any_of(batched_corpus().begin(), batched_corpus().end(),
                            [](const BatchedShape& s) { return s.a == T && s.b == N; }));
    // Pointer arrays over the same matrices as a strided issue row, so the two compare directly.
    const std::vector<BatchedShape> pointers = of_class("pointers");
    ASSERT_FALSE(pointers.empty());
    for (const BatchedShape& s : pointers) {
        EXPECT_TRUE(s.pointer_arrays) << name_of(s);
        EXPECT_TRUE(std::any_of(batched_corpus().begin(), batched_corpus().end(), [&](const BatchedShape& t) {
            return !t.pointer_arrays && std::tie(t.batch, t.m, t.n, t.k, t.a, t.b) == std::tie(s.batch, s.m, s.n, s.k, s.a, s.b);
        })) << name_of(s);
    }
    for (const BatchedShape& s : batched_corpus()) {
        if (std::string(s.row_class) != "pointers") {
            EXPECT_FALSE(s.pointer_arrays) << name_of(s);
        }
    }
}

TEST(BatchedCorpus, LeadingDimensionsHoldTheStoredRowsPlusThePad) {
    for (const BatchedShape& s : batched_corpus()) {
        EXPECT_GT(s.batch, 1) << name_of(s);
        EXPECT_GT(s.m, 0);
        EXPECT_GT(s.n, 0);
        EXPECT_GT(s.k, 0);
        const BatchLayout l = layout_of(s);
        EXPECT_EQ(l.lda, (s.a == N ? s.m : s.k) + s.ld_pad) << name_of(s);
        EXPECT_EQ(l.ldb, (s.b == N ? s.k : s.n) + s.ld_pad) << name_of(s);
        EXPECT_EQ(l.ldc, s.m + s.ld_pad) << name_of(s);
    }
}

// Problem z's C is [z stride_c, z stride_c + extent): the next one starts past its last element,
// which is what gemmkit_gemm_strided_batched_ex requires (stride_c >= ldc (n - 1) + m). A and B
// may overlap by the API, but the corpus's do not, except a B shared on purpose.
TEST(BatchedCorpus, StridesKeepEveryProblemsMatricesApart) {
    for (const BatchedShape& s : batched_corpus()) {
        const BatchLayout l = layout_of(s);
        const int64_t extent_c = matrix_extent(s.m, s.n, l.ldc);
        EXPECT_GE(l.stride_c, extent_c) << name_of(s);
        EXPECT_EQ(l.stride_c, l.ldc * s.n + s.stride_pad) << name_of(s);
        for (int64_t z = 0; z + 1 < s.batch; ++z) {
            ASSERT_LT(z * l.stride_c + extent_c - 1, (z + 1) * l.stride_c) << name_of(s) << " problem " << z;
        }
        EXPECT_GE(l.stride_a, matrix_extent(s.a == N ? s.m : s.k, s.a == N ? s.k : s.m, l.lda)) << name_of(s);
        if (!s.broadcast_b) {
            EXPECT_GE(l.stride_b, matrix_extent(s.b == N ? s.k : s.n, s.b == N ? s.n : s.k, l.ldb)) << name_of(s);
        }
    }
}

// Each allocation ends with its last problem's matrix: every problem is inside, nothing is spare.
TEST(BatchedCorpus, AllocationsEndAtTheLastProblemsMatrix) {
    for (const BatchedShape& s : batched_corpus()) {
        const BatchLayout l = layout_of(s);
        const int64_t extent_a = matrix_extent(s.a == N ? s.m : s.k, s.a == N ? s.k : s.m, l.lda);
        const int64_t extent_b = matrix_extent(s.b == N ? s.k : s.n, s.b == N ? s.n : s.k, l.ldb);
        EXPECT_EQ(l.a_elements, (s.batch - 1) * l.stride_a + extent_a) << name_of(s);
        EXPECT_EQ(l.b_elements, (s.batch - 1) * l.stride_b + extent_b) << name_of(s);
        EXPECT_EQ(l.c_elements, (s.batch - 1) * l.stride_c + matrix_extent(s.m, s.n, l.ldc)) << name_of(s);
    }
    // A tight 3 x (4 x 5 x 6) NN batch: A 4 x 6, B 6 x 5, C 4 x 5, back to back.
    const BatchLayout tight = layout_of({"odd", 3, 4, 5, 6, N, N});
    EXPECT_EQ(std::tie(tight.stride_a, tight.stride_b, tight.stride_c), std::make_tuple(int64_t{24}, int64_t{30}, int64_t{20}));
    EXPECT_EQ(std::tie(tight.a_elements, tight.b_elements, tight.c_elements),
              std::make_tuple(int64_t{72}, int64_t{90}, int64_t{60}));
    // ld + 1 and 2 elements of gap: C's ldc 5, extent 5 * 4 + 4 = 24, stride 5 * 5 + 2 = 27.
    const BatchLayout padded = layout_of({.row_class = "padded", .batch = 3, .m = 4, .n = 5, .k = 6, .a = T, .b = N,
                                          .ld_pad = 1, .stride_pad = 2});
    EXPECT_EQ(padded.lda, 7);  // A stored k x m: 6 rows + 1
    EXPECT_EQ(padded.stride_a, 7 * 4 + 2);
    EXPECT_EQ(padded.stride_c, 27);
    EXPECT_EQ(padded.c_elements, 2 * 27 + 24);
    // A shared B is one matrix.
    const BatchLayout shared = layout_of({.row_class = "broadcast-b", .batch = 3, .m = 4, .n = 5, .k = 6, .a = N,
                                          .b = N, .broadcast_b = true});
    EXPECT_EQ(shared.stride_b, 0);
    EXPECT_EQ(shared.b_elements, 30);
}

TEST(BatchedCorpus, FlopsAndBytes) {
    // The issue's largest row: 16 x 2048^3.
    const BatchedShape big = gemmkit::cli::from_bmm("issue", 16, 2048, 2048, 2048);
    EXPECT_DOUBLE_EQ(gemmkit::cli::batched_flops(big), 2.0 * 2048 * 2048 * 2048 * 16);
    // BF16 64 x (m 128, n 512, k 512): A 128 x 512, B 512 x 512, C 128 x 512, each 64 times.
    const BatchedShape rect = gemmkit::cli::from_bmm("issue", 64, 512, 128, 512);
    EXPECT_DOUBLE_EQ(gemmkit::cli::batched_flops(rect), 2.0 * 128 * 512 * 512 * 64);
    EXPECT_DOUBLE_EQ(gemmkit::cli::batched_bytes(rect, 2, 2),
                     2.0 * 64 * (128.0 * 512 + 512.0 * 512) + 2.0 * 64 * 128 * 512);
    // FP16 A and B, FP32 C.
    const BatchedShape small{"odd", 3, 4, 5, 6, N, N};
    EXPECT_DOUBLE_EQ(gemmkit::cli::batched_bytes(small, 2, 4), 2.0 * 3 * (4 * 6 + 6 * 5) + 4.0 * 3 * 4 * 5);
    // A shared B is read once, however many problems read it.
    BatchedShape shared = small;
    shared.broadcast_b = true;
    EXPECT_DOUBLE_EQ(gemmkit::cli::batched_bytes(shared, 2, 4), 2.0 * (3 * 4 * 6 + 6 * 5) + 4.0 * 3 * 4 * 5);
    EXPECT_DOUBLE_EQ(gemmkit::cli::batched_flops(shared), gemmkit::cli::batched_flops(small));
    // Padding moves no useful bytes.
    BatchedShape padded = small;
    padded.ld_pad = 3;
    padded.stride_pad = 5;
    EXPECT_DOUBLE_EQ(gemmkit::cli::batched_bytes(padded, 2, 4), gemmkit::cli::batched_bytes(small, 2, 4));
}

TEST(BatchedCorpus, LayoutNames) {
    EXPECT_EQ(gemmkit::cli::layout_name({"odd", 3, 4, 5, 6, N, N}), "tight");
    EXPECT_EQ(gemmkit::cli::layout_name({.row_class = "padded", .batch = 3, .m = 4, .n = 5, .k = 6, .a = N, .b = N,
                                         .ld_pad = 3, .stride_pad = 5}),
              "ld+3 stride+5");
    EXPECT_EQ(gemmkit::cli::layout_name({.row_class = "broadcast-b", .batch = 3, .m = 4, .n = 5, .k = 6, .a = N,
                                         .b = N, .broadcast_b = true}),
              "B shared");
    EXPECT_EQ(gemmkit::cli::layout_name({.row_class = "pointers", .batch = 3, .m = 4, .n = 5, .k = 6, .a = N, .b = N,
                                         .pointer_arrays = true}),
              "pointers");
}

// A row auto cannot serve would only be reported "skipped" on the GPU: find it here. The
// operands sit at address 0 (aligned to anything), so only the strides decide alignment, as on
// the device, whose allocations are 256-byte aligned.
TEST(BatchedCorpus, AutoHasAKernelThatTakesBatchesForEveryRowAndTypeOnAnH100) {
    gemmkit::DeviceFacts d;
    ASSERT_TRUE(gemmkit::builtin_device_facts("h100", &d));
    for (const BatchedShape& s : batched_corpus()) {
        for (const gemmkit::cli::CorpusType& t : gemmkit::cli::corpus_types()) {
            const BatchLayout l = layout_of(s);
            gemmkit::Problem p;
            p.transa = s.a, p.transb = s.b;
            p.m = s.m, p.n = s.n, p.k = s.k;
            p.lda = l.lda, p.ldb = l.ldb, p.ldc = l.ldc;
            p.a_type = p.b_type = t.ab;
            p.c_type = t.c;
            p.compute = t.compute;
            p.batch.count = s.batch;
            if (s.pointer_arrays) {
                p.batch.arrays = true;
            } else {
                p.batch.stride_a = l.stride_a, p.batch.stride_b = l.stride_b, p.batch.stride_c = l.stride_c;
            }
            gemmkit::Plan plan;
            std::string why;
            ASSERT_TRUE(gemmkit::plan_gemm(p, d, "auto", &plan, &why)) << t.name << " " << name_of(s) << ": " << why;
            EXPECT_TRUE(plan.kernel->batches) << t.name << " " << name_of(s) << ": " << plan.kernel->name;
            EXPECT_EQ(plan.batch, s.batch) << gemmkit::plan_summary(plan);
            EXPECT_EQ(plan.pointer_arrays, s.pointer_arrays) << gemmkit::plan_summary(plan);
        }
    }
}

TEST(CliArgsBatchedSuite, SuiteBatchedParsesWithTheCorpusTypes) {
    const Parsed r = parse({"bench", "--suite", "batched"});
    ASSERT_TRUE(r.ok) << r.err;
    EXPECT_EQ(r.opt.suite, "batched");
    EXPECT_TRUE(r.opt.types.empty());
    const Parsed typed = parse({"bench", "--suite=batched", "--types", "bf16,f32"});
    ASSERT_TRUE(typed.ok) << typed.err;
    EXPECT_EQ(typed.opt.types, (std::vector<std::string>{"bf16", "f32"}));
    const Parsed bad = parse({"bench", "--suite", "batched", "--types", "f8"});
    EXPECT_FALSE(bad.ok);
    EXPECT_TRUE(contains(bad.err, "'f8'")) << bad.err;
}

TEST(CliArgsBatchedSuite, BadSuiteNamesTheThreeSuites) {
    const Parsed r = parse({"bench", "--suite", "batch"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "'batch'")) << r.err;
    EXPECT_TRUE(contains(r.err, "batched")) << r.err;
    EXPECT_TRUE(contains(r.err, "grouped or fp8")) << r.err;
}

TEST(CliArgsBatchedSuite, TypesNeedACorpusSuite) {
    const Parsed r = parse({"bench", "--suite", "ladder", "--types", "f16"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--types"));
    EXPECT_TRUE(contains(r.err, "--suite shapes, batched, epilogue or grouped")) << r.err;
}

// --suite epilogue (bench_epilogue.cpp) is a corpus suite too: --types is its, --mnk is not.
TEST(CliArgsBatchedSuite, EpilogueSuiteTakesTypesButNoShapes) {
    const Parsed ok = parse({"bench", "--suite", "epilogue", "--types", "bf16,f16", "--csv", "x.csv"});
    EXPECT_TRUE(ok.ok) << ok.err;
    EXPECT_EQ(ok.opt.suite, "epilogue");
    const Parsed r = parse({"bench", "--suite", "epilogue", "--mnk", "64"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--mnk")) << r.err;
    EXPECT_TRUE(contains(r.err, "--suite epilogue")) << r.err;
}

// --suite grouped (bench_grouped.cpp) likewise.
TEST(CliArgsBatchedSuite, GroupedSuiteTakesTypesButNoShapes) {
    const Parsed ok = parse({"bench", "--suite", "grouped", "--types", "bf16", "--csv", "x.csv"});
    EXPECT_TRUE(ok.ok) << ok.err;
    EXPECT_EQ(ok.opt.suite, "grouped");
    const Parsed r = parse({"bench", "--suite", "grouped", "--ops", "TN"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--suite grouped")) << r.err;
}

// --suite fp8 (bench_fp8.cpp) likewise, and its types are fixed too: --types is an error.
TEST(CliArgsBatchedSuite, Fp8SuiteTakesNoShapesAndNoTypes) {
    const Parsed ok = parse({"bench", "--suite", "fp8", "--csv", "x.csv", "--iters", "5", "--l2-flush", "read"});
    EXPECT_TRUE(ok.ok) << ok.err;
    EXPECT_EQ(ok.opt.suite, "fp8");
    const Parsed r = parse({"bench", "--suite", "fp8", "--mnk", "4096"});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(contains(r.err, "--mnk")) << r.err;
    EXPECT_TRUE(contains(r.err, "--suite fp8")) << r.err;
    const Parsed typed = parse({"bench", "--suite", "fp8", "--types", "bf16"});
    EXPECT_FALSE(typed.ok);
    EXPECT_TRUE(contains(typed.err, "--types does not apply to --suite fp8")) << typed.err;
}

// The corpus fixes shapes, ops, kernels and types: options that would choose them are errors.
TEST(CliArgsBatchedSuite, OptionsTheCorpusFixesAreErrors) {
    for (std::vector<const char*> extra : std::vector<std::vector<const char*>>{
             {"--mnk", "64"}, {"--m", "64"}, {"--ops", "NN"}, {"--kernels", "bf16.*"}, {"--c-type", "f32"},
             {"--json", "x.json"}, {"--samples", "x.csv"}}) {
        std::vector<const char*> args = {"bench", "--suite", "batched"};
        args.insert(args.end(), extra.begin(), extra.end());
        const Parsed r = parse(args);
        EXPECT_FALSE(r.ok) << extra[0];
        EXPECT_TRUE(contains(r.err, extra[0])) << r.err;
        EXPECT_TRUE(contains(r.err, "--suite batched")) << r.err;
    }
    const Parsed ok =
        parse({"bench", "--suite", "batched", "--csv", "x.csv", "--iters", "5", "--seed", "3", "--quiet"});
    EXPECT_TRUE(ok.ok) << ok.err;
    EXPECT_TRUE(gemmkit::cli::was_given(ok.opt, "--iters"));
}

TEST(CliArgsBatchedSuite, BenchHelpNamesTheSuite) {
    const std::string help = gemmkit::cli::command_help(*gemmkit::cli::find_command("bench"));
    // The option is wider than the help's column: its text starts on the next line, at the column.
    EXPECT_TRUE(contains(help, "  --suite ladder|shapes|batched|epilogue|grouped|fp8\n" + std::string(26, ' ') +
                               "ladder: the default"))
        << help;
    EXPECT_TRUE(contains(help, "batched: the batched corpus"));
    EXPECT_TRUE(contains(help, "epilogue: linear layers with a fused"));
    EXPECT_TRUE(contains(help, "fp8: FP8 GEMMs with per-tensor, outer-vector and block scales"));
}

}  // namespace
