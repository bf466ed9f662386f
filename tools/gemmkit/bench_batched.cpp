// gemmkit bench --suite batched: every row of the batched corpus (batched_corpus.cpp) for each
// type, in one process, row by row and type by type, as --suite shapes does for single GEMMs
// (bench_shapes.cpp). For each (row, type) `auto` is verified first, problem by problem, against
// an FP64 reference of the same inputs, and so is cuBLAS's batched call (the baseline must compute
// the same batch for the ratio to mean anything). Then both are timed, interleaved, the L2
// flushed before every call (bench_timer.hpp). After the table: the geometric mean of
// cuBLAS ms / auto ms per type and the rows below 0.95.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "analysis/device_info.hpp"
#include "batched_corpus.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "corpus_suite.hpp"
#include "common/check.hpp"
#include "device_state.hpp"
#include "dispatch.hpp"
#include "gemmkit_version.hpp"
#include "plan/plan.hpp"
#include "reference/cublas_gemm.hpp"
#include "shape_corpus.hpp"
#include "verify/compare.hpp"
#include "verify/dtypes.hpp"
#include "verify/matrix_init.hpp"
#include "verify/verify.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {




// One (corpus row, type): what auto runs, and auto's and cuBLAS's times.
struct BatchedRow {
    const BatchedShape* shape = nullptr;
    const CorpusType* type = nullptr;
    std::string kernel = "-";   // the registry row auto's plan chose
    std::string plan = "-";     // the whole plan, one line (plan_summary)
    std::string status = "ok";  // or "FAILED: ...", "skipped: ..."
    Timing autot, blas;

    bool timed() const { return status == "ok"; }
    // cuBLAS ms / auto ms: above 1, gemmkit is faster.
    double ratio() const { return timed() && autot.median_ms > 0 ? blas.median_ms / autot.median_ms : kNaN; }
};

// What every row is measured with.
struct Rig {
    const analysis::DeviceInfo& dev;
    DeviceFacts facts;  // what auto plans for (current_device_facts)
    TimingPlan plan;
    uint64_t seed;
    cudaStream_t stream;
    ref::Cublas& blas;
    L2Flusher& flusher;
};

// One row's matrices in one type, where layout_of puts them, with seeded random A and B. `strided`
// sees them as a strided batch; `problem`, the call that is verified and timed, is that batch or,
// on a pointer-array row, arrays whose entries point to the same matrices in a seeded shuffled
// order (so the arrays are no stride in disguise). Either way each C is the product of the A and
// B at its place in the strided batch, so one reference serves both.
struct Operands {
    DeviceBuffer<unsigned char> a, b, c;
    DeviceBuffer<const void*> a_array, b_array;
    DeviceBuffer<void*> c_array;
    BatchLayout layout;
    Problem strided, problem;
};

