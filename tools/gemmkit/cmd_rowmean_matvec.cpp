// gemmkit rowmean-matvec: the batched row-mean + mat-vec case study (apps/rowmean_matvec).
// For each size: every selected version is verified on {1,2} inputs (bit for bit, where the
// sums are exact in float) and on uniform inputs (within a rounding bound); the versions that
// pass are then timed on the uniform inputs, interleaved, L2 flushed before every call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include <omp.h>

#include "analysis/device_info.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "common/check.hpp"
#include "gemmkit_version.hpp"
#include "nvtx_range.hpp"
#include "rowmean_matvec/cpu_reference.hpp"
#include "rowmean_matvec/inputs.hpp"
#include "rowmean_matvec/versions.hpp"
#include "verify/compare.hpp"
#include "verify/matrix_init.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {

using rowmean::InputKind;
using rowmean::Sizes;
using rowmean::Version;

constexpr const char* kCommand = "rowmean-matvec";
constexpr int kMaxCpuRuns = 5;  // the CPU takes ~0.1-1 s per run at these sizes

struct Row {
    Row(const Version* v, std::string name_, const Sizes& s) : version(v), name(std::move(name_)), sizes(s) {}
    const Version* version;  // nullptr: the cpu row
    std::string name;
    Sizes sizes;
    std::string status = "ok";  // or "FAILED: ...", "skipped: ..."
    std::string checks;         // what verification found, per input set
    Timing t;
    double speedup_cpu = 0, speedup_prev = 0, gbps = 0, pct_dram = 0;
};

struct Selection {
    bool cpu = false;
    std::vector<const Version*> gpu;
};

// The --versions globs (default: all); every glob must match something, so a typo is an error.
bool select_versions(const std::string& globs, Selection* out, std::string* err) {
    const std::string text = globs.empty() ? "*" : globs;
    std::istringstream items(text);
    for (std::string glob; std::getline(items, glob, ',');) {
        bool any = glob_match(glob.c_str(), "cpu");
        for (const Version& v : rowmean::versions()) any = any || glob_match(glob.c_str(), v.name);
        if (!any) return *err = "--versions: '" + glob + "' matches none of cpu, v1, v2, v3, v4, v5", false;
    }
    out->cpu = matches_any(text, "cpu");
    for (const Version& v : rowmean::versions())
        if (matches_any(text, v.name)) out->gpu.push_back(&v);
    return true;
}

// --lmn (m = L, n = M, k = N) or the study's defaults; each validated.
bool sizes_of(const Options& o, std::vector<Sizes>* out, std::string* err) {
    if (o.lmn.empty()) out->assign(std::begin(rowmean::kDefaultSizes), std::end(rowmean::kDefaultSizes));
    for (const Shape& s : o.lmn) out->push_back({s.m, s.n, s.k});
    for (const Sizes& s : *out) {
        std::string why;
        if (!rowmean::validate(s, &why)) return *err = "--lmn " + rowmean::to_string(s) + ": " + why, false;
    }
    return true;
}

// The inputs of one size, on the host and the device, and the reference for them.
struct Buffers {
    explicit Buffers(const Sizes& s, int64_t workspace_floats)
        : hX(std::make_unique_for_overwrite<float[]>(rowmean::x_elements(s))),
          hW(std::make_unique_for_overwrite<float[]>(rowmean::w_elements(s))),
          ref(rowmean::y_elements(s)), scale(rowmean::y_elements(s)), out(rowmean::y_elements(s)),
          dX(rowmean::x_elements(s)), dW(rowmean::w_elements(s)), dY(rowmean::y_elements(s)), dWork(workspace_floats) {}

    void load(InputKind kind, uint64_t seed, const Sizes& s) {
        rowmean::fill_inputs(kind, seed, s, hX.get(), hW.get());
        dX.copy_from_host(hX.get());
        dW.copy_from_host(hW.get());
        rowmean::cpu_reference(s, hX.get(), hW.get(), ref.data(), scale.data());
    }
    rowmean::Args args(const Sizes& s) { return rowmean::make_args(s, dX.data(), dW.data(), dY.data(), dWork.data()); }

    std::unique_ptr<float[]> hX, hW;
    std::vector<double> ref, scale;  // Y and its error scale, column-major L x N
    std::vector<float> out;          // a version's Y, copied back
    DeviceBuffer<float> dX, dW, dY, dWork;
};

