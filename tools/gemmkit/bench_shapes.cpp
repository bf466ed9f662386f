// gemmkit bench --suite shapes (issue 43, "No cliffs"): every row of the shape corpus
// (shape_corpus.cpp) for each type, in one process, row by row and type by type. For each (row,
// type) `auto` is verified first, then timed against cuBLAS with the same types, interleaved, the
// L2 flushed before every call (bench_timer.hpp); a memory-bound row also times a device-to-device
// copy of the same traffic, the rate a GEMM could reach at best. After the table: the geometric
// mean of cuBLAS ms / auto ms per type and the rows below 0.95; then the first corpus rows once
// more, since a call that slows down after many others (stale state) is a bug of its own.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "analysis/device_info.hpp"
#include "bench_metrics.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "corpus_suite.hpp"
#include "common/check.hpp"
#include "dispatch.hpp"
#include "gemmkit_version.hpp"
#include "shape_corpus.hpp"
#include "verify/verify.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {

constexpr double kRepeatDrop = 0.10;  // a repeat whose ratio falls by more than this is flagged


verify::Types verify_types(const CorpusType& t) { return {t.ab, t.c, t.compute}; }

double gb_per_s(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : kNaN; }

// One (corpus row, type): auto's and cuBLAS's times, and the copy's on memory-bound rows.
struct ShapeRow {
    const CorpusShape* shape = nullptr;
    const CorpusType* type = nullptr;
    bool repeat = false;         // the repeat check's timing
    std::string kernel = "-";    // what auto runs (choose_kernel)
    std::string status = "ok";   // or "FAILED: ...", "skipped: ..."
    bool memory_bound = false;
    double bytes = 0;            // A, B and C once
    Timing autot, blas, copy;    // copy: memory-bound rows only

    bool timed() const { return status == "ok"; }
    // cuBLAS ms / auto ms: above 1, gemmkit is faster.
    double ratio() const { return timed() && autot.median_ms > 0 ? blas.median_ms / autot.median_ms : kNaN; }
    double pct_of_copy(const Timing& t) const {
        return memory_bound && t.median_ms > 0 ? 100.0 * copy.median_ms / t.median_ms : kNaN;
    }
};

// What every row is measured with.
struct Rig {
    const analysis::DeviceInfo& dev;
    analysis::Peaks peaks;
    TimingPlan plan;
    uint64_t seed;
    cudaStream_t stream;
    ref::Cublas& blas;
    L2Flusher& flusher;

    // FLOPs per DRAM byte at which the type's peak and the DRAM bandwidth meet; 0 where the
    // device's peaks are not tabulated (then no row counts as memory-bound).
    double ridge(const verify::Types& t) const {
        const double peak = peak_of(peaks, t);
        return peaks.dram_bandwidth > 0 ? peak / peaks.dram_bandwidth : 0;
    }
};

// Verifies auto on (s, ct), then times auto, cuBLAS and, on a memory-bound row, the copy.
// A row is memory-bound when its arithmetic intensity, 2mnk / bytes(A + B + C once), is below the
// device's ridge point for its type: even at the least traffic it cannot reach the type's peak.
ShapeRow measure(Rig& rig, const CorpusShape& s, const CorpusType& ct, bool repeat) {
    ShapeRow r;
    r.shape = &s;
    r.type = &ct;
    r.repeat = repeat;
    const verify::Types t = verify_types(ct);
    const size_t ab_size = dtype_size(t.ab), c_size = dtype_size(t.c);
    r.bytes = operand_bytes(s.m, s.n, s.k, ab_size, c_size);
    r.memory_bound = arithmetic_intensity(s.m, s.n, s.k, ab_size, c_size) < rig.ridge(t);

    verify::Case c = verify::with_types(verify::make_case(s.a, s.b, s.m, s.n, s.k, rig.seed), t);
    c.ld_pad = s.ld_pad;
    std::string why;
    const KernelInfo* chosen = choose_kernel(verify::problem_of(c), rig.dev.sm, &why);
    if (chosen == nullptr) return r.status = "skipped: " + why, r;
    r.kernel = chosen->name;
    verify::Checker checker(c, rig.blas, rig.stream);
    const Problem& p = checker.problem();
    if (!ref::has_cublas_baseline(p)) return r.status = "skipped: no cuBLAS baseline for these types", r;
    if (const verify::Outcome out = checker.run("auto"); !out.pass()) {
        r.status = "FAILED: " + (out.status != GEMMKIT_SUCCESS ? out.message : verify::describe(out.result));
        return r;
    }

    std::vector<Contender> contenders = {
        {"auto", [&] { return gemm(p, false, false, rig.stream, "auto") == GEMMKIT_SUCCESS; }},
        {"cublas", [&] { return ref::cublas_gemm(rig.blas, p) == CUBLAS_STATUS_SUCCESS; }},
    };
    // Half the bytes, read and written: the copy moves as many bytes as A, B and C once.
    const size_t half = static_cast<size_t>(r.bytes / 2);
    DeviceBuffer<char> from(r.memory_bound ? half : 0), to(r.memory_bound ? half : 0);
    if (r.memory_bound)
        contenders.push_back({"copy", [&] {
                                  return cudaMemcpyAsync(to.data(), from.data(), half, cudaMemcpyDeviceToDevice,
                                                         rig.stream) == cudaSuccess;
                              }});
    const std::vector<Timing> times = time_interleaved(contenders, rig.plan, rig.flusher, rig.stream);
    r.autot = times[0];
    r.blas = times[1];
    if (r.memory_bound) r.copy = times[2];
    return r;
}