void make_operands(const BatchedShape& s, const verify::Types& t, uint64_t seed, cudaStream_t stream,
                   Operands* out) {
    Operands& o = *out;
    const BatchLayout& l = o.layout = layout_of(s);
    const size_t ab_size = dtype_size(t.ab), c_size = dtype_size(t.c);
    o.a = DeviceBuffer<unsigned char>(static_cast<size_t>(l.a_elements) * ab_size);
    o.b = DeviceBuffer<unsigned char>(static_cast<size_t>(l.b_elements) * ab_size);
    o.c = DeviceBuffer<unsigned char>(static_cast<size_t>(l.c_elements) * c_size);
    verify::fill_uniform(o.a.data(), t.ab, l.a_elements, seed * 3 + 0, stream);
    verify::fill_uniform(o.b.data(), t.ab, l.b_elements, seed * 3 + 1, stream);

    Problem& p = o.strided;
    p.transa = s.a;
    p.transb = s.b;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    p.A = o.a.data();
    p.B = o.b.data();
    p.C = o.c.data();
    p.lda = l.lda;
    p.ldb = l.ldb;
    p.ldc = l.ldc;
    p.alpha = 1.0;
    p.beta = 0.0;
    p.a_type = p.b_type = t.ab;
    p.c_type = t.c;
    p.compute = t.compute;
    p.batch.count = s.batch;
    p.batch.stride_a = l.stride_a;
    p.batch.stride_b = l.stride_b;
    p.batch.stride_c = l.stride_c;
    o.problem = p;
    if (s.pointer_arrays) {
        std::vector<int64_t> order(static_cast<size_t>(s.batch));
        std::iota(order.begin(), order.end(), int64_t{0});
        std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
        std::vector<const void*> a_ptrs, b_ptrs;
        std::vector<void*> c_ptrs;
        for (int64_t z : order) {
            const Problem pz = problem_in_batch(p, z);
            a_ptrs.push_back(pz.A);
            b_ptrs.push_back(pz.B);
            c_ptrs.push_back(pz.C);
        }
        o.a_array = DeviceBuffer<const void*>(a_ptrs.size());
        o.b_array = DeviceBuffer<const void*>(b_ptrs.size());
        o.c_array = DeviceBuffer<void*>(c_ptrs.size());
        o.a_array.copy_from_host(a_ptrs.data());
        o.b_array.copy_from_host(b_ptrs.data());
        o.c_array.copy_from_host(c_ptrs.data());
        Problem& q = o.problem;
        q.A = q.B = nullptr;
        q.C = nullptr;
        q.batch = Batch{.count = s.batch,
                        .arrays = true,
                        .a_array = o.a_array.data(),
                        .b_array = o.b_array.data(),
                        .c_array = o.c_array.data()};
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

// C's whole buffer poisoned (NaN: what a kernel leaves unwritten fails, and beta = 0 must not
// read it), `run` called, and the buffer copied back. Returns "" or why the call failed.
std::string run_poisoned(const std::function<std::string()>& run, Operands& o, const verify::Types& t,
                         cudaStream_t stream, std::vector<unsigned char>* c_after) {
    verify::fill_nan(o.c.data(), t.c, o.layout.c_elements, stream);
    if (std::string why = run(); !why.empty()) return why;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGetLastError());
    c_after->resize(o.c.size());
    o.c.copy_to_host(c_after->data());
    return "";
}

// Problem z's C in `c_after` against its FP64 reference (values, scale: m x n, ld m); "" or what
// is wrong.
template <class T>
std::string check_problem(const std::vector<unsigned char>& c_after, const Problem& strided, int64_t z,
                          const std::vector<double>& values, const std::vector<double>& scale) {
    const Problem& p = strided;
    const T* c = reinterpret_cast<const T*>(c_after.data()) + z * p.batch.stride_c;
    const verify::CompareResult r = verify::compare(c, p.ldc, values.data(), scale.data(), p.m, p.n, p.k,
                                                    verify::tolerance_for(p.a_type, p.c_type, p.compute, p.k));
    return r.pass ? "" : "problem " + std::to_string(z) + ": " + verify::describe(r);
}

// Elements of C's buffer outside every problem's m x n window that are no longer the poison.
template <class T>
int64_t outside_writes(const std::vector<unsigned char>& c_after, const Problem& strided) {
    const Problem& p = strided;
    const T* c = reinterpret_cast<const T*>(c_after.data());
    const int64_t count = static_cast<int64_t>(c_after.size() / sizeof(T));
    int64_t written = 0;
    for (int64_t idx = 0; idx < count; ++idx) {
        const int64_t z = p.batch.stride_c > 0 ? idx / p.batch.stride_c : 0;
        const int64_t rel = idx - z * p.batch.stride_c;
        const bool inside = z < p.batch.count && rel / p.ldc < p.n && rel % p.ldc < p.m;
        if (!inside && !std::isnan(verify::to_double(c[idx]))) ++written;
    }
    return written;
}

// Verifies auto's batch and cuBLAS's: each run on a poisoned C, then problem by problem against an
// FP64 reference from exactly the values auto reads (cublas_reference_f64; A and B cut to TF32 as
// auto's kernel cuts them). cuBLAS under TF32 is not checked: how it cuts A and B is its own, and
// no reference of ours sees the same inputs. "" when both pass, else why not.
std::string verify_batch(Rig& rig, Operands& o, const verify::Types& t, const char* kernel) {
    const Problem& p = o.problem;
    std::vector<unsigned char> auto_c, blas_c;
    const std::string auto_failed = run_poisoned(
        [&]() -> std::string {
            if (gemm(p, false, false, rig.stream, "auto") != GEMMKIT_SUCCESS) return gemmkit_last_error();
            return "";
        },
        o, t, rig.stream, &auto_c);
    if (!auto_failed.empty()) return "auto: " + auto_failed;
    const bool check_blas = t.compute != GEMMKIT_COMPUTE_32F_FAST_TF32;
    if (check_blas) {
        const std::string blas_failed = run_poisoned(
            [&]() -> std::string {
                const cublasStatus_t s = ref::cublas_gemm(rig.blas, p);
                return s == CUBLAS_STATUS_SUCCESS ? "" : cublasGetStatusString(s);
            },
            o, t, rig.stream, &blas_c);
        if (!blas_failed.empty()) return "cuBLAS: " + blas_failed;
    }

    const verify::Tf32Inputs tf32 = verify::tf32_inputs_of(kernel, p);
    const size_t mn = static_cast<size_t>(p.m * p.n);
    DeviceBuffer<double> d_values(mn), d_scale(mn);
    std::vector<double> values(mn), scale(mn);
    return verify::visit_dtype(t.c, [&]<class T>(std::type_identity<T>) -> std::string {
        for (int64_t z = 0; z < p.batch.count; ++z) {
            ref::cublas_reference_f64(rig.blas, problem_in_batch(o.strided, z), tf32, d_values.data(),
                                      d_scale.data());
            d_values.copy_to_host(values.data());
            d_scale.copy_to_host(scale.data());
            if (std::string why = check_problem<T>(auto_c, o.strided, z, values, scale); !why.empty()) return "auto: " + why;
            if (check_blas)
                if (std::string why = check_problem<T>(blas_c, o.strided, z, values, scale); !why.empty())
                    return "cuBLAS: " + why;
        }
        if (const int64_t n = outside_writes<T>(auto_c, o.strided); n > 0)
            return "auto: " + std::to_string(n) + " element(s) outside the problems' C written";
        if (check_blas)
            if (const int64_t n = outside_writes<T>(blas_c, o.strided); n > 0)
                return "cuBLAS: " + std::to_string(n) + " element(s) outside the problems' C written";
        return "";
    });
}

// Plans, verifies, then times auto against cuBLAS on (s, ct).
BatchedRow measure(Rig& rig, const BatchedShape& s, const CorpusType& ct) {
    BatchedRow r;
    r.shape = &s;
    r.type = &ct;
    const verify::Types t{ct.ab, ct.c, ct.compute};
    Operands o;
    make_operands(s, t, rig.seed, rig.stream, &o);
    const Problem& p = o.problem;

    Plan plan;
    std::string why;
    if (!plan_gemm(p, rig.facts, "auto", &plan, &why)) return r.status = "skipped: " + why, r;
    r.kernel = plan.kernel->name;
    r.plan = plan_summary(plan);
    if (!ref::has_cublas_baseline(p)) return r.status = "skipped: no cuBLAS baseline for these types", r;
    if (const std::string failed = verify_batch(rig, o, t, plan.kernel->name); !failed.empty())
        return r.status = "FAILED: " + failed, r;

    const std::vector<Contender> contenders = {
        {"auto", [&] { return gemm(p, false, false, rig.stream, "auto") == GEMMKIT_SUCCESS; }},
        {"cublas", [&] { return ref::cublas_gemm(rig.blas, p) == CUBLAS_STATUS_SUCCESS; }},
    };
    const std::vector<Timing> times = time_interleaved(contenders, rig.plan, rig.flusher, rig.stream);
    r.autot = times[0];
    r.blas = times[1];
    return r;
}

void print_header(const Rig& rig, const std::vector<const CorpusType*>& types) {
    std::printf("gemmkit bench --suite batched — %s\n", analysis::one_line(rig.dev).c_str());
    std::printf("commit %s; %zu batched rows x %zu types; seed %llu; alpha = 1, beta = 0\n", GEMMKIT_GIT_COMMIT,
                batched_corpus().size(), types.size(), static_cast<unsigned long long>(rig.seed));
    std::printf("each (row, type): auto and cuBLAS (cublasGemmStridedBatchedEx; pointers: cublasGemmBatchedEx) "
                "verified first, problem by problem, against an FP64 reference (cuBLAS under TF32 not checked);\n"
                "then %d warm-up + up to %d timed calls (fewer past %.1f s) of each, interleaved, L2 flushed (%s) "
                "before each call\n",
                rig.plan.warmup, rig.plan.iters, rig.plan.max_seconds, rig.flusher.how());
    std::printf("issue rows: torch.bmm of (batch, M, K) @ (batch, K, N), timed as the column-major NN GEMM torch "
                "passes cuBLAS: m = N, n = M, k = K\n");
    std::printf("ratio = cuBLAS ms / auto ms (> 1: gemmkit faster); TFLOP/s = 2 m n k batch / median time\n\n");
    std::printf("%-11s %-4s %-3s %5s %5s %5s %5s %-16s %-30s %9s %9s %6s %7s %7s\n", "class", "type", "ops", "batch",
                "m", "n", "k", "layout", "auto kernel", "auto ms", "cuBLAS ms", "ratio", "TFLOP/s", "cuBLAS");
}

void print_row(const BatchedRow& r) {
    const BatchedShape& s = *r.shape;
    std::printf("%-11s %-4s %-3s %5lld %5lld %5lld %5lld %-16s %-30s", s.row_class, r.type->name, ops_name(s.a, s.b),
                static_cast<long long>(s.batch), static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.k), layout_name(s).c_str(), r.kernel.c_str());
    if (!r.timed()) {
        std::printf(" %s\n", r.status.c_str());
    } else {
        const double flops = batched_flops(s);
        std::printf(" %9.4f %9.4f %6.2f %7.1f %7.1f\n", r.autot.median_ms, r.blas.median_ms, r.ratio(),
                    tflops_at(flops, r.autot.median_ms), tflops_at(flops, r.blas.median_ms));
    }
    std::fflush(stdout);
}

