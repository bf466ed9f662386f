// gemmkit tune: for each shape class (src/tuning/shape_class.hpp), verify every candidate on the
// class's representative problems, time the ones that pass against each other and cuBLAS
// (interleaved, L2 flushed before every call), and rank them (src/tuning/ranking.hpp: by
// geometric-mean TFLOP/s, unless a candidate's worst ratio to cuBLAS falls off a cliff). With
// --write FILE the winners become the table `auto` compiles in (src/tuning/sgemm_table.csv).
// --classes GLOB measures only the classes matching it; --write then keeps FILE's other rows.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <stdexcept>

#include "analysis/device_info.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "common/check.hpp"
#include "dispatch.hpp"
#include "gemmkit_version.hpp"
#include "tune_table.hpp"
#include "tuning/ranking.hpp"
#include "tuning/shape_class.hpp"
#include "verify/verify.hpp"

namespace gemmkit::cli {
namespace {

// Without --kernels: every FP32 configuration of the tuned steps (11 and up).
constexpr int kFirstTunedLevel = 11;

struct ClassResult {
    std::string shape_class, shapes;     // shapes: the representatives, "AxBxC+DxExF"
    tuning::RankedCandidate winner, runner_up;  // runner_up.kernel empty when only one candidate passed
};

double tflops_of(const tuning::ClassShape& s, double ms) {
    return ms > 0 ? 2.0 * s.m * s.n * s.k / (ms * 1e-3) / 1e12 : 0;
}

std::string shape_text(const tuning::ClassShape& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

bool is_fp32(const KernelInfo& k) { return k.dtype == GEMMKIT_R_32F && k.compute == GEMMKIT_COMPUTE_32F; }

// The candidates: FP32 kernels matching --kernels (default: level >= 11) that run on sm_`sm`.
// Matches that cannot be candidates are named on stderr.
std::vector<const KernelInfo*> candidates(const Options& o, int sm) {
    const bool by_default = o.kernels == "*";
    std::vector<const KernelInfo*> out;
    for (const KernelInfo* k : selected_kernels(o)) {
        if (!is_fp32(*k)) {
            if (!by_default) std::fprintf(stderr, "gemmkit tune: ignoring %s: the table is for FP32 kernels\n", k->name);
        } else if (by_default && k->level < kFirstTunedLevel) {
            continue;
        } else if (k->min_sm > sm) {
            std::fprintf(stderr, "gemmkit tune: ignoring %s: it needs sm_%d, the device is sm_%d\n", k->name,
                         k->min_sm, sm);
        } else {
            out.push_back(k);
        }
    }
    return out;
}

std::string today_utc() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

void print_row(const ClassResult& r) {
    const bool second = !r.runner_up.kernel.empty();
    std::printf("%-32s %-30s %-32s %8.2f %7.1f%% %-32s %8.2f %7.1f%%\n", r.shape_class.c_str(), r.shapes.c_str(),
                r.winner.kernel.c_str(), r.winner.geomean_tflops, 100.0 * r.winner.worst_ratio,
                second ? r.runner_up.kernel.c_str() : "-", second ? r.runner_up.geomean_tflops : 0.0,
                second ? 100.0 * r.runner_up.worst_ratio : 0.0);
    std::fflush(stdout);
}

std::string row_line(const ClassResult& r) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s,%s,%.2f,%.2f,%s,%.2f,%.2f", r.shape_class.c_str(), r.winner.kernel.c_str(),
                  r.winner.geomean_tflops, 100.0 * r.winner.worst_ratio, r.runner_up.kernel.c_str(),
                  r.runner_up.geomean_tflops, 100.0 * r.runner_up.worst_ratio);
    return buf;
}

// With --classes, the rows of --write's file (if it exists) for the classes this run leaves
// alone. Read before any measuring, so that a malformed file stops the run at once.
std::vector<TableRow> rows_to_keep(const Options& o) {
    std::vector<TableRow> kept;
    if (o.classes == "*" || o.write.empty()) return kept;
    std::ifstream old(o.write);
    if (!old) return kept;  // no file yet: the table gets the measured classes only
    for (const TableRow& row : read_table_rows(old))
        if (!matches_any(o.classes, row.shape_class.c_str())) kept.push_back(row);
    return kept;
}

// The table's rows: this run's and the kept ones, in class order.
std::vector<std::string> table_rows(const std::vector<ClassResult>& results, const std::vector<TableRow>& kept) {
    std::vector<TableRow> fresh;
    for (const ClassResult& r : results) fresh.push_back({r.shape_class, row_line(r)});
    std::vector<std::string> order;
    for (const tuning::ClassShape& s : tuning::class_shapes())
        if (order.empty() || order.back() != s.shape_class) order.push_back(s.shape_class);
    return merge_table_rows(kept, fresh, order);
}

void write_table(const std::string& path, const std::vector<std::string>& rows, size_t kept_from_file,
                 const analysis::DeviceInfo& d, const Options& o) {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << "# sgemm tuning table: the fastest FP32 kernel per shape class (src/tuning/shape_class.hpp).\n"
         "# Written by `gemmkit tune --write src/tuning/sgemm_table.csv` on the target GPU; then rebuild\n"
         "# (CMake regenerates the compiled-in table from this file). `auto` uses a row's kernel when it is\n"
         "# registered, supports the problem and runs on the device; otherwise the level rule (registry.hpp).\n"
      << "# measured: " << analysis::one_line(d) << "; " << today_utc();  // the commit: git log of this file
    if (o.classes != "*")
        f << "\n# classes matching '" << o.classes << "' only; " << kept_from_file
          << " rows of other classes kept from the file this replaced";
    f << "\n# the class's ops, seed " << o.seed << ", " << o.warmup << " warm-up + up to " << o.iters
      << " timed calls per kernel, interleaved, L2 flushed; tflops: the geometric mean over the class's\n"
         "# shapes (unaligned classes have two) of the median; worst_pct_cublas: the lowest % of cuBLAS among\n"
         "# them; ranked by tflops among the kernels whose worst_pct_cublas is within "
      << tuning::kCliffPoints << " points of the best one (src/tuning/ranking.hpp)\n"
      << "class,kernel,tflops,worst_pct_cublas,runner_up,runner_up_tflops,runner_up_worst_pct_cublas\n";
    for (const std::string& row : rows) f << row << '\n';
    if (!f.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int cmd_tune(const Options& o) {
    size_t selected_shapes = 0;  // representatives of the classes --classes selects
    for (const tuning::ClassShape& s : tuning::class_shapes())
        selected_shapes += matches_any(o.classes, s.shape_class.c_str());
    if (selected_shapes == 0) {
        std::fprintf(stderr,
                     "gemmkit tune: --classes '%s' matches no shape class (they look like "
                     "tiles<=64/k<=1024/ragged/TT; '*/NN' takes the NN ones)\n",
                     o.classes.c_str());
        return 2;
    }
    std::vector<TableRow> kept;
    try {
        kept = rows_to_keep(o);
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "gemmkit tune: --write %s: %s\n", o.write.c_str(), e.what());
        return 2;
    }
    analysis::DeviceInfo dev;
    if (!require_device("tune", &dev)) return 1;
    const std::vector<const KernelInfo*> kernels = candidates(o, dev.sm);
    if (kernels.empty()) {
        std::fprintf(stderr, "gemmkit tune: no FP32 kernel for sm_%d matches '%s' (gemmkit list shows the names)\n",
                     dev.sm, o.kernels.c_str());
        return 1;
    }

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    ref::Cublas blas(stream);
    L2Flusher flusher(dev, o.flush_by_reading);
    const std::vector<tuning::ClassShape>& classes = tuning::class_shapes();

    std::printf("gemmkit tune — %s; commit %s\n", analysis::one_line(dev).c_str(), GEMMKIT_GIT_COMMIT);
    std::printf("%zu candidates x %zu shapes of the shape classes, seed %llu; each verified first, then %d warm-up + up to %d "
                "timed calls per kernel, all candidates and cuBLAS interleaved, L2 flushed (%s) before each call\n",
                kernels.size(), selected_shapes, static_cast<unsigned long long>(o.seed), o.warmup, o.iters,
                flusher.how());
    std::printf("candidates:");
    for (const KernelInfo* k : kernels) std::printf(" %s", k->name);
    std::printf("\n\n%-32s %-30s %-32s %8s %8s %-32s %8s %8s\n", "class", "shapes", "winner", "TFLOP/s", "worst%",
                "runner-up", "TFLOP/s", "worst%");

    std::vector<ClassResult> results;
    int failures = 0, unserved = 0;
    // A class's representatives are consecutive in `classes`: [first, last).
    for (size_t first = 0, last = 0; first < classes.size(); first = last) {
        const std::string& name = classes[first].shape_class;
        for (last = first; last < classes.size() && classes[last].shape_class == name; ++last) {}
        if (!matches_any(o.classes, name.c_str())) continue;
        ClassResult r;
        r.shape_class = name;
        std::vector<const KernelInfo*> passing = kernels;  // those that pass on every representative
        std::map<const KernelInfo*, std::vector<double>> tflops;  // a kernel's, by representative
        std::vector<double> cublas_tflops;
        for (size_t ci = first; ci < last; ++ci) {
            const tuning::ClassShape& cs = classes[ci];
            if (!r.shapes.empty()) r.shapes += '+';
            r.shapes += shape_text(cs);
            if (!o.quiet)
                std::fprintf(stderr, "[%zu/%zu] %s %s: verifying\n", ci + 1, classes.size(), name.c_str(),
                             shape_text(cs).c_str());
            const verify::Case c = verify::make_case(cs.transa, cs.transb, cs.m, cs.n, cs.k, o.seed);
            verify::Checker checker(c, blas, stream);
            const Problem& p = checker.problem();
            if (tuning::shape_class(p) != name)
                throw std::runtime_error("the representative " + shape_text(cs) + " of " + name + " lands in class " +
                                         tuning::shape_class(p));
            std::vector<const KernelInfo*> still;
            for (const KernelInfo* k : passing) {
                std::string why;
                if (!k->supports(p, &why)) {
                    std::printf("  skip %s on %s: %s\n", k->name, verify::describe(c).c_str(), why.c_str());
                    continue;
                }
                const verify::Outcome out = checker.run(k->name);
                if (out.pass()) {
                    still.push_back(k);
                    continue;
                }
                ++failures;
                std::string detail = out.status != GEMMKIT_SUCCESS ? out.message : verify::describe(out.result);
                if (out.outside_writes > 0)
                    detail += ", " + std::to_string(out.outside_writes) + " writes outside C's m x n window";
                std::printf("  FAILED %s on %s: %s; not timed\n", k->name, verify::describe(c).c_str(), detail.c_str());
                std::fprintf(stderr, "gemmkit tune: %s FAILED verification on %s: %s\n", k->name,
                             verify::describe(c).c_str(), detail.c_str());
            }
            passing = still;
            if (passing.empty()) break;

            if (!o.quiet)
                std::fprintf(stderr, "[%zu/%zu] %s %s: timing %zu kernels and cuBLAS\n", ci + 1, classes.size(),
                             name.c_str(), shape_text(cs).c_str(), passing.size());
            std::vector<Contender> contenders;
            for (const KernelInfo* k : passing)
                contenders.push_back(
                    {k->name, [&p, &stream, k] { return gemm(p, false, false, stream, k->name) == GEMMKIT_SUCCESS; }});
            contenders.push_back({"cublas", [&] { return ref::cublas_gemm(blas, p) == CUBLAS_STATUS_SUCCESS; }});
            // Bench's budget covers one kernel (and cuBLAS beside it); here each candidate gets one.
            const TimingPlan plan{o.warmup, o.iters, o.max_seconds * static_cast<double>(passing.size())};
            const std::vector<Timing> t = time_interleaved(contenders, plan, flusher, stream);
            for (size_t i = 0; i < passing.size(); ++i) tflops[passing[i]].push_back(tflops_of(cs, t[i].median_ms));
            cublas_tflops.push_back(tflops_of(cs, t.back().median_ms));
        }
        if (passing.empty()) {
            ++unserved;
            std::printf("%-32s %-30s no candidate passed verification; the class keeps no row\n", name.c_str(),
                        r.shapes.c_str());
            continue;
        }

        // A kernel still passing was timed on every representative.
        std::vector<tuning::CandidateTimes> times;
        for (const KernelInfo* k : passing) times.push_back({k->name, tflops[k]});
        const std::vector<tuning::RankedCandidate> ranked = tuning::rank_candidates(times, cublas_tflops);
        r.winner = ranked[0];
        if (ranked.size() > 1) r.runner_up = ranked[1];
        print_row(r);
        if (!o.quiet)  // every candidate, so a change of the ranking rule can be judged from the log
            for (const tuning::RankedCandidate& c : ranked)
                std::printf("    %-32s %8.2f TFLOP/s, worst %5.1f%% of cuBLAS%s\n", c.kernel.c_str(), c.geomean_tflops,
                            100.0 * c.worst_ratio, c.off_a_cliff ? ", off a cliff" : "");
        results.push_back(r);
    }
    CUDA_CHECK(cudaStreamDestroy(stream));

    std::printf("\nTFLOP/s: the geometric mean over the class's shapes; worst%%: the lower %% of cuBLAS SGEMM (timed in "
                "the same rounds) among them; ranked by TFLOP/s among the candidates within %.0f points of the best "
                "worst%%\n", tuning::kCliffPoints);
    if (!o.write.empty()) {
        const std::vector<std::string> rows = table_rows(results, kept);
        write_table(o.write, rows, kept.size(), dev, o);
        std::printf("wrote %zu classes to %s (%zu measured now, %zu kept from the file); rebuild to compile them "
                    "into auto's choice\n", rows.size(), o.write.c_str(), results.size(), kept.size());
    }
    if (failures > 0) std::printf("%d kernel run(s) FAILED verification and were not timed\n", failures);
    if (unserved > 0) std::printf("%d class(es) have no verified kernel and no row\n", unserved);
    return failures == 0 && unserved == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
