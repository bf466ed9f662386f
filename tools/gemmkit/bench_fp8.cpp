// gemmkit bench --suite fp8: FP8 GEMMs with scales (the FP8 issue's rows), `auto`
// (gemmkit_gemm_scaled_ex) against cuBLASLt's FP8 matmul of the same semantics (lt_fp8.hpp), in
// the same run, for per-tensor, outer-vector and block scales (1 x 128 of a, 128 x 128 of b:
// cuBLASLt's VEC128_32F x BLK128x128_32F), C in BF16. In torch's row-major terms a
// row is out (M x N) = (a * sa) @ (b * sb)^T with a M x K and b N x K, both K-major; in the
// library's column-major terms that is the TN GEMM m = M, n = N, k = K (A stored k x m, B k x n).
// Each (row, mode) checks auto, each fp8.* row by name and cuBLASLt (every element of C written
// and finite, sampled elements against an FP64 reference of the dequantized inputs), then times
// them interleaved with the L2 flushed before each call.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cuda_fp8.h>

#include "analysis/device_info.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "common/check.hpp"
#include "corpus_suite.hpp"
#include "gemmkit_version.hpp"
#include "lt_fp8.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {


// The FP8 issue's table, M x N x K.
struct Fp8Shape {
    int64_t m, n, k;
};
constexpr Fp8Shape kShapes[] = {{4096, 4096, 4096},   {8192, 8192, 8192}, {4096, 7168, 16384},
                                {4096, 4096, 7168},   {128, 7168, 16384}, {64, 2112, 7168}};

struct ScaleCase {
    const char* name;
    gemmkit_scale_mode mode;
};
constexpr ScaleCase kModes[] = {
    {"tensor", GEMMKIT_SCALE_TENSOR}, {"outer", GEMMKIT_SCALE_OUTER}, {"block", GEMMKIT_SCALE_BLOCK}};

constexpr int64_t kBlockK = 128;  // GEMMKIT_SCALE_BLOCK: a scale for each 128 of k (and of b's n)
int64_t k_blocks(const Fp8Shape& s) { return (s.k + kBlockK - 1) / kBlockK; }

constexpr gemmkit_dtype kIn = GEMMKIT_R_8F_E4M3;
constexpr gemmkit_dtype kOut = GEMMKIT_R_16BF;  // C is uint16_t BF16 bits below
constexpr size_t kSamples = 256;                // elements of C checked against FP64

// The error allowed in ||out - ref|| / ||ref|| over the sampled elements. Rounding C to BF16
// costs at most 2^-8 = 3.9e-3 an element; FP32 accumulation adds at most about K * 2^-24 = 1e-3
// of |ref| at K = 16384 (random signs: |ref| ~ sum|a b| / sqrt(K)). Hopper's FP8 wgmma adds in
// its accumulator at about 13 bits (fp8_gpu_test.cpp); cuBLASLt promotes to FP32 every few
// wgmmas unless FAST_ACCUM, and a kernel that never promotes comes to ~7e-3 at K = 16384 in a
// model of that adder (each wgmma's sum truncated 13 bits below its largest exponent): inside
// 1e-2, not by much. A bug costs more: a lost 128-deep slab of k sqrt(128 / K) >= 9e-2, a scale
// not applied or misplaced 1e-1 (scales are drawn 10% or more away from 1). Whether gemmkit is
// as accurate as cuBLASLt (the bar) is err/Lt, printed beside.
constexpr double kMaxRelError = 1e-2;

// Random E4M3 codes: uniform floats in [-2, 2), 2^16 of them, each rounded to E4M3 once by
// cuda_fp8.h's conversion (round to nearest, saturating); a 16-bit random index picks one, so
// a 117 MB operand is made on the host in well under a second.
std::vector<uint8_t> random_e4m3(size_t count, uint64_t seed) {
    static const std::vector<uint8_t> table = [] {
        std::vector<uint8_t> t(size_t{1} << 16);
        for (size_t i = 0; i < t.size(); ++i)
            t[i] = __nv_fp8_e4m3(-2.0f + 4.0f * (static_cast<float>(i) + 0.5f) / static_cast<float>(t.size())).__x;
        return t;
    }();
    std::mt19937_64 rng(seed);
    std::vector<uint8_t> out(count);
    for (size_t i = 0; i < count; i += 4) {
        const uint64_t bits = rng();  // four 16-bit indices
        for (size_t j = 0; j < 4 && i + j < count; ++j) out[i + j] = table[(bits >> (16 * j)) & 0xffff];
    }
    return out;
}

