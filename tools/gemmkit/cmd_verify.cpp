#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common/check.hpp"
#include "verify/verify.hpp"

namespace gemmkit::cli {
namespace {

// Odd sizes, K below a tile, rectangles, and one large shape checked against cuBLAS FP64.
const char kDefaultShapes[] = "1,7,33,127x129x33,129x127x65,1x300x7,300x1x7,1000x999x65,4097x4095x257";

struct Variant {
    double alpha, beta;
    bool nan_in_c;
};
// beta = 0 with NaN in C (must not propagate), and general alpha/beta.
constexpr Variant kVariants[] = {{1.0, 0.0, true}, {0.5, -2.0, false}};

struct Tally {
    int passed = 0, failed = 0, skipped = 0;
};

// One case for every kernel of a type group: one set of inputs and reference, a line per kernel.
void check_group(const verify::KernelGroup& g, const verify::Case& c, const Options& o, const ref::Cublas& blas,
                 cudaStream_t stream, Tally* tally) {
    verify::Checker checker(c, blas, stream);
    for (const KernelInfo* k : g.kernels) {
        std::string why;
        if (!k->supports(checker.problem(), &why)) {
            ++tally->skipped;
            if (!o.quiet) std::printf("SKIP %-30s %s: %s\n", k->name, verify::describe(c).c_str(), why.c_str());
            continue;
        }
        const verify::Outcome out = checker.run(k->name);
        const bool ok = out.pass();
        (ok ? tally->passed : tally->failed)++;
        if (ok && o.quiet) continue;
        std::string detail = out.status != GEMMKIT_SUCCESS
                                 ? std::string(gemmkit_status_string(out.status)) + ": " + out.message
                                 : verify::describe(out.result);
        if (out.outside_writes > 0)
            detail += ", " + std::to_string(out.outside_writes) + " writes outside C's m x n window";
        std::printf("%s %-30s %s  %s (%s reference)\n", ok ? "PASS" : "FAIL", k->name, verify::describe(c).c_str(),
                    detail.c_str(), out.cpu_reference ? "CPU" : "cuBLAS FP64");
    }
}

}  // namespace

int cmd_verify(const Options& o) {
    const auto kernels = selected_kernels(o);
    if (kernels.empty()) {
        std::fprintf(stderr, "gemmkit verify: no kernel matches '%s'\n", o.kernels.c_str());
        return 1;
    }
    if (!require_device("verify")) return 1;
    std::vector<Shape> shapes = o.shapes;
    std::string err;
    if (shapes.empty()) parse_shapes(kDefaultShapes, &shapes, &err);
    std::vector<OpPair> ops = o.ops;
    if (ops.empty()) parse_ops("all", &ops, &err);
    // Each kernel runs with its registry row's types (--c-type picks C for FP16/BF16 rows).
    const std::vector<verify::KernelGroup> groups = verify::group_by_types(kernels, o.c_f32);
    int left_out = 0;  // the rows group_by_types leaves out
    for (const KernelInfo* k : kernels) {
        if (!fp8(k->dtype)) continue;
        ++left_out;
        if (!o.quiet)
            std::printf("SKIP %-30s FP8 data and scales: bench --suite fp8 and the GPU tests (fp8_gpu_test) check it\n",
                        k->name);
    }

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    ref::Cublas blas(stream);
    std::string types;
    for (const verify::KernelGroup& g : groups) types += (types.empty() ? "" : ", ") + verify::types_name(g.types);
    std::printf("verify: seed %llu, %zu kernels x %zu shapes x %zu ops x %zu alpha/beta%s\n",
                static_cast<unsigned long long>(o.seed), kernels.size(), shapes.size(), ops.size(),
                std::size(kVariants), groups.size() > 1 ? (", types " + types).c_str() : "");
    Tally tally;
    uint64_t seed = o.seed;
    for (const Shape& s : shapes) {
        for (const OpPair& op : ops) {
            for (const Variant& v : kVariants) {
                // The same seed for every type group: the same values, each rounded to its types.
                verify::Case c = verify::make_case(op.a, op.b, s.m, s.n, s.k, seed++);
                c.alpha = v.alpha;
                c.beta = v.beta;
                c.nan_in_c = v.nan_in_c;
                for (const verify::KernelGroup& g : groups)
                    check_group(g, verify::with_types(c, g.types), o, blas, stream, &tally);
            }
        }
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    std::printf("verify: %d passed, %d failed, %d skipped", tally.passed, tally.failed, tally.skipped);
    // Said even with --quiet: a run of FP8 rows alone would otherwise read as a clean check of nothing.
    if (left_out > 0) std::printf("; %d FP8 row(s) not checked here (their own GPU cases check them)", left_out);
    std::printf("\n");
    return tally.failed == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
