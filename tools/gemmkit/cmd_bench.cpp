// gemmkit bench: verify each kernel on the shape, then time it against cuBLAS with the same
// types (those of its registry row), interleaved, L2 flushed before every call, medians reported.
// `--suite shapes` runs the shape corpus instead (bench_shapes.cpp), `--suite batched` the batched
// corpus (bench_batched.cpp), `--suite epilogue` linear layers with fused epilogues (bench_epilogue.cpp),
// `--suite grouped` mixture-of-experts layers (bench_grouped.cpp), `--suite fp8` FP8 GEMMs with
// scales against cuBLASLt (bench_fp8.cpp).
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "analysis/device_info.hpp"
#include "bench_metrics.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "common/check.hpp"
#include "dispatch.hpp"
#include "gemmkit_version.hpp"
#include "verify/verify.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {

// The seed articles' sweep: M = N from 128 to 16384, K = 1024; plus 4096^3.
std::vector<Shape> default_suite() {
    std::vector<Shape> shapes;
    for (int64_t mn = 128; mn <= 16384; mn *= 2) shapes.push_back({mn, mn, 1024});
    shapes.push_back({4096, 4096, 4096});
    return shapes;
}

struct Row {
    Row(std::string kernel_, const verify::Types& types_, const OpPair& op, const Shape& shape_)
        : kernel(std::move(kernel_)), types(verify::types_name(types_)), ops(ops_name(op.a, op.b)), shape(shape_) {}
    std::string kernel, types, ops;
    std::string status = "ok";  // or "FAILED: ...", "skipped: ..."
    Shape shape;
    Timing t;
    double tflops = 0, cublas_median_ms = 0, pct_cublas = 0, pct_peak = 0;
    std::vector<Sample> cublas_calls;  // cuBLAS's timed calls beside this kernel's (t.calls)
};

// Why `auto` has nothing to run (choose_kernel's message).
std::string why_auto_failed(const Problem& p, int sm) {
    std::string why;
    choose_kernel(p, sm, &why);
    return why;
}

// The selected kernels by type group; `auto` alone still needs one group to run in (FP32).
std::vector<verify::KernelGroup> bench_groups(const std::vector<const KernelInfo*>& kernels, bool c_f32,
                                              bool with_auto) {
    std::vector<verify::KernelGroup> groups = verify::group_by_types(kernels, c_f32);
    if (groups.empty() && with_auto) groups.push_back({});
    return groups;
}

void print_header(const analysis::DeviceInfo& d, const analysis::Peaks& peaks, const TimingPlan& plan,
                  const std::vector<verify::KernelGroup>& groups, const L2Flusher& flusher) {
    std::printf("gemmkit bench — %s\n", analysis::one_line(d).c_str());
    std::printf("memory %d MHz x %d bit, L2 %.0f MiB; FP32 peak %.1f TFLOP/s at %d MHz; commit %s\n",
                d.mem_clock_khz / 1000, d.bus_width_bits, d.l2_bytes / 1048576.0, peaks.fp32 / 1e12,
                d.clock_khz / 1000, GEMMKIT_GIT_COMMIT);
    std::string other_peaks;
    for (const verify::KernelGroup& g : groups) {
        if (g.types == verify::Types{}) continue;  // FP32: the line above
        char buf[80];
        std::snprintf(buf, sizeof buf, "%s%s %.1f", other_peaks.empty() ? "" : ", ",
                      verify::types_name(g.types).c_str(), peak_of(peaks, g.types) / 1e12);
        other_peaks += buf;
    }
    if (!other_peaks.empty())
        std::printf("peaks for %%peak, TFLOP/s: %s; each type group is timed against cuBLAS with its types\n",
                    other_peaks.c_str());
    std::printf("each kernel verified first; then %d warm-up + up to %d timed calls per contender, interleaved with "
                "cuBLAS, L2 flushed (%s) before each call; alpha = 1, beta = 0\n\n",
                plan.warmup, plan.iters, flusher.how());
    std::printf("%-36s %-9s %-3s %6s %6s %6s %9s %9s %9s %8s %8s %7s\n", "kernel", "types", "ops", "m", "n", "k",
                "min ms", "med ms", "max ms", "TFLOP/s", "%cuBLAS", "%peak");
}