// Runs `v` once with Y and the workspace poisoned (NaN), Y copied into buf.out. "" or the error.
std::string run_once(const Version& v, const Sizes& s, Buffers& buf, cudaStream_t stream, const std::string& label) {
    verify::fill_nan(buf.dY.data(), static_cast<int64_t>(buf.dY.size()), stream);
    verify::fill_nan(buf.dWork.data(), static_cast<int64_t>(buf.dWork.size()), stream);
    cudaError_t err;
    {
        const NvtxRange range(label);
        err = v.run(buf.args(s), stream);
    }
    if (err != cudaSuccess) {
        cudaGetLastError();
        std::string why = cudaGetErrorString(err);
        if (v.calls_sgemm && gemmkit_last_error()[0] != '\0') why += std::string(" (") + gemmkit_last_error() + ")";
        return why;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    buf.dY.copy_to_host(buf.out.data());
    return "";
}

// "" when out is the reference rounded to float, bit for bit; else where it is not.
std::string exact_mismatch(const std::vector<float>& out, const std::vector<double>& ref, const Sizes& s) {
    int64_t bad = 0, first = -1;
    for (size_t i = 0; i < out.size(); ++i) {
        const float want = static_cast<float>(ref[i]);
        if (std::memcmp(&out[i], &want, sizeof(float)) != 0 && bad++ == 0) first = static_cast<int64_t>(i);
    }
    if (bad == 0) return "";
    char buf[200];
    std::snprintf(buf, sizeof buf, "%lld of %zu elements differ, first Y(%lld, %lld) = %.9g, want %.9g",
                  static_cast<long long>(bad), out.size(), static_cast<long long>(first % s.L),
                  static_cast<long long>(first / s.L), out[first], ref[first]);
    return buf;
}

// Judges buf.out against the reference: bit for bit where exact_in_float holds for {1,2} inputs,
// otherwise within the bound for FP32 sums of L + M terms (verify::tolerance_for). Appends to
// r.checks, or sets r.status to FAILED.
void judge(InputKind kind, const Sizes& s, const Buffers& buf, Row& r) {
    const std::string name = rowmean::input_name(kind);
    if (!r.checks.empty()) r.checks += "; ";
    if (kind == InputKind::kOneTwo && rowmean::exact_in_float(s)) {
        const std::string why = exact_mismatch(buf.out, buf.ref, s);
        if (!why.empty()) r.status = "FAILED: " + name + " inputs not exact: " + why;
        r.checks += name + (why.empty() ? " exact" : " NOT exact");
        return;
    }
    // Each output element rounds an M-term mean and an L-term dot product: L + M terms in all.
    const int64_t terms = s.L + s.M;
    const verify::Tolerance tol = verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, terms);
    const verify::CompareResult c =
        verify::compare<float>(buf.out.data(), s.L, buf.ref.data(), buf.scale.data(), s.L, s.N, terms, tol);
    if (!c.pass) r.status = "FAILED: " + name + " inputs: " + verify::describe(c);
    r.checks += name + " " + verify::describe(c);
}

// The `cpu` row: the reference on the loaded inputs, timed with std::chrono. The verification
// run just before it was the warm-up (pages touched, caches as they will be).
Timing time_cpu(const Sizes& s, Buffers& buf, const TimingPlan& plan) {
    std::vector<double> samples;
    double spent_ms = 0;
    for (int i = 0; i < std::max(1, std::min(plan.iters, kMaxCpuRuns)); ++i) {
        const NvtxRange range("rowmean_cpu");
        const auto start = std::chrono::steady_clock::now();
        rowmean::cpu_reference(s, buf.hX.get(), buf.hW.get(), buf.ref.data());
        const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
        samples.push_back(ms.count());
        if ((spent_ms += ms.count()) > plan.max_seconds * 1e3) break;
    }
    return summarize(samples);
}

// "12.3x" or "-" when there is nothing to compare with.
std::string ratio_text(double x) {
    if (x <= 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, x < 10 ? "%.2fx" : "%.1fx", x);
    return buf;
}