void write_csv(const std::string& path, const std::vector<BatchedRow>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "class,type,ops,batch,m,n,k,layout,lda,ldb,ldc,stride_a,stride_b,stride_c,pointer_arrays,kernel,plan,status,"
         "auto_min_ms,auto_median_ms,auto_max_ms,samples,cublas_median_ms,ratio,auto_tflops,cublas_tflops,bytes,"
         "device,commit\n";
    for (const BatchedRow& r : rows) {
        const BatchedShape& s = *r.shape;
        const BatchLayout l = layout_of(s);
        const double flops = batched_flops(s);
        const double bytes = batched_bytes(s, dtype_size(r.type->ab), dtype_size(r.type->c));
        auto timed = [&](double v) { return csv_number(r.timed() ? v : kNaN); };  // empty where not timed
        f << csv_field(s.row_class) << ',' << csv_field(r.type->name) << ',' << ops_name(s.a, s.b) << ',' << s.batch
          << ',' << s.m << ',' << s.n << ',' << s.k << ',' << csv_field(layout_name(s)) << ',' << l.lda << ','
          << l.ldb << ',' << l.ldc << ',' << l.stride_a << ',' << l.stride_b << ',' << l.stride_c << ','
          << (s.pointer_arrays ? 1 : 0) << ',' << csv_field(r.kernel) << ',' << csv_field(r.plan) << ','
          << csv_field(r.status) << ',' << timed(r.autot.min_ms) << ',' << timed(r.autot.median_ms) << ','
          << timed(r.autot.max_ms) << ',' << r.autot.samples << ',' << timed(r.blas.median_ms) << ','
          << csv_number(r.ratio()) << ',' << timed(tflops_at(flops, r.autot.median_ms)) << ','
          << timed(tflops_at(flops, r.blas.median_ms)) << ',' << csv_number(bytes) << ',' << csv_field(d.name)
          << ',' << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    }
    close_output(f, path);
}

}  // namespace