void print_row(const Row& r) {
    if (r.status != "ok") {
        std::printf("%-36s %-9s %-3s %6lld %6lld %6lld  %s\n", r.kernel.c_str(), r.types.c_str(), r.ops.c_str(),
                    static_cast<long long>(r.shape.m), static_cast<long long>(r.shape.n),
                    static_cast<long long>(r.shape.k), r.status.c_str());
        return;
    }
    std::printf("%-36s %-9s %-3s %6lld %6lld %6lld %9.4f %9.4f %9.4f %8.2f %7.1f%% %6.1f%%\n", r.kernel.c_str(),
                r.types.c_str(), r.ops.c_str(), static_cast<long long>(r.shape.m), static_cast<long long>(r.shape.n),
                static_cast<long long>(r.shape.k), r.t.min_ms, r.t.median_ms, r.t.max_ms, r.tflops, r.pct_cublas,
                r.pct_peak);
    std::fflush(stdout);
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "kernel,types,ops,m,n,k,status,min_ms,median_ms,max_ms,samples,tflops,cublas_median_ms,pct_cublas,pct_peak,"
         "device,commit\n";
    for (const Row& r : rows)
        f << csv_field(r.kernel) << ',' << csv_field(r.types) << ',' << csv_field(r.ops) << ',' << r.shape.m << ','
          << r.shape.n << ',' << r.shape.k << ',' << csv_field(r.status) << ',' << csv_number(r.t.min_ms) << ','
          << csv_number(r.t.median_ms) << ',' << csv_number(r.t.max_ms) << ',' << r.t.samples << ','
          << csv_number(r.tflops) << ',' << csv_number(r.cublas_median_ms) << ',' << csv_number(r.pct_cublas) << ','
          << csv_number(r.pct_peak) << ',' << csv_field(d.name) << ',' << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    close_output(f, path);
}

// --samples: every timed call, one line each. `call` is the call's place in its timing's
// interleaved sequence (A B B A ...), so a kernel's call sits beside the cuBLAS calls just before
// and after it: drift over a run, or two modes of one kernel, show up here where medians hide them.
void write_samples(const std::string& path, const std::vector<Row>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "kernel,contender,types,ops,m,n,k,call,ms,device,commit\n";
    auto write = [&](const Row& r, const std::string& contender, const std::vector<Sample>& calls) {
        for (const Sample& s : calls)
            f << csv_field(r.kernel) << ',' << csv_field(contender) << ',' << csv_field(r.types) << ','
              << csv_field(r.ops) << ',' << r.shape.m << ',' << r.shape.n << ',' << r.shape.k << ',' << s.call << ','
              << csv_number(s.ms) << ',' << csv_field(d.name) << ',' << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    };
    for (const Row& r : rows) {
        write(r, r.kernel, r.t.calls);
        write(r, "cublas", r.cublas_calls);
    }
    close_output(f, path);
}

void write_json(const std::string& path, const std::vector<Row>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "{\"device\": " << json_string(d.name) << ", \"sm\": " << d.sm << ", \"sms\": " << d.sm_count
      << ", \"clock_mhz\": " << d.clock_khz / 1000 << ", \"commit\": " << json_string(GEMMKIT_GIT_COMMIT)
      << ", \"results\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        f << "  {\"kernel\": " << json_string(r.kernel) << ", \"types\": " << json_string(r.types)
          << ", \"ops\": " << json_string(r.ops) << ", \"m\": " << r.shape.m << ", \"n\": " << r.shape.n
          << ", \"k\": " << r.shape.k << ", \"status\": " << json_string(r.status)
          << ", \"min_ms\": " << json_number(r.t.min_ms) << ", \"median_ms\": " << json_number(r.t.median_ms)
          << ", \"max_ms\": " << json_number(r.t.max_ms) << ", \"samples\": " << r.t.samples
          << ", \"tflops\": " << json_number(r.tflops) << ", \"cublas_median_ms\": " << json_number(r.cublas_median_ms)
          << ", \"pct_cublas\": " << json_number(r.pct_cublas) << ", \"pct_peak\": " << json_number(r.pct_peak)
          << "}" << (i + 1 < rows.size() ? ",\n" : "\n");
    }
    f << "]}\n";
    close_output(f, path);
}

}  // namespace