void print_header(const analysis::DeviceInfo& d, const analysis::Peaks& peaks, const TimingPlan& plan, uint64_t seed,
                  const L2Flusher& flusher) {
    std::printf("gemmkit rowmean-matvec — %s\n", analysis::one_line(d).c_str());
    std::printf("DRAM %.0f GB/s theoretical; CPU reference: %d OpenMP threads, double accumulation; seed %llu; "
                "commit %s\n",
                peaks.dram_bandwidth / 1e9, omp_get_max_threads(), static_cast<unsigned long long>(seed),
                GEMMKIT_GIT_COMMIT);
    std::printf("each version verified on {1,2} and uniform inputs first; then %d warm-up + up to %d timed calls, "
                "interleaved, L2 flushed (%s) before each call; GB/s = minimum traffic / median time\n",
                plan.warmup, plan.iters, flusher.how());
}

void print_size(const Sizes& s) {
    std::printf("\nL = %lld, M = %lld, N = %lld: X %.3f GiB, minimum traffic %.3f GiB (X, W and Y once each); "
                "{1,2} inputs compared %s\n",
                static_cast<long long>(s.L), static_cast<long long>(s.M), static_cast<long long>(s.N),
                4.0 * rowmean::x_elements(s) / (1 << 30), rowmean::min_bytes(s) / double(1 << 30),
                rowmean::exact_in_float(s) ? "bit for bit" : "within tolerance (not exact in float at this size)");
    std::printf("%-7s %10s %9s %9s %9s %6s  %s\n", "version", "median ms", "vs cpu", "vs prev", "GB/s", "%DRAM",
                "verification");
}

void print_row(const Row& r) {
    if (r.status != "ok") {
        std::printf("%-7s %s\n", r.name.c_str(), r.status.c_str());
    } else {
        char pct[16] = "-";
        if (r.pct_dram > 0) std::snprintf(pct, sizeof pct, "%.1f", r.pct_dram);
        std::printf("%-7s %10.4f %9s %9s %9.1f %6s  %s\n", r.name.c_str(), r.t.median_ms,
                    ratio_text(r.speedup_cpu).c_str(), ratio_text(r.speedup_prev).c_str(), r.gbps, pct,
                    r.checks.c_str());
    }
    std::fflush(stdout);
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "version,L,M,N,status,verification,min_ms,median_ms,max_ms,samples,speedup_cpu,speedup_prev,gbps,pct_dram,"
         "device,commit\n";
    for (const Row& r : rows)
        f << csv_field(r.name) << ',' << r.sizes.L << ',' << r.sizes.M << ',' << r.sizes.N << ','
          << csv_field(r.status) << ',' << csv_field(r.checks) << ',' << csv_number(r.t.min_ms) << ','
          << csv_number(r.t.median_ms) << ',' << csv_number(r.t.max_ms) << ',' << r.t.samples << ','
          << csv_number(r.speedup_cpu) << ',' << csv_number(r.speedup_prev) << ',' << csv_number(r.gbps) << ','
          << csv_number(r.pct_dram) << ',' << csv_field(d.name) << ',' << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    close_output(f, path);
}

// The rows of one size: cpu (when selected), then the selected GPU versions in table order,
// "skipped" where a version does not support the size.
std::vector<Row> rows_for(const Sizes& s, const Selection& sel) {
    std::vector<Row> rows;
    if (sel.cpu) rows.push_back({nullptr, "cpu", s});
    for (const Version* v : sel.gpu) {
        Row r{v, v->name, s};
        if (std::string why; !v->supports(s, &why)) r.status = "skipped: " + why;
        rows.push_back(r);
    }
    return rows;
}

bool runnable(const Row& r) { return r.version != nullptr && r.status == "ok"; }

// Verifies every runnable GPU row on the {1,2} inputs, then on the uniform ones, which stay loaded.
void verify_rows(const Sizes& s, std::vector<Row>& rows, Buffers& buf, uint64_t seed, bool quiet, cudaStream_t stream) {
    const std::string size = rowmean::to_string(s);
    for (InputKind kind : {InputKind::kOneTwo, InputKind::kUniform}) {
        const std::string inputs = rowmean::input_name(kind);
        if (!quiet) std::fprintf(stderr, "[%s] %s inputs: generating, CPU reference\n", size.c_str(), inputs.c_str());
        buf.load(kind, seed, s);
        for (Row& r : rows) {
            if (!runnable(r)) continue;
            if (!quiet)
                std::fprintf(stderr, "[%s] %s inputs: verifying %s\n", size.c_str(), inputs.c_str(), r.name.c_str());
            const std::string err = run_once(*r.version, s, buf, stream, "rowmean_" + r.name + " verify " + inputs);
            if (err.empty()) judge(kind, s, buf, r);
            else r.status = "FAILED: " + err;
        }
    }
}