// The value of each E4M3 code (NaN for the two NaN codes, never drawn).
const std::array<double, 256>& e4m3_values() {
    static const std::array<double, 256> values = [] {
        std::array<double, 256> v{};
        for (int code = 0; code < 256; ++code) {
            __nv_fp8_e4m3 x;
            x.__x = static_cast<__nv_fp8_storage_t>(code);
            v[static_cast<size_t>(code)] = static_cast<float>(x);
        }
        return v;
    }();
    return values;
}

// BF16 is the upper half of an FP32.
double bf16_value(uint16_t bits) {
    const uint32_t wide = uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &wide, sizeof f);
    return f;
}
bool bf16_finite(uint16_t bits) { return (bits & 0x7f80) != 0x7f80; }  // exponent all ones: Inf or NaN

// One shape's operands, with host copies: a[i * k + p] = op(A)(i, p), b[j * k + p] = op(B)(p, j).
struct Operands {
    Fp8Shape s;
    std::vector<uint8_t> a, b;
    DeviceBuffer<uint8_t> d_a, d_b;
    DeviceBuffer<uint16_t> d_c;                    // m x n, ld m, BF16
    std::vector<std::pair<int64_t, int64_t>> at;   // the sampled (i, j)
    // [x * k_blocks + kb]: sum_p op(A)(i, p) op(B)(p, j) over p in block kb (128 of k) at the
    // x-th sample, unscaled; every mode's reference is a scaled sum of them.
    std::vector<double> dots;

    Operands(const Fp8Shape& shape, uint64_t seed)
        : s(shape), a(random_e4m3(static_cast<size_t>(shape.m * shape.k), seed * 7 + 1)),
          b(random_e4m3(static_cast<size_t>(shape.n * shape.k), seed * 7 + 2)), d_a(a.size()), d_b(b.size()),
          d_c(static_cast<size_t>(shape.m * shape.n)) {
        d_a.copy_from_host(a.data());
        d_b.copy_from_host(b.data());
        // The four corners (the edge tiles), then random elements.
        at = {{0, 0}, {s.m - 1, 0}, {0, s.n - 1}, {s.m - 1, s.n - 1}};
        std::mt19937_64 rng(seed * 7 + 3);
        std::uniform_int_distribution<int64_t> row(0, s.m - 1), col(0, s.n - 1);
        while (at.size() < kSamples) at.emplace_back(row(rng), col(rng));
        const std::array<double, 256>& v = e4m3_values();
        for (const auto& [i, j] : at)
            for (int64_t kb = 0; kb < k_blocks(s); ++kb) {
                double sum = 0;
                for (int64_t p = kb * kBlockK; p < std::min(s.k, (kb + 1) * kBlockK); ++p)
                    sum += v[a[static_cast<size_t>(i * s.k + p)]] * v[b[static_cast<size_t>(j * s.k + p)]];
                dots.push_back(sum);
            }
    }
};

// One mode's scales in [0.5, 0.9] and [1.1, 2): one each (tensor), m for A and n for B (outer),
// or one per 128 of k for each row of A and each 128 columns of B (block), in gemmkit.h's order:
// a[kb * m + i], b[kb * ceil(n / 128) + j / 128].
struct Scales {
    std::vector<float> a, b;
    DeviceBuffer<float> d_a, d_b;
    gemmkit_scaling scaling = GEMMKIT_SCALING_INIT;
    int64_t m = 1, n_blocks = 1;
    bool outer = false, block = false;

    Scales(const Fp8Shape& s, gemmkit_scale_mode mode, uint64_t seed)
        : m(s.m),
          n_blocks((s.n + kBlockK - 1) / kBlockK),
          outer(mode == GEMMKIT_SCALE_OUTER),
          block(mode == GEMMKIT_SCALE_BLOCK) {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> scale(0.5f, 2.0f);
        a.resize(static_cast<size_t>(block ? k_blocks(s) * s.m : outer ? s.m : 1));
        b.resize(static_cast<size_t>(block ? k_blocks(s) * n_blocks : outer ? s.n : 1));
        // Away from 1, so that a scale the kernel never applied shows in the error.
        auto draw = [&] {
            float x;
            do x = scale(rng);
            while (std::fabs(x - 1.0f) < 0.1f);
            return x;
        };
        for (float& x : a) x = draw();
        for (float& x : b) x = draw();
        d_a = DeviceBuffer<float>(a.size()), d_b = DeviceBuffer<float>(b.size());
        d_a.copy_from_host(a.data());
        d_b.copy_from_host(b.data());
        scaling.mode = mode, scaling.scale_a = d_a.data(), scaling.scale_b = d_b.data();
    }
    // The scales of the products of block kb of k at C(i, j).
    double sa(int64_t i, int64_t kb) const { return a[static_cast<size_t>(block ? kb * m + i : outer ? i : 0)]; }
    double sb(int64_t j, int64_t kb) const {
        return b[static_cast<size_t>(block ? kb * n_blocks + j / kBlockK : outer ? j : 0)];
    }
};

