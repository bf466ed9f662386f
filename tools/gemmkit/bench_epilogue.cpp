// gemmkit bench --suite epilogue (issue 41): a linear layer's GEMM with its bias and activation
// fused, against cuBLASLt's epilogue of the same semantics, in the same run. Each row is a
// Linear(in -> out) applied to `tokens` rows, y = act(x W^T + b), as PyTorch hands it to
// cuBLASLt: column-major C (out x tokens) = op T(W) * op N(x), bias per row of C. For each
// (row, type, epilogue) gemmkit's fused call and cuBLASLt's are verified against an FP64
// reference with the epilogue applied (aux against the pre-activation), then timed interleaved
// with gemmkit's plain GEMM of the same shape, the L2 flushed before every call. Ratios:
// cuBLASLt ms / fused ms (the issue's >= 1.00) and plain ms / fused ms (its >= 0.97).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/device_info.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "corpus_suite.hpp"
#include "common/check.hpp"
#include "device_state.hpp"
#include "dispatch.hpp"
#include "gemmkit_version.hpp"
#include "lt_epilogue.hpp"
#include "plan/plan.hpp"
#include "reference/cpu_gemm.hpp"
#include "reference/cublas_gemm.hpp"
#include "verify/compare.hpp"
#include "verify/dtypes.hpp"
#include "verify/matrix_init.hpp"
#include "verify/verify.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {


// A linear layer: `tokens` rows of `in` features to `out` features.
struct LinearShape {
    const char* name;
    int64_t tokens, out, in;
};

// The two rows first (#41: 8192 x 16384 x 4096 and 4096 x 14336 x 4096), then smaller
// token counts and layers of common models.
const std::vector<LinearShape>& linear_shapes() {
    static const std::vector<LinearShape> shapes = {
        {"issue", 8192, 16384, 4096}, {"issue", 4096, 14336, 4096}, {"mlp-up", 8192, 4096, 4096},
        {"mlp-up", 2048, 11008, 4096}, {"decode", 512, 4096, 4096},   {"decode", 128, 8192, 8192},
    };
    return shapes;
}

// The epilogues timed: cuBLASLt's BIAS, RELU_BIAS, GELU_BIAS and GELU_AUX_BIAS.
struct EpilogueCase {
    const char* name;
    gemmkit_activation activation;
    bool aux;
};
constexpr EpilogueCase kEpilogues[] = {{"bias", GEMMKIT_ACTIVATION_NONE, false},
                                       {"relu+bias", GEMMKIT_ACTIVATION_RELU, false},
                                       {"gelu+bias", GEMMKIT_ACTIVATION_GELU_TANH, false},
                                       {"gelu+bias+aux", GEMMKIT_ACTIVATION_GELU_TANH, true}};

struct EpilogueRow {
    const LinearShape* shape = nullptr;
    const CorpusType* type = nullptr;
    const EpilogueCase* epilogue = nullptr;
    std::string plan = "-";
    std::string status = "ok";
    Timing fused, plain, lt;

    bool timed() const { return status == "ok"; }
    double ratio() const { return timed() && fused.median_ms > 0 ? lt.median_ms / fused.median_ms : kNaN; }
    double vs_plain() const { return timed() && fused.median_ms > 0 ? plain.median_ms / fused.median_ms : kNaN; }
};

struct Rig {
    const analysis::DeviceInfo& dev;
    DeviceFacts facts;
    TimingPlan timing;
    uint64_t seed;
    cudaStream_t stream;
    ref::Cublas& blas;
    LtMatmul& lt;
    L2Flusher& flusher;
};

// One shape's operands in one type, and its FP64 reference without the epilogue.
struct Operands {
    DeviceBuffer<unsigned char> a, b, c, bias, aux;
    Problem p;  // plain: alpha 1, beta 0, no epilogue
    std::vector<double> values, scale, bias_host;
};

void make_operands(Rig& rig, const LinearShape& s, const CorpusType& t, Operands* out) {
    Operands& o = *out;
    Problem& p = o.p;
    p.transa = GEMMKIT_OP_T, p.transb = GEMMKIT_OP_N;  // W stored in x out (row-major out x in), x in x tokens
    p.m = s.out, p.n = s.tokens, p.k = s.in;
    p.lda = s.in, p.ldb = s.in, p.ldc = s.out;
    p.a_type = p.b_type = t.ab, p.c_type = t.c, p.compute = t.compute;
    const size_t ab = dtype_size(t.ab), cs = dtype_size(t.c);
    o.a = DeviceBuffer<unsigned char>(static_cast<size_t>(p.m * p.k) * ab);
    o.b = DeviceBuffer<unsigned char>(static_cast<size_t>(p.k * p.n) * ab);
    o.c = DeviceBuffer<unsigned char>(static_cast<size_t>(p.m * p.n) * cs);
    o.aux = DeviceBuffer<unsigned char>(static_cast<size_t>(p.m * p.n) * cs);
    o.bias = DeviceBuffer<unsigned char>(static_cast<size_t>(p.m) * cs);
    verify::fill_uniform(o.a.data(), t.ab, p.m * p.k, rig.seed * 5 + 0, rig.stream);
    verify::fill_uniform(o.b.data(), t.ab, p.k * p.n, rig.seed * 5 + 1, rig.stream);
    verify::fill_uniform(o.bias.data(), t.c, p.m, rig.seed * 5 + 2, rig.stream);
    p.A = o.a.data(), p.B = o.b.data(), p.C = o.c.data();
    CUDA_CHECK(cudaStreamSynchronize(rig.stream));
    const size_t mn = static_cast<size_t>(p.m * p.n);
    DeviceBuffer<double> d_values(mn), d_scale(mn);
    ref::cublas_reference_f64(rig.blas, p, verify::tf32_inputs_of("auto", p), d_values.data(), d_scale.data());
    o.values.resize(mn), o.scale.resize(mn);
    d_values.copy_to_host(o.values.data());
    d_scale.copy_to_host(o.scale.data());
    o.bias_host = verify::widen_to_host(o.bias.data(), t.c, p.m, verify::Tf32Inputs::exact);
}