void print_header(const Rig& rig, const std::vector<const CorpusType*>& types) {
    std::printf("gemmkit bench --suite shapes — %s\n", analysis::one_line(rig.dev).c_str());
    std::printf("commit %s; %zu shapes x %zu types; seed %llu; alpha = 1, beta = 0\n", GEMMKIT_GIT_COMMIT,
                shape_corpus().size(), types.size(), static_cast<unsigned long long>(rig.seed));
    std::printf("each (shape, type): auto verified first, then %d warm-up + up to %d timed calls (fewer past "
                "%.1f s) each of auto, cuBLAS and, if memory-bound, a D2D copy, interleaved, L2 flushed (%s) before "
                "each call\n",
                rig.plan.warmup, rig.plan.iters, rig.plan.max_seconds, rig.flusher.how());
    std::printf("ratio = cuBLAS ms / auto ms (> 1: gemmkit faster). Memory-bound: 2mnk / bytes(A+B+C once) below the "
                "ridge point, FLOP/B:");
    for (const CorpusType* t : types) std::printf(" %s %.0f", t->name, rig.ridge(verify_types(*t)));
    std::printf(";\n  there GB/s counts A+B+C once, and %%copy is the share of a D2D copy's rate moving as "
                "many bytes\n\n");
    std::printf("%-11s %-4s %-3s %6s %6s %6s %3s %-30s %9s %9s %6s %7s %7s %6s %6s\n", "class", "type", "ops", "m", "n",
                "k", "ld", "auto kernel", "auto ms", "cuBLAS ms", "ratio", "GB/s", "cuBLAS", "%copy", "cuBLAS");
}

void print_shape(const CorpusShape& s, const char* type) {
    char ld[24] = "";  // "+1" for a padded leading dimension, "" for a tight one
    if (s.ld_pad != 0) std::snprintf(ld, sizeof ld, "+%lld", static_cast<long long>(s.ld_pad));
    std::printf("%-11s %-4s %-3s %6lld %6lld %6lld %3s", s.shape_class, type, ops_name(s.a, s.b),
                static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k), ld);
}

void print_row(const ShapeRow& r) {
    print_shape(*r.shape, r.type->name);
    std::printf(" %-30s", r.kernel.c_str());
    if (!r.timed()) {
        std::printf(" %s\n", r.status.c_str());
    } else {
        std::printf(" %9.4f %9.4f %6.2f", r.autot.median_ms, r.blas.median_ms, r.ratio());
        if (r.memory_bound)
            std::printf(" %7.0f %7.0f %5.0f%% %5.0f%%", gb_per_s(r.bytes, r.autot.median_ms),
                        gb_per_s(r.bytes, r.blas.median_ms), r.pct_of_copy(r.autot), r.pct_of_copy(r.blas));
        std::printf("\n");
    }
    std::fflush(stdout);
}

// The repeat check: each repeated row beside its first timing; a warning, not a failure.
void print_repeats(const std::vector<ShapeRow>& rows) {
    std::printf("\nrepeat check: the first %zu corpus rows of each type again, after all the others\n",
                kRepeatedRows);
    std::printf("%-11s %-4s %-3s %6s %6s %6s %3s %9s %9s %7s %7s\n", "class", "type", "ops", "m", "n", "k", "ld",
                "auto ms", "again ms", "ratio", "again");
    int slower = 0;
    for (const ShapeRow& again : rows) {
        if (!again.repeat) continue;
        auto first = std::find_if(rows.begin(), rows.end(), [&](const ShapeRow& r) {
            return !r.repeat && r.shape == again.shape && r.type == again.type;
        });
        print_shape(*again.shape, again.type->name);
        if (first == rows.end() || !first->timed() || !again.timed()) {
            std::printf(" %s\n", again.timed() ? "not timed the first time" : again.status.c_str());
            continue;
        }
        const bool flagged = again.ratio() < (1 - kRepeatDrop) * first->ratio();
        slower += flagged;
        std::printf(" %9.4f %9.4f %7.2f %7.2f%s\n", first->autot.median_ms, again.autot.median_ms, first->ratio(),
                    again.ratio(), flagged ? "  REPEAT SLOWER" : "");
    }
    if (slower > 0)
        std::printf("warning: REPEAT SLOWER: %d repeated row(s) lost more than %.0f%% of their ratio to cuBLAS\n",
                    slower, 100 * kRepeatDrop);
}

