// What the corpus suites of `gemmkit bench` share (--suite shapes, batched, epilogue, grouped and
// fp8: bench_<suite>.cpp): they time `auto` against cuBLAS with one timing, list the rows below
// one ratio, and print TFLOP/s or NaN for what was not timed.
#pragma once

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "bench_timer.hpp"
#include "cli_args.hpp"
#include "gemmkit/gemmkit.h"
#include "shape_corpus.hpp"

namespace gemmkit::cli {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // what was not measured

// TFLOP/s of `flops` done in `ms`; NaN where nothing was timed.
inline double tflops_at(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : kNaN; }

// The registry's rows whose names start with `prefix`, in registry order (gemmkit list):
// "fp8." gives the FP8 rows, "bf16.16_grouped" the BF16 grouped ones.
inline std::vector<std::string> rows_named(const std::string& prefix) {
    std::vector<std::string> names;
    for (int i = 0; const char* name = gemmkit_kernel_name(i); ++i)
        if (std::string(name).rfind(prefix, 0) == 0) names.push_back(name);
    return names;
}

// The timing where --warmup, --iters and --max-seconds are not given: the shape suite's ~340
// (row, type) pairs in about 4 minutes on an H100.
inline constexpr TimingPlan kCorpusTiming{2, 10, 0.5};

inline constexpr double kSlowRatio = 0.95;  // a row below this ratio is listed as slower than cuBLAS

// The types of --types, in the order given, or all of corpus_types().
inline std::vector<const CorpusType*> selected_types(const Options& o) {
    std::vector<const CorpusType*> all, chosen;
    for (const CorpusType& t : corpus_types()) all.push_back(&t);
    for (const std::string& name : o.types)
        for (const CorpusType* t : all)
            if (name == t->name) chosen.push_back(t);
    return o.types.empty() ? all : chosen;
}

// --warmup, --iters and --max-seconds where given, else kCorpusTiming's.
inline TimingPlan corpus_timing(const Options& o) {
    TimingPlan plan = kCorpusTiming;
    if (was_given(o, "--warmup")) plan.warmup = o.warmup;
    if (was_given(o, "--iters")) plan.iters = o.iters;
    if (was_given(o, "--max-seconds")) plan.max_seconds = o.max_seconds;
    return plan;
}

// Per type: the geometric mean of the ratio (cuBLAS ms / auto ms) over the rows `counts` takes
// that were timed, and then the rows below kSlowRatio, each printed by print_row.
template <class Row, class Counts, class PrintRow>
void print_type_summary(const std::vector<Row>& rows, const std::vector<const CorpusType*>& types, Counts counts,
                        PrintRow print_row) {
    std::printf("\n%-4s %6s %10s %9s\n", "type", "rows", "geomean", "< 0.95");
    std::vector<const Row*> slow;
    for (const CorpusType* t : types) {
        double log_sum = 0;
        int timed = 0, below = 0;
        for (const Row& r : rows) {
            if (r.type != t || !counts(r) || !std::isfinite(r.ratio())) continue;
            log_sum += std::log(r.ratio());
            ++timed;
            if (r.ratio() < kSlowRatio) {
                ++below;
                slow.push_back(&r);
            }
        }
        const double mean = timed > 0 ? std::exp(log_sum / timed) : kNaN;
        std::printf("%-4s %6d %10.3f %9d\n", t->name, timed, mean, below);
    }
    if (slow.empty()) return;
    std::printf("\nrows below %.2f (cuBLAS faster):\n", kSlowRatio);
    for (const Row* r : slow) print_row(*r);
}

}  // namespace gemmkit::cli