// gemmkit's call on o and sc: auto where kernel is null, else the row it names.
gemmkit_status run_gemmkit(Operands& o, const Scales& sc, cudaStream_t stream, const char* kernel = nullptr) {
    const float alpha = 1, beta = 0;
    return gemmkit_gemm_scaled_ex(stream, GEMMKIT_OP_T, GEMMKIT_OP_N, o.s.m, o.s.n, o.s.k, &alpha, o.d_a.data(), kIn,
                                  o.s.k, o.d_b.data(), kIn, o.s.k, &beta, o.d_c.data(), kOut, o.s.m, &sc.scaling,
                                  nullptr, kernel);
}

// C poisoned with NaN (all ones is a NaN in BF16), so an unwritten element fails; beta = 0
// must not read it.
void poison(Operands& o, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(o.d_c.data(), 0xff, o.d_c.bytes(), stream));
}

// C after a call: "" and *err, the relative error ||out - ref|| / ||ref|| over the sampled
// elements, or what is wrong with it.
std::string sampled_error(const Operands& o, const Scales& sc, cudaStream_t stream, double* err) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<uint16_t> c(o.d_c.size());
    o.d_c.copy_to_host(c.data());
    int64_t not_finite = 0;
    for (uint16_t bits : c) not_finite += !bf16_finite(bits);
    if (not_finite > 0) return std::to_string(not_finite) + " elements of C not written or not finite";
    double err2 = 0, ref2 = 0;
    const int64_t kbs = k_blocks(o.s);
    for (size_t x = 0; x < o.at.size(); ++x) {
        const auto [i, j] = o.at[x];
        double ref = 0;
        for (int64_t kb = 0; kb < kbs; ++kb) ref += sc.sa(i, kb) * sc.sb(j, kb) * o.dots[x * kbs + kb];
        const double out = bf16_value(c[static_cast<size_t>(i + j * o.s.m)]);
        err2 += (out - ref) * (out - ref);
        ref2 += ref * ref;
    }
    *err = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    return "";
}

// A named fp8.* row's outcome: timed, or why not.
struct ByRow {
    std::string name;
    std::string note;  // "" when timed, else why not (e.g. not supported for this mode)
    double err = kNaN;
    Timing t;
};

// A cuBLASLt call's outcome: timed, or why not.
struct LtOutcome {
    std::string status = "ok";  // or "refused: ...", "FAILED: ..."
    double err = kNaN;
    Timing t;
    bool ok() const { return status == "ok"; }
};

struct Fp8Row {
    Fp8Shape shape{};
    const ScaleCase* mode = nullptr;
    std::string status = "ok";  // or "FAILED: ...", "not supported: ..."
    double err = kNaN;
    Timing autot;
    LtOutcome lt, lt_fast;  // FAST_ACCUM off (the baseline) and on
    std::vector<ByRow> by_row;

    bool timed() const { return status == "ok"; }
    bool lt_timed() const { return timed() && lt.ok(); }
    double ratio() const { return lt_timed() && autot.median_ms > 0 ? lt.t.median_ms / autot.median_ms : kNaN; }
    // The accuracy bar: gemmkit's error over cuBLASLt's (<= 1: no worse).
    double err_vs_lt() const { return timed() && lt.err > 0 ? err / lt.err : kNaN; }
};

// "rel err 3.1e-02 > 1e-02"
std::string over_tolerance(double err) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "rel err %.1e > %.0e", err, kMaxRelError);
    return buf;
}

std::string gemmkit_failure(gemmkit_status st) {
    return std::string(gemmkit_status_string(st)) + ": " + gemmkit_last_error();
}