int cmd_bench(const Options& o) {
    if (o.suite == "shapes") return bench_shapes(o);
    if (o.suite == "batched") return bench_batched(o);
    if (o.suite == "epilogue") return bench_epilogue(o);
    if (o.suite == "grouped") return bench_grouped(o);
    if (o.suite == "fp8") return bench_fp8(o);
    const auto kernels = selected_kernels(o);
    // `auto` (what gemmkit_sgemm / gemmkit_gemm_ex pick) is benchmarked as one more contender
    // per type group when the --kernels globs match the word "auto" (the default "*" does).
    const bool with_auto = matches_any(o.kernels, "auto");
    if (kernels.empty() && !with_auto) {
        std::fprintf(stderr, "gemmkit bench: no kernel matches '%s'\n", o.kernels.c_str());
        return 1;
    }
    // FP8 rows take FP8 data and scales, which the ladder's checks do not make (group_by_types
    // leaves them out): --suite fp8 times them, against cuBLASLt's FP8 matmul. --kernels 'fp8.*'
    // alone is that suite, on its own shapes.
    const auto is_fp8_row = [](const KernelInfo* k) { return fp8(k->dtype); };
    if (!kernels.empty() && !with_auto && std::all_of(kernels.begin(), kernels.end(), is_fp8_row)) {
        if (!o.shapes.empty() || !o.ops.empty()) {
            std::fprintf(stderr, "gemmkit bench: the fp8.* rows are timed by --suite fp8 on issue 42's shapes, "
                                 "TN; --mnk and --ops do not apply to them\n");
            return 1;
        }
        return bench_fp8(o);
    }
    if (std::any_of(kernels.begin(), kernels.end(), is_fp8_row))
        std::fprintf(stderr, "gemmkit bench: the fp8.* rows are left out here; --suite fp8 (or --kernels 'fp8.*') "
                             "times them\n");
    const std::vector<Shape> shapes = o.shapes.empty() ? default_suite() : o.shapes;
    std::vector<OpPair> ops = o.ops;
    if (ops.empty()) ops.push_back({GEMMKIT_OP_N, GEMMKIT_OP_N});
    const TimingPlan plan{o.warmup, o.iters, o.max_seconds};
    // Each kernel runs with its registry row's types; one Checker (inputs, reference) and one
    // cuBLAS baseline per type group, shape and op.
    const std::vector<verify::KernelGroup> groups = bench_groups(kernels, o.c_f32, with_auto);
    analysis::DeviceInfo dev;
    if (!require_device("bench", &dev)) return 1;
    const analysis::Peaks peaks = analysis::theoretical_peaks(dev);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    ref::Cublas blas(stream);
    L2Flusher flusher(dev, o.flush_by_reading);
    print_header(dev, peaks, plan, groups, flusher);

    std::vector<Row> rows;
    int failures = 0;
    size_t per_shape = 0;
    for (const verify::KernelGroup& g : groups) per_shape += g.kernels.size() + (with_auto ? 1 : 0);
    const size_t total = shapes.size() * ops.size() * per_shape;
    size_t done = 0;
    for (const Shape& s : shapes) {
        for (const OpPair& op : ops) {
            for (const verify::KernelGroup& g : groups) {
                const verify::Case c =
                    verify::with_types(verify::make_case(op.a, op.b, s.m, s.n, s.k, o.seed), g.types);
                verify::Checker checker(c, blas, stream);
                const Problem& p = checker.problem();
                const double peak = peak_of(peaks, g.types);
                const bool with_cublas = ref::has_cublas_baseline(p);
                std::vector<Timing> cublas_timings;
                // One row: verify `api_name` through the library, then time it against cuBLAS.
                auto measure = [&](const char* api_name, const std::string& row_name, const KernelInfo* info) {
                    ++done;
                    if (!o.quiet)
                        std::fprintf(stderr, "[%zu/%zu] %s %s %lldx%lldx%lld\n", done, total, row_name.c_str(),
                                     ops_name(op.a, op.b), static_cast<long long>(s.m), static_cast<long long>(s.n),
                                     static_cast<long long>(s.k));
                    Row r(row_name, g.types, op, s);
                    std::string why;
                    if (info == nullptr || !info->supports(p, &why)) {
                        r.status = "skipped: " + (info == nullptr ? why_auto_failed(p, dev.sm) : why);
                    } else if (const verify::Outcome out = checker.run(api_name); !out.pass()) {
                        r.status =
                            "FAILED: " + (out.status != GEMMKIT_SUCCESS ? out.message : verify::describe(out.result));
                        ++failures;
                    } else {
                        std::vector<Contender> contenders = {
                            {row_name, [&] { return gemm(p, false, false, stream, api_name) == GEMMKIT_SUCCESS; }},
                        };
                        if (with_cublas)
                            contenders.push_back(
                                {"cublas", [&] { return ref::cublas_gemm(blas, p) == CUBLAS_STATUS_SUCCESS; }});
                        const std::vector<Timing> t = time_interleaved(contenders, plan, flusher, stream);
                        r.t = t[0];
                        r.tflops = tflops_of(s, t[0].median_ms);
                        r.pct_peak = pct_of_peak(r.tflops, peak);
                        if (with_cublas) {
                            r.cublas_median_ms = t[1].median_ms;
                            r.pct_cublas = 100.0 * t[1].median_ms / t[0].median_ms;
                            r.cublas_calls = t[1].calls;
                            cublas_timings.push_back(t[1]);
                        }
                    }
                    print_row(r);
                    rows.push_back(r);
                };
                for (const KernelInfo* k : g.kernels) measure(k->name, k->name, k);
                if (with_auto) {
                    std::string why;
                    const KernelInfo* chosen = choose_kernel(p, dev.sm, &why);
                    measure("auto", std::string("auto=") + (chosen != nullptr ? chosen->name : "none"), chosen);
                }
                if (!cublas_timings.empty()) {
                    // cuBLAS ran beside every kernel of the group: report the median of those medians.
                    std::vector<double> medians;
                    for (const Timing& t : cublas_timings) medians.push_back(t.median_ms);
                    Row r("cublas", g.types, op, s);
                    r.t = summarize(medians);
                    r.t.samples = 0;
                    for (const Timing& t : cublas_timings) r.t.samples += t.samples;
                    r.tflops = tflops_of(s, r.t.median_ms);
                    r.cublas_median_ms = r.t.median_ms;
                    r.pct_cublas = 100.0;
                    r.pct_peak = pct_of_peak(r.tflops, peak);
                    print_row(r);
                    rows.push_back(r);
                }
            }
        }
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    if (!o.csv.empty()) write_csv(o.csv, rows, dev);
    if (!o.json.empty()) write_json(o.json, rows, dev);
    if (!o.samples.empty()) write_samples(o.samples, rows, dev);
    if (failures > 0) std::printf("\n%d kernel(s) FAILED verification and were not timed\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
