#include <cstdio>

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

}  // namespace

int cmd_verify(const Options& o) {
    if (!require_device("verify")) return 1;
    const auto kernels = selected_kernels(o);
    if (kernels.empty()) {
        std::fprintf(stderr, "gemmkit verify: no kernel matches '%s'\n", o.kernels.c_str());
        return 1;
    }
    std::vector<Shape> shapes = o.shapes;
    std::string err;
    if (shapes.empty()) parse_shapes(kDefaultShapes, &shapes, &err);
    std::vector<OpPair> ops = o.ops;
    if (ops.empty()) parse_ops("all", &ops, &err);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    ref::Cublas blas(stream);
    std::printf("verify: seed %llu, %zu kernels x %zu shapes x %zu ops x %zu alpha/beta\n",
                static_cast<unsigned long long>(o.seed), kernels.size(), shapes.size(), ops.size(),
                std::size(kVariants));
    int passed = 0, failed = 0, skipped = 0;
    uint64_t seed = o.seed;
    for (const Shape& s : shapes) {
        for (const OpPair& op : ops) {
            for (const Variant& v : kVariants) {
                verify::Case c = verify::make_case(op.a, op.b, s.m, s.n, s.k, seed++);
                c.alpha = v.alpha;
                c.beta = v.beta;
                c.nan_in_c = v.nan_in_c;
                verify::Checker checker(c, blas, stream);
                for (const KernelInfo* k : kernels) {
                    std::string why;
                    if (!k->supports(checker.problem(), &why)) {
                        ++skipped;
                        if (!o.quiet) std::printf("SKIP %-30s %s: %s\n", k->name, verify::describe(c).c_str(), why.c_str());
                        continue;
                    }
                    const verify::Outcome out = checker.run(k->name);
                    const bool ok = out.pass();
                    (ok ? passed : failed)++;
                    if (ok && o.quiet) continue;
                    std::string detail = out.status != GEMMKIT_SUCCESS
                                             ? std::string(gemmkit_status_string(out.status)) + ": " + out.message
                                             : verify::describe(out.result);
                    if (out.outside_writes > 0)
                        detail += ", " + std::to_string(out.outside_writes) + " writes outside C's m x n window";
                    std::printf("%s %-30s %s  %s (%s reference)\n", ok ? "PASS" : "FAIL", k->name,
                                verify::describe(c).c_str(), detail.c_str(), out.cpu_reference ? "CPU" : "cuBLAS FP64");
                }
            }
        }
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    std::printf("verify: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