// cuBLASLt prepared for o and sc, run once on poisoned C and checked. A refusal or a wrong
// result is that baseline's status, not the row's: gemmkit is still timed.
LtOutcome check_lt(LtFp8Matmul& lt, Operands& o, const Scales& sc, bool fast_accum, cudaStream_t stream) {
    LtOutcome out;
    LtFp8Problem p;
    p.m = o.s.m, p.n = o.s.n, p.k = o.s.k;
    p.A = o.d_a.data(), p.a_type = kIn, p.lda = o.s.k;
    p.B = o.d_b.data(), p.b_type = kIn, p.ldb = o.s.k;
    p.C = o.d_c.data(), p.c_type = kOut, p.ldc = o.s.m;
    p.scaling = sc.scaling;
    p.fast_accum = fast_accum;
    if (std::string why = lt.prepare(p); !why.empty()) return out.status = "refused: " + why, out;
    poison(o, stream);
    // A block-scaled call names its combination in a refusal here too (prepare's do).
    const std::string tried = p.scaling.mode == GEMMKIT_SCALE_BLOCK ? LtFp8Matmul::tried(p) + ": " : "";
    if (const cublasStatus_t st = lt.run(); st != CUBLAS_STATUS_SUCCESS)
        return out.status = "refused: " + tried + "cublasLtMatmul: " + cublasGetStatusString(st), out;
    if (std::string bad = sampled_error(o, sc, stream, &out.err); !bad.empty())
        return out.status = "FAILED: " + bad, out;
    if (!(out.err <= kMaxRelError)) out.status = "FAILED: " + over_tolerance(out.err);
    return out;
}

Fp8Row measure(Operands& o, const ScaleCase& mode, uint64_t seed, const TimingPlan& plan, LtFp8Matmul& lt,
               LtFp8Matmul& lt_fast, L2Flusher& flusher, cudaStream_t stream) {
    Fp8Row r;
    r.shape = o.s, r.mode = &mode;
    const Scales sc(o.s, mode.mode, seed * 7 + 4 + static_cast<uint64_t>(mode.mode));

    // auto first: no kernel on this device is a status line, not a failure.
    poison(o, stream);
    if (const gemmkit_status st = run_gemmkit(o, sc, stream); st != GEMMKIT_SUCCESS)
        return r.status = st == GEMMKIT_NOT_SUPPORTED ? "not supported: " + std::string(gemmkit_last_error())
                                                      : "FAILED: auto: " + gemmkit_failure(st),
               r;
    if (std::string bad = sampled_error(o, sc, stream, &r.err); !bad.empty())
        return r.status = "FAILED: auto: " + bad, r;
    if (!(r.err <= kMaxRelError)) return r.status = "FAILED: auto: " + over_tolerance(r.err), r;

    // Each fp8.* row by name; one that does not serve this mode or shape is listed, not timed.
    for (const std::string& name : rows_named("fp8.")) {
        ByRow b{name, "", kNaN, {}};
        poison(o, stream);
        if (const gemmkit_status st = run_gemmkit(o, sc, stream, name.c_str()); st == GEMMKIT_NOT_SUPPORTED)
            b.note = "not supported: " + std::string(gemmkit_last_error());
        else if (st != GEMMKIT_SUCCESS)
            return r.status = "FAILED: " + name + ": " + gemmkit_failure(st), r;
        else if (std::string bad = sampled_error(o, sc, stream, &b.err); !bad.empty())
            return r.status = "FAILED: " + name + ": " + bad, r;
        else if (!(b.err <= kMaxRelError))
            return r.status = "FAILED: " + name + ": " + over_tolerance(b.err), r;
        r.by_row.push_back(std::move(b));
    }
    r.lt = check_lt(lt, o, sc, false, stream);
    r.lt_fast = check_lt(lt_fast, o, sc, true, stream);

    // Contenders: auto, the cuBLASLt calls that passed, then the rows that ran.
    std::vector<Contender> contenders = {{"auto", [&] { return run_gemmkit(o, sc, stream) == GEMMKIT_SUCCESS; }}};
    std::vector<Timing*> into = {&r.autot};
    if (r.lt.ok()) {
        contenders.push_back({"cublaslt", [&] { return lt.run() == CUBLAS_STATUS_SUCCESS; }});
        into.push_back(&r.lt.t);
    }
    if (r.lt_fast.ok()) {
        contenders.push_back({"cublaslt-fast-accum", [&] { return lt_fast.run() == CUBLAS_STATUS_SUCCESS; }});
        into.push_back(&r.lt_fast.t);
    }
    for (ByRow& b : r.by_row)
        if (b.note.empty()) {
            contenders.push_back({b.name, [&o, &sc, &b, stream] {
                                      return run_gemmkit(o, sc, stream, b.name.c_str()) == GEMMKIT_SUCCESS;
                                  }});
            into.push_back(&b.t);
        }
    const std::vector<Timing> times = time_interleaved(contenders, plan, flusher, stream);
    for (size_t i = 0; i < times.size(); ++i) *into[i] = times[i];
    return r;
}