// p with the epilogue e on o's bias (and aux, ld m).
Problem with_epilogue(const Operands& o, const EpilogueCase& e) {
    Problem p = o.p;
    p.epilogue.activation = e.activation;
    p.epilogue.bias = o.bias.data();
    if (e.aux) p.epilogue.aux = const_cast<unsigned char*>(o.aux.data()), p.epilogue.ld_aux = p.m;
    return p;
}

// C (and aux) after `run` on NaN-poisoned buffers, against the reference with the epilogue.
std::string verify_call(Rig& rig, Operands& o, const Problem& p, const CorpusType& t, const char* who,
                        const std::function<bool()>& run) {
    const int64_t mn = p.m * p.n;
    verify::fill_nan(o.c.data(), t.c, mn, rig.stream);
    verify::fill_nan(o.aux.data(), t.c, mn, rig.stream);
    if (!run()) return std::string(who) + ": the call failed";
    CUDA_CHECK(cudaStreamSynchronize(rig.stream));
    std::vector<double> values = o.values, scale = o.scale, pre(static_cast<size_t>(mn));
    ref::cpu_epilogue(p.epilogue.activation, o.bias_host.data(), p.m, p.n, values.data(), scale.data(), pre.data());
    std::vector<unsigned char> c(o.c.size()), aux(o.aux.size());
    o.c.copy_to_host(c.data());
    o.aux.copy_to_host(aux.data());
    return verify::visit_dtype(t.c, [&]<class T>(std::type_identity<T>) -> std::string {
        const verify::Tolerance tol = verify::tolerance_for(p.a_type, p.c_type, p.compute, p.k);
        verify::CompareResult r = verify::compare(reinterpret_cast<const T*>(c.data()), p.ldc, values.data(),
                                                  scale.data(), p.m, p.n, p.k, tol);
        if (!r.pass) return std::string(who) + ": C: " + verify::describe(r);
        if (p.epilogue.aux == nullptr) return "";
        r = verify::compare(reinterpret_cast<const T*>(aux.data()), p.m, pre.data(), scale.data(), p.m, p.n, p.k, tol);
        return r.pass ? "" : std::string(who) + ": aux: " + verify::describe(r);
    });
}

EpilogueRow measure(Rig& rig, Operands& o, const LinearShape& s, const CorpusType& t, const EpilogueCase& e) {
    EpilogueRow r;
    r.shape = &s, r.type = &t, r.epilogue = &e;
    const Problem fused = with_epilogue(o, e);
    Plan plan;
    std::string why;
    if (!plan_gemm(fused, rig.facts, "auto", &plan, &why)) return r.status = "skipped: " + why, r;
    r.plan = plan_summary(plan);
    if (std::string no_lt = rig.lt.prepare(fused); !no_lt.empty()) return r.status = "skipped: cuBLASLt: " + no_lt, r;
    auto run_fused = [&] { return gemm(fused, false, false, rig.stream, "auto") == GEMMKIT_SUCCESS; };
    auto run_plain = [&] { return gemm(o.p, false, false, rig.stream, "auto") == GEMMKIT_SUCCESS; };
    auto run_lt = [&] { return rig.lt.run() == CUBLAS_STATUS_SUCCESS; };
    if (std::string bad = verify_call(rig, o, fused, t, "gemmkit", run_fused); !bad.empty())
        return r.status = "FAILED: " + bad, r;
    if (std::string bad = verify_call(rig, o, fused, t, "cuBLASLt", run_lt); !bad.empty())
        return r.status = "FAILED: " + bad, r;
    const std::vector<Timing> times =
        time_interleaved({{"fused", run_fused}, {"cublaslt", run_lt}, {"plain", run_plain}}, rig.timing, rig.flusher,
                         rig.stream);
    r.fused = times[0], r.lt = times[1], r.plain = times[2];
    return r;
}

double tflops(const LinearShape& s, double ms) { return tflops_at(2.0 * s.tokens * s.out * s.in, ms); }