void write_csv(const std::string& path, const std::vector<ShapeRow>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "pass,class,type,ops,m,n,k,ld_pad,kernel,status,auto_min_ms,auto_median_ms,auto_max_ms,samples,"
         "cublas_median_ms,ratio,memory_bound,bytes,auto_gbs,cublas_gbs,copy_median_ms,pct_copy_auto,"
         "pct_copy_cublas,auto_tflops,device,commit\n";
    for (const ShapeRow& r : rows) {
        const CorpusShape& s = *r.shape;
        auto timed = [&](double v) { return csv_number(r.timed() ? v : kNaN); };  // empty where not timed
        f << (r.repeat ? "repeat" : "first") << ',' << csv_field(s.shape_class) << ',' << csv_field(r.type->name)
          << ',' << ops_name(s.a, s.b) << ',' << s.m << ',' << s.n << ',' << s.k << ',' << s.ld_pad << ','
          << csv_field(r.kernel) << ',' << csv_field(r.status) << ',' << timed(r.autot.min_ms) << ','
          << timed(r.autot.median_ms) << ',' << timed(r.autot.max_ms) << ',' << r.autot.samples << ','
          << timed(r.blas.median_ms) << ',' << csv_number(r.ratio()) << ',' << (r.memory_bound ? 1 : 0) << ','
          << csv_number(r.bytes) << ',' << timed(gb_per_s(r.bytes, r.autot.median_ms)) << ','
          << timed(gb_per_s(r.bytes, r.blas.median_ms)) << ',' << timed(r.memory_bound ? r.copy.median_ms : kNaN)
          << ',' << timed(r.pct_of_copy(r.autot)) << ',' << timed(r.pct_of_copy(r.blas)) << ','
          << timed(tflops_of({s.m, s.n, s.k}, r.autot.median_ms)) << ',' << csv_field(d.name) << ','
          << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    }
    close_output(f, path);
}

}  // namespace

int bench_shapes(const Options& o) {
    const std::vector<const CorpusType*> types = selected_types(o);
    analysis::DeviceInfo dev;
    if (!require_device("bench", &dev)) return 1;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    ref::Cublas blas(stream);
    L2Flusher flusher(dev, o.flush_by_reading);
    Rig rig{dev, analysis::theoretical_peaks(dev), corpus_timing(o), o.seed, stream, blas, flusher};
    print_header(rig, types);

    const std::vector<CorpusShape>& corpus = shape_corpus();
    const size_t repeated = std::min(kRepeatedRows, corpus.size());
    const size_t total = (corpus.size() + repeated) * types.size();
    std::vector<ShapeRow> rows;
    int failures = 0;
    auto run = [&](const CorpusShape& s, const CorpusType& t, bool repeat) {
        if (!o.quiet)
            std::fprintf(stderr, "[%zu/%zu] %s %s %s %lldx%lldx%lld\n", rows.size() + 1, total,
                         repeat ? "repeat" : s.shape_class, t.name, ops_name(s.a, s.b), static_cast<long long>(s.m),
                         static_cast<long long>(s.n), static_cast<long long>(s.k));
        rows.push_back(measure(rig, s, t, repeat));
        failures += rows.back().status.rfind("FAILED", 0) == 0;
        if (!repeat) print_row(rows.back());
    };
    // Row by row, every type of a row before the next: the varied sequence of calls the issue's
    // slowdown appeared after.
    for (const CorpusShape& s : corpus)
        for (const CorpusType* t : types) run(s, *t, false);
    print_type_summary(rows, types, [](const ShapeRow& r) { return !r.repeat; },
                       [](const ShapeRow& r) { print_row(r); });
    for (size_t i = 0; i < repeated; ++i)
        for (const CorpusType* t : types) run(corpus[i], *t, true);
    print_repeats(rows);

    CUDA_CHECK(cudaStreamDestroy(stream));
    if (!o.csv.empty()) write_csv(o.csv, rows, dev);
    if (failures > 0) std::printf("\n%d (shape, type) pair(s) FAILED verification and were not timed\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