double flops_of(const Fp8Shape& s) { return 2.0 * s.m * s.n * s.k; }

// A number, or "n/a" where there is none.
std::string text_of(bool has, double value, const char* format) {
    if (!has) return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

void print_row(const Fp8Row& r) {
    const Fp8Shape& s = r.shape;
    std::printf("%6lld %6lld %6lld %-6s", static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.k), r.mode->name);
    if (!r.timed()) {
        std::printf("  %s\n", r.status.c_str());
        std::fflush(stdout);
        return;
    }
    const bool lt = r.lt_timed();
    std::printf(" %8.1e %8s %6s %9.4f %9s %6s %7.1f %7s", r.err,
                text_of(std::isfinite(r.lt.err), r.lt.err, "%8.1e").c_str(),
                text_of(std::isfinite(r.err_vs_lt()), r.err_vs_lt(), "%6.2f").c_str(), r.autot.median_ms,
                text_of(lt, r.lt.t.median_ms, "%9.4f").c_str(), text_of(lt, r.ratio(), "%6.3f").c_str(),
                tflops_at(flops_of(s), r.autot.median_ms),
                text_of(lt, tflops_at(flops_of(s), r.lt.t.median_ms), "%7.1f").c_str());
    if (!lt) std::printf("  cuBLASLt %s", r.lt.status.c_str());
    std::printf("\n");
    // The second line: cuBLASLt with FAST_ACCUM, then each fp8.* row, each with its error and
    // the ratio cuBLASLt ms / its ms.
    auto vs_lt = [&](double ms) { return lt ? text_of(true, r.lt.t.median_ms / ms, ", ratio %.3f") : std::string(); };
    std::printf("%27s", "");
    if (r.lt_fast.ok())
        std::printf(" Lt fast-accum %.4f ms (err %.1e%s)", r.lt_fast.t.median_ms, r.lt_fast.err,
                    vs_lt(r.lt_fast.t.median_ms).c_str());
    else
        std::printf(" Lt fast-accum %s", r.lt_fast.status.c_str());
    for (const ByRow& b : r.by_row) {
        if (!b.note.empty())
            std::printf(";  %s %s", b.name.c_str(), b.note.c_str());
        else
            std::printf(";  %s %.4f ms (err %.1e%s)", b.name.c_str(), b.t.median_ms, b.err,
                        vs_lt(b.t.median_ms).c_str());
    }
    std::printf("\n");
    std::fflush(stdout);
}

// Per mode, over the rows where gemmkit and cuBLASLt were both timed: the geometric means of
// the ratio and of err/Lt, and how many rows' err/Lt is above 1 (gemmkit less accurate).
void print_summary(const std::vector<Fp8Row>& rows) {
    std::printf("\n%-6s %6s %10s %10s %9s\n", "scale", "rows", "geomean", "err/Lt", "err > Lt");
    for (const ScaleCase& mode : kModes) {
        double log_ratio = 0, log_err = 0;
        int timed = 0, less_accurate = 0;
        for (const Fp8Row& r : rows) {
            if (r.mode != &mode || !std::isfinite(r.ratio()) || !std::isfinite(r.err_vs_lt())) continue;
            log_ratio += std::log(r.ratio());
            log_err += std::log(std::max(r.err_vs_lt(), 1e-300));  // an exact gemmkit (err 0) stays finite
            less_accurate += r.err_vs_lt() > 1;
            ++timed;
        }
        const auto mean = [&](double log_sum) { return timed > 0 ? std::exp(log_sum / timed) : kNaN; };
        std::printf("%-6s %6d %10.3f %10.2f %9d\n", mode.name, timed, mean(log_ratio), mean(log_err), less_accurate);
    }
}