int bench_batched(const Options& o) {
    const std::vector<const CorpusType*> types = selected_types(o);
    analysis::DeviceInfo dev;
    if (!require_device("bench --suite batched", &dev)) return 1;
    DeviceFacts facts;
    if (current_device_facts(&facts) != GEMMKIT_SUCCESS) {
        std::fprintf(stderr, "gemmkit bench --suite batched: %s\n", gemmkit_last_error());
        return 1;
    }
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    ref::Cublas blas(stream);
    L2Flusher flusher(dev, o.flush_by_reading);
    Rig rig{dev, facts, corpus_timing(o), o.seed, stream, blas, flusher};
    print_header(rig, types);

    const std::vector<BatchedShape>& corpus = batched_corpus();
    const size_t total = corpus.size() * types.size();
    std::vector<BatchedRow> rows;
    int failures = 0;
    for (const BatchedShape& s : corpus) {
        for (const CorpusType* t : types) {
            if (!o.quiet)
                std::fprintf(stderr, "[%zu/%zu] %s %s %s %lld x %lldx%lldx%lld\n", rows.size() + 1, total,
                             s.row_class, t->name, ops_name(s.a, s.b), static_cast<long long>(s.batch),
                             static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k));
            rows.push_back(measure(rig, s, *t));
            failures += rows.back().status.rfind("FAILED", 0) == 0;
            print_row(rows.back());
        }
    }
    print_type_summary(rows, types, [](const BatchedRow&) { return true; },
                       [](const BatchedRow& r) { print_row(r); });

    CUDA_CHECK(cudaStreamDestroy(stream));
    if (!o.csv.empty()) write_csv(o.csv, rows, dev);
    if (failures > 0) std::printf("\n%d (row, type) pair(s) FAILED verification and were not timed\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