// Times the cpu row (std::chrono) and the GPU rows that passed (interleaved, events), on the
// loaded inputs.
void time_rows(const Sizes& s, std::vector<Row>& rows, Buffers& buf, const TimingPlan& plan, L2Flusher& flusher,
               bool quiet, cudaStream_t stream) {
    std::vector<Contender> contenders;
    std::vector<Row*> timed;
    const rowmean::Args args = buf.args(s);
    for (Row& r : rows) {
        if (r.version == nullptr) {
            if (!quiet) std::fprintf(stderr, "[%s] timing cpu\n", rowmean::to_string(s).c_str());
            r.t = time_cpu(s, buf, plan);
            r.checks = "the reference";
        } else if (runnable(r)) {
            const Version* v = r.version;
            contenders.push_back(
                {"rowmean_" + r.name, [v, args, stream] { return v->run(args, stream) == cudaSuccess; }});
            timed.push_back(&r);
        }
    }
    if (contenders.empty()) return;
    if (!quiet) std::fprintf(stderr, "[%s] timing %zu GPU version(s)\n", rowmean::to_string(s).c_str(), timed.size());
    const std::vector<Timing> t = time_interleaved(contenders, plan, flusher, stream);
    for (size_t i = 0; i < timed.size(); ++i) timed[i]->t = t[i];
}

// Speedups (over the cpu row, and over the timed row above), GB/s and % of DRAM bandwidth.
void derive(const Sizes& s, const analysis::Peaks& peaks, std::vector<Row>& rows) {
    const double cpu_ms = !rows.empty() && rows.front().version == nullptr ? rows.front().t.median_ms : 0;
    double prev_ms = 0;
    for (Row& r : rows) {
        if (r.status != "ok") continue;
        const double ms = r.t.median_ms;
        r.speedup_cpu = r.version != nullptr && cpu_ms > 0 ? cpu_ms / ms : 0;
        r.speedup_prev = prev_ms > 0 ? prev_ms / ms : 0;
        r.gbps = rowmean::min_bytes(s) / (ms * 1e-3) / 1e9;
        // The cpu row reads host memory: a share of the GPU's DRAM bandwidth would mean nothing.
        r.pct_dram = r.version != nullptr && peaks.dram_bandwidth > 0 ? 100.0 * r.gbps * 1e9 / peaks.dram_bandwidth : 0;
        prev_ms = ms;
    }
}

}  // namespace

int cmd_rowmean_matvec(const Options& o) {
    std::vector<Sizes> sizes;
    Selection sel;
    std::string err;
    if (!sizes_of(o, &sizes, &err) || !select_versions(o.versions, &sel, &err)) {
        std::fprintf(stderr, "gemmkit %s: %s\n", kCommand, err.c_str());
        return 2;
    }
    analysis::DeviceInfo dev;
    if (!require_device(kCommand, &dev)) return 1;
    const analysis::Peaks peaks = analysis::theoretical_peaks(dev);
    const TimingPlan plan{o.warmup, o.iters, o.max_seconds};

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    L2Flusher flusher(dev, o.flush_by_reading);
    print_header(dev, peaks, plan, o.seed, flusher);

    std::vector<Row> all_rows;
    int failures = 0;
    for (const Sizes& s : sizes) {
        print_size(s);
        std::vector<Row> rows = rows_for(s, sel);
        int64_t workspace_floats = 0;
        for (const Row& r : rows)
            if (runnable(r)) workspace_floats = std::max(workspace_floats, r.version->workspace_floats(s));
        Buffers buf(s, workspace_floats);
        verify_rows(s, rows, buf, o.seed, o.quiet, stream);
        time_rows(s, rows, buf, plan, flusher, o.quiet, stream);
        derive(s, peaks, rows);
        for (const Row& r : rows) {
            failures += r.status.rfind("FAILED", 0) == 0;
            print_row(r);
            all_rows.push_back(r);
        }
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    if (!o.csv.empty()) write_csv(o.csv, all_rows, dev);
    if (failures > 0) std::printf("\n%d version(s) FAILED verification and were not timed\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