void write_csv(const std::string& path, const std::vector<Fp8Row>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "m,n,k,scale,ab_type,c_type,status,rel_err,auto_median_ms,auto_tflops,cublaslt_status,cublaslt_rel_err,"
         "cublaslt_median_ms,cublaslt_tflops,ratio,err_vs_cublaslt,cublaslt_fast_status,cublaslt_fast_rel_err,"
         "cublaslt_fast_median_ms,rows_median_ms,device,commit\n";
    for (const Fp8Row& r : rows) {
        const Fp8Shape& s = r.shape;
        // A time only where the call was timed: the row's, and each cuBLASLt call's too.
        auto timed = [&](bool was, double v) { return csv_number(r.timed() && was ? v : kNaN); };
        f << s.m << ',' << s.n << ',' << s.k << ',' << csv_field(r.mode->name) << ",e4m3,bf16,"
          << csv_field(r.status) << ',' << csv_number(r.err) << ',' << timed(true, r.autot.median_ms) << ','
          << timed(true, tflops_at(flops_of(s), r.autot.median_ms)) << ',' << csv_field(r.lt.status) << ','
          << csv_number(r.lt.err) << ',' << timed(r.lt.ok(), r.lt.t.median_ms) << ','
          << timed(r.lt.ok(), tflops_at(flops_of(s), r.lt.t.median_ms)) << ',' << csv_number(r.ratio()) << ','
          << csv_number(r.err_vs_lt()) << ',' << csv_field(r.lt_fast.status) << ',' << csv_number(r.lt_fast.err)
          << ',' << timed(r.lt_fast.ok(), r.lt_fast.t.median_ms) << ',';
        std::ostringstream by_row;  // "name=ms;name=ms", the timed rows
        for (const ByRow& b : r.by_row)
            if (b.note.empty()) by_row << (by_row.tellp() > 0 ? ";" : "") << b.name << '=' << csv_number(b.t.median_ms);
        f << csv_field(by_row.str()) << ',' << csv_field(d.name) << ',' << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    }
    close_output(f, path);
}

}  // namespace

int bench_fp8(const Options& o) {
    analysis::DeviceInfo dev;
    if (!require_device("bench --suite fp8", &dev)) return 1;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    int failures = 0;
    {
        LtFp8Matmul lt(stream), lt_fast(stream);
        L2Flusher flusher(dev, o.flush_by_reading);
        const TimingPlan plan = corpus_timing(o);
        std::printf("gemmkit bench --suite fp8 — %s\n", analysis::one_line(dev).c_str());
        std::printf(
            "commit %s; seed %llu; out (M x N, BF16) = sa * sb * (a @ b^T), a M x K and b N x K in E4M3 "
            "(uniform in [-2, 2), rounded), scales in [0.5, 2) and 10%% or more from 1: tensor = one each, "
            "outer = one a row of out (sa) and one a column (sb), block = one for each 128 of K of a row "
            "of a (sa, 1 x 128) and of 128 rows of b (sb, 128 x 128)\n",
            GEMMKIT_GIT_COMMIT, static_cast<unsigned long long>(o.seed));
        std::printf("auto (gemmkit_gemm_scaled_ex), each fp8.* row and cuBLASLt (FP8 TN, FP32 compute, heuristic's "
                    "first algo; FAST_ACCUM off, and on as a second call) verified: all of C written and finite, err = "
                    "||out - ref|| / ||ref|| over %zu elements against FP64 (FAILED above %.0e); then %d warm-up + "
                    "up to %d timed calls each, interleaved, L2 flushed (%s) before each\n",
                    kSamples, kMaxRelError, plan.warmup, plan.iters, flusher.how());
        std::printf(
            "ratio = cuBLASLt ms / auto ms (> 1: gemmkit faster); err/Lt = auto's err / cuBLASLt's (<= 1: as "
            "accurate); cuBLASLt is FAST_ACCUM off (torch._scaled_mm's default) unless named fast-accum; "
            "block: cuBLASLt's A VEC128_32F x B BLK128x128_32F, B's scales copied into its layout before "
            "timing\n\n");
        std::printf("%6s %6s %6s %-6s %8s %8s %6s %9s %9s %6s %7s %7s\n", "M", "N", "K", "scale", "err", "Lt err",
                    "err/Lt", "auto ms", "Lt ms", "ratio", "TFLOP/s", "Lt TF/s");
        std::vector<Fp8Row> rows;
        for (const Fp8Shape& s : kShapes) {
            Operands ops(s, o.seed);
            for (const ScaleCase& mode : kModes) {
                rows.push_back(measure(ops, mode, o.seed, plan, lt, lt_fast, flusher, stream));
                failures += rows.back().status.rfind("FAILED", 0) == 0;
                print_row(rows.back());
            }
        }
        print_summary(rows);
        if (!o.csv.empty()) write_csv(o.csv, rows, dev);
        if (failures > 0) std::printf("\n%d (row, scale) pair(s) FAILED verification and were not timed\n", failures);
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    return failures == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