void print_row(const EpilogueRow& r) {
    const LinearShape& s = *r.shape;
    std::printf("%-7s %-4s %6lld %6lld %6lld %-14s", s.name, r.type->name, static_cast<long long>(s.tokens),
                static_cast<long long>(s.out), static_cast<long long>(s.in), r.epilogue->name);
    if (!r.timed()) {
        std::printf(" %s\n", r.status.c_str());
    } else {
        std::printf(" %9.4f %9.4f %9.4f %6.3f %6.3f %7.1f %7.1f  %s\n", r.fused.median_ms, r.lt.median_ms,
                    r.plain.median_ms, r.ratio(), r.vs_plain(), tflops(s, r.fused.median_ms), tflops(s, r.lt.median_ms),
                    r.plan.c_str());
    }
    std::fflush(stdout);
}

void write_csv(const std::string& path, const std::vector<EpilogueRow>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "class,type,tokens,out,in,epilogue,plan,status,fused_median_ms,cublaslt_median_ms,plain_median_ms,"
         "ratio_cublaslt,ratio_plain,fused_tflops,cublaslt_tflops,samples,device,commit\n";
    for (const EpilogueRow& r : rows) {
        const LinearShape& s = *r.shape;
        auto timed = [&](double v) { return csv_number(r.timed() ? v : kNaN); };
        f << csv_field(s.name) << ',' << csv_field(r.type->name) << ',' << s.tokens << ',' << s.out << ',' << s.in
          << ',' << csv_field(r.epilogue->name) << ',' << csv_field(r.plan) << ',' << csv_field(r.status) << ','
          << timed(r.fused.median_ms) << ',' << timed(r.lt.median_ms) << ',' << timed(r.plain.median_ms) << ','
          << csv_number(r.ratio()) << ',' << csv_number(r.vs_plain()) << ',' << timed(tflops(s, r.fused.median_ms))
          << ',' << timed(tflops(s, r.lt.median_ms)) << ',' << r.fused.samples << ',' << csv_field(d.name) << ','
          << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    }
    close_output(f, path);
}

}  // namespace

int bench_epilogue(const Options& o) {
    std::vector<const CorpusType*> types = selected_types(o);
    if (o.types.empty()) types = {&corpus_types()[3], &corpus_types()[2]};  // bf16, f16: the layers' types
    analysis::DeviceInfo dev;
    if (!require_device("bench --suite epilogue", &dev)) return 1;
    DeviceFacts facts;
    if (current_device_facts(&facts) != GEMMKIT_SUCCESS) {
        std::fprintf(stderr, "gemmkit bench --suite epilogue: %s\n", gemmkit_last_error());
        return 1;
    }
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    {
        ref::Cublas blas(stream);
        LtMatmul lt(stream);
        L2Flusher flusher(dev, o.flush_by_reading);
        Rig rig{dev, facts, corpus_timing(o), o.seed, stream, blas, lt, flusher};
        std::printf("gemmkit bench --suite epilogue — %s\n", analysis::one_line(dev).c_str());
        std::printf("commit %s; seed %llu; y = act(x W^T + b) as column-major C (out x tokens) = op T(W) op N(x), "
                    "bias per row of C\n",
                    GEMMKIT_GIT_COMMIT, static_cast<unsigned long long>(o.seed));
        std::printf("gemmkit fused and cuBLASLt (BIAS, RELU_BIAS, GELU_BIAS, GELU_AUX_BIAS) verified against an FP64 "
                    "reference with the epilogue; then %d warm-up + up to %d timed calls of fused, cuBLASLt and "
                    "gemmkit's plain GEMM, interleaved, L2 flushed (%s) before each\n",
                    rig.timing.warmup, rig.timing.iters, flusher.how());
        std::printf("vs Lt = cuBLASLt ms / fused ms; vs plain = plain ms / fused ms\n\n");
        std::printf("%-7s %-4s %6s %6s %6s %-14s %9s %9s %9s %6s %6s %7s %7s  %s\n", "class", "type", "tokens", "out",
                    "in", "epilogue", "fused ms", "Lt ms", "plain ms", "vs Lt", "vs pl", "TFLOP/s", "Lt TF/s", "plan");
        std::vector<EpilogueRow> rows;
        int failures = 0;
        for (const CorpusType* t : types)
            for (const LinearShape& s : linear_shapes()) {
                Operands ops;
                make_operands(rig, s, *t, &ops);
                for (const EpilogueCase& e : kEpilogues) {
                    rows.push_back(measure(rig, ops, s, *t, e));
                    failures += rows.back().status.rfind("FAILED", 0) == 0;
                    print_row(rows.back());
                }
            }
        print_type_summary(rows, types, [](const EpilogueRow&) { return true; }, print_row);
        if (!o.csv.empty()) write_csv(o.csv, rows, dev);
        if (failures > 0) std::printf("\n%d row(s) FAILED verification and were not timed\n", failures);
        CUDA_CHECK(cudaStreamDestroy(stream));
        return failures == 0 ? 0 : 1;
    }
}

}  // namespace gemmkit::cli
