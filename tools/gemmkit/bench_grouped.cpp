// gemmkit bench --suite grouped: mixture-of-experts layers (issue 41's rows and two more), `auto`
// (gemmkit_gemm_grouped_ex, the group ends on the device) against the better of two cuBLAS
// calls of the same groups, timed interleaved in the same run with the L2 flushed before each
// call: a loop of cublasGemmEx, one a group (the host knows the sizes), and one
// cublasGemmGroupedBatchedEx (a group of one problem per expert). Each grouped row of the type
// (gemmkit list) is timed too, by name, so that a row beside auto's shows what auto's choice
// gives. And the layer's work without its groups (every token times expert 0's weight: one plain
// GEMM of out x tokens x in) by gemmkit's auto and by cublasGemmEx: the rate any grouped
// schedule of the same tiles could reach, with no group's last tile part empty and no launch a
// group. In the library's column-major terms a layer is
// C (out x tokens) = op(A_g = W_g, op T) * B (x^T, op N) for each group's tokens. Before timing,
// auto and each row are verified group by group against an FP64 reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <cublas_v2.h>

#include "analysis/device_info.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "common/check.hpp"
#include "corpus_suite.hpp"
#include "device_state.hpp"
#include "gemmkit_version.hpp"
#include "reference/cublas_gemm.hpp"
#include "verify/compare.hpp"
#include "verify/dtypes.hpp"
#include "verify/matrix_init.hpp"
#include "verify/verify.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {


// A layer: `groups` experts, `tokens` in all split unevenly into multiples of 16, each expert a
// `out` x `in` weight.
struct GroupedShape {
    const char* name;
    int groups;
    int64_t tokens, out, in;
};

const std::vector<GroupedShape>& grouped_corpus() {
    static const std::vector<GroupedShape> rows = {
        {"issue-g8", 8, 8192, 4096, 7168},       // issue 41's three
        {"issue-g64", 64, 16384, 2048, 4096},
        {"issue-g128", 128, 65536, 1536, 2048},
        {"few-tokens-g8", 8, 512, 4096, 7168},    // decoding: a few tokens an expert
        {"g32", 32, 8192, 2816, 2048},
    };
    return rows;
}

// Each group's token count: uneven (weights from 0.25 to 1.75), multiples of 16, summing to
// `tokens`; seeded, so every run splits alike.
std::vector<int32_t> group_ends(const GroupedShape& s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> weight(0.25, 1.75);
    std::vector<double> w(static_cast<size_t>(s.groups));
    for (double& x : w) x = weight(rng);
    const double sum = std::accumulate(w.begin(), w.end(), 0.0);
    std::vector<int32_t> ends(w.size());
    int64_t used = 0;
    for (size_t g = 0; g < w.size(); ++g) {
        const int64_t left = s.tokens - used;
        const int64_t size = g + 1 == w.size() ? left : std::min<int64_t>(left, std::llround(w[g] / sum * s.tokens / 16) * 16);
        used += size;
        ends[g] = static_cast<int32_t>(used);
    }
    return ends;
}

struct GroupedRow {
    const GroupedShape* shape = nullptr;
    const CorpusType* type = nullptr;
    std::string status = "ok";
    Timing autot, loop, grouped;
    Timing dense, dense_cublas;  // one plain GEMM of the whole layer (Layer::run_dense)
    bool grouped_ok = false;  // cublasGemmGroupedBatchedEx ran these types
    std::vector<std::pair<std::string, Timing>> by_row;  // each grouped row of the type, by name

    bool timed() const { return status == "ok"; }
    double best_cublas_ms() const { return grouped_ok ? std::min(loop.median_ms, grouped.median_ms) : loop.median_ms; }
    double ratio() const { return timed() && autot.median_ms > 0 ? best_cublas_ms() / autot.median_ms : kNaN; }
};

cudaDataType_t cuda_type(gemmkit_dtype t) { return t == GEMMKIT_R_16BF ? CUDA_R_16BF : t == GEMMKIT_R_16F ? CUDA_R_16F : CUDA_R_32F; }

// One layer on the device and the three calls that compute it.
struct Layer {
    const GroupedShape& s;
    const CorpusType& t;
    std::vector<int32_t> ends;
    DeviceBuffer<unsigned char> a, b;
    mutable DeviceBuffer<unsigned char> c;  // written by the calls of a const Layer
    DeviceBuffer<int32_t> d_ends;
    DeviceBuffer<const void*> a_ptrs, b_ptrs;
    DeviceBuffer<void*> c_ptrs;
    std::vector<int> m_arr, n_arr, k_arr, lda_arr, ldb_arr, ldc_arr, sizes;
    std::vector<cublasOperation_t> ta_arr, tb_arr;
    std::vector<float> alphas, betas;
    float alpha = 1.0f, beta = 0.0f;

    size_t ab() const { return dtype_size(t.ab); }
    size_t cs() const { return dtype_size(t.c); }
    int64_t begin(size_t g) const { return g == 0 ? 0 : ends[g - 1]; }
    const void* a_of(size_t g) const { return a.data() + g * s.out * s.in * ab(); }
    const void* b_of(size_t g) const { return b.data() + begin(g) * s.in * ab(); }
    void* c_of(size_t g) const { return c.data() + begin(g) * s.out * cs(); }

    Layer(const GroupedShape& shape, const CorpusType& type, uint64_t seed, cudaStream_t stream)
        : s(shape), t(type), ends(group_ends(shape, seed)),
          a(static_cast<size_t>(shape.groups * shape.out * shape.in) * dtype_size(type.ab)),
          b(static_cast<size_t>(shape.tokens * shape.in) * dtype_size(type.ab)),
          c(static_cast<size_t>(shape.tokens * shape.out) * dtype_size(type.c)), d_ends(ends.size()) {
        verify::fill_uniform(a.data(), t.ab, s.groups * s.out * s.in, seed * 3 + 0, stream);
        verify::fill_uniform(b.data(), t.ab, s.tokens * s.in, seed * 3 + 1, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        d_ends.copy_from_host(ends.data());
        // cublasGemmGroupedBatchedEx: the non-empty groups, one problem each.
        std::vector<const void*> ap, bp;
        std::vector<void*> cp;
        for (size_t g = 0; g < ends.size(); ++g) {
            const int cols = static_cast<int>(ends[g] - begin(g));
            if (cols == 0) continue;
            ta_arr.push_back(CUBLAS_OP_T), tb_arr.push_back(CUBLAS_OP_N);
            m_arr.push_back(static_cast<int>(s.out)), n_arr.push_back(cols), k_arr.push_back(static_cast<int>(s.in));
            lda_arr.push_back(static_cast<int>(s.in)), ldb_arr.push_back(static_cast<int>(s.in));
            ldc_arr.push_back(static_cast<int>(s.out)), sizes.push_back(1), alphas.push_back(1.0f), betas.push_back(0.0f);
            ap.push_back(a_of(g)), bp.push_back(b_of(g)), cp.push_back(c_of(g));
        }
        a_ptrs = DeviceBuffer<const void*>(ap.size()), b_ptrs = DeviceBuffer<const void*>(bp.size());
        c_ptrs = DeviceBuffer<void*>(cp.size());
        a_ptrs.copy_from_host(ap.data()), b_ptrs.copy_from_host(bp.data()), c_ptrs.copy_from_host(cp.data());
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }

    // gemmkit's call: auto where kernel is null, else the row it names.
    bool run_gemmkit(cudaStream_t stream, const char* kernel = nullptr) const {
        return gemmkit_gemm_grouped_ex(stream, GEMMKIT_OP_T, GEMMKIT_OP_N, s.out, s.tokens, s.in, &alpha, a.data(), t.ab,
                                       s.in, s.out * s.in, b.data(), t.ab, s.in, &beta, c.data(), t.c, s.out,
                                       d_ends.data(), s.groups, t.compute, nullptr, kernel) == GEMMKIT_SUCCESS;
    }
    // The layer as one plain GEMM: every token times expert 0's weight, by gemmkit's auto or cuBLAS.
    bool run_dense(cudaStream_t stream) const {
        return gemmkit_gemm_ex(stream, GEMMKIT_OP_T, GEMMKIT_OP_N, s.out, s.tokens, s.in, &alpha, a.data(), t.ab, s.in,
                               b.data(), t.ab, s.in, &beta, c.data(), t.c, s.out, t.compute, "auto") == GEMMKIT_SUCCESS;
    }
    bool run_dense_cublas(const ref::Cublas& blas) const { return cublas_gemm(blas, a.data(), b.data(), c.data(), s.tokens); }
    bool run_loop(const ref::Cublas& blas) const {
        for (size_t g = 0; g < ends.size(); ++g) {
            const int64_t cols = ends[g] - begin(g);
            if (cols != 0 && !cublas_gemm(blas, a_of(g), b_of(g), c_of(g), cols)) return false;
        }
        return true;
    }
    // One cublasGemmEx of the layer's shape over `cols` tokens: C (out x cols) = W^T x^T.
    bool cublas_gemm(const ref::Cublas& blas, const void* w, const void* x, void* out, int64_t cols) const {
        return cublasGemmEx(blas.get(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(s.out), static_cast<int>(cols),
                            static_cast<int>(s.in), &alpha, w, cuda_type(t.ab), static_cast<int>(s.in), x,
                            cuda_type(t.ab), static_cast<int>(s.in), &beta, out, cuda_type(t.c), static_cast<int>(s.out),
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
    }
    cublasStatus_t run_grouped(const ref::Cublas& blas) const {
        return cublasGemmGroupedBatchedEx(blas.get(), ta_arr.data(), tb_arr.data(), m_arr.data(), n_arr.data(),
                                          k_arr.data(), alphas.data(), a_ptrs.data(), cuda_type(t.ab), lda_arr.data(),
                                          b_ptrs.data(), cuda_type(t.ab), ldb_arr.data(), betas.data(), c_ptrs.data(),
                                          cuda_type(t.c), ldc_arr.data(), static_cast<int>(m_arr.size()), sizes.data(),
                                          CUBLAS_COMPUTE_32F);
    }

    // The C of auto (kernel null) or of the named row, group by group, against an FP64 reference
    // of the same inputs: "" or what is wrong.
    std::string verify(const ref::Cublas& blas, cudaStream_t stream, const char* kernel = nullptr) const {
        const std::string who = kernel == nullptr ? "auto" : kernel;
        verify::fill_nan(c.data(), t.c, s.tokens * s.out, stream);
        if (!run_gemmkit(stream, kernel)) return who + ": " + gemmkit_last_error();
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<unsigned char> after(c.size());
        c.copy_to_host(after.data());
        // The reference's buffers, once, for the widest group.
        int64_t widest = 0;
        for (size_t g = 0; g < ends.size(); ++g) widest = std::max<int64_t>(widest, ends[g] - begin(g));
        const size_t most = static_cast<size_t>(s.out * widest);
        DeviceBuffer<double> d_values(most), d_scale(most);
        std::vector<double> values(most), scale(most);
        return verify::visit_dtype(t.c, [&]<class T>(std::type_identity<T>) -> std::string {
            for (size_t g = 0; g < ends.size(); ++g) {
                const int64_t cols = ends[g] - begin(g);
                if (cols == 0) continue;
                Problem p;
                p.transa = GEMMKIT_OP_T;
                p.m = s.out, p.n = cols, p.k = s.in;
                p.A = a_of(g), p.lda = s.in, p.B = b_of(g), p.ldb = s.in, p.C = c_of(g), p.ldc = s.out;
                p.a_type = p.b_type = t.ab, p.c_type = t.c, p.compute = t.compute;
                ref::cublas_reference_f64(blas, p, verify::Tf32Inputs::exact, d_values.data(), d_scale.data());
                const size_t bytes = static_cast<size_t>(s.out * cols) * sizeof(double);
                CUDA_CHECK(cudaMemcpy(values.data(), d_values.data(), bytes, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(scale.data(), d_scale.data(), bytes, cudaMemcpyDeviceToHost));
                const T* out = reinterpret_cast<const T*>(after.data()) + begin(g) * s.out;
                const verify::CompareResult r = verify::compare(out, s.out, values.data(), scale.data(), s.out, cols,
                                                                s.in, verify::tolerance_for(t.ab, t.c, t.compute, s.in));
                if (!r.pass) return who + ": group " + std::to_string(g) + ": " + verify::describe(r);
            }
            return "";
        });
    }
};

GroupedRow measure(const GroupedShape& s, const CorpusType& t, uint64_t seed, const TimingPlan& plan,
                   const ref::Cublas& blas, L2Flusher& flusher, cudaStream_t stream) {
    GroupedRow r;
    r.shape = &s;
    r.type = &t;
    const Layer layer(s, t, seed, stream);
    // The grouped rows of the type: "f16.16_grouped", "f16.16_grouped_tma_store", ...
    const std::vector<std::string> rows = rows_named(std::string(t.name) + ".16_grouped");
    std::vector<const char*> checked = {nullptr};  // auto, then each row by name
    for (const std::string& name : rows) checked.push_back(name.c_str());
    for (const char* kernel : checked)
        if (const std::string failed = layer.verify(blas, stream, kernel); !failed.empty())
            return r.status = "FAILED: " + failed, r;
    r.grouped_ok = layer.run_grouped(blas) == CUBLAS_STATUS_SUCCESS;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<Contender> contenders = {{"auto", [&] { return layer.run_gemmkit(stream); }},
                                         {"cublas-loop", [&] { return layer.run_loop(blas); }},
                                         {"dense", [&] { return layer.run_dense(stream); }},
                                         {"dense-cublas", [&] { return layer.run_dense_cublas(blas); }}};
    if (r.grouped_ok)
        contenders.push_back({"cublas-grouped", [&] { return layer.run_grouped(blas) == CUBLAS_STATUS_SUCCESS; }});
    const size_t first_row = contenders.size();
    for (const std::string& name : rows)
        contenders.push_back({name, [&layer, &name, stream] { return layer.run_gemmkit(stream, name.c_str()); }});
    const std::vector<Timing> times = time_interleaved(contenders, plan, flusher, stream);
    r.autot = times[0];
    r.loop = times[1];
    r.dense = times[2];
    r.dense_cublas = times[3];
    if (r.grouped_ok) r.grouped = times[4];
    for (size_t i = 0; i < rows.size(); ++i) r.by_row.emplace_back(rows[i], times[first_row + i]);
    return r;
}

double flops_of(const GroupedShape& s) { return 2.0 * s.tokens * s.out * s.in; }

void print_row(const GroupedRow& r) {
    const GroupedShape& s = *r.shape;
    std::printf("%-14s %-4s %6d %7lld %6lld %6lld", s.name, r.type->name, s.groups, static_cast<long long>(s.tokens),
                static_cast<long long>(s.out), static_cast<long long>(s.in));
    if (!r.timed()) {
        std::printf("  %s\n", r.status.c_str());
    } else {
        std::printf(" %9.4f %9.4f %9s %6.3f %7.1f %7.1f\n", r.autot.median_ms, r.loop.median_ms,
                    r.grouped_ok ? std::to_string(r.grouped.median_ms).substr(0, 9).c_str() : "n/a", r.ratio(),
                    tflops_at(flops_of(s), r.autot.median_ms), tflops_at(flops_of(s), r.best_cublas_ms()));
        std::printf("%-14s by row:", "");
        for (const auto& [name, t] : r.by_row)
            std::printf("  %s %.4f ms (ratio %.3f)", name.c_str(), t.median_ms, r.best_cublas_ms() / t.median_ms);
        std::printf("\n%-14s without groups: gemmkit %.4f ms (ratio %.3f), cublasGemmEx %.4f ms\n", "",
                    r.dense.median_ms, r.best_cublas_ms() / r.dense.median_ms, r.dense_cublas.median_ms);
    }
    std::fflush(stdout);
}

void write_csv(const std::string& path, const std::vector<GroupedRow>& rows, const analysis::DeviceInfo& d) {
    std::ofstream f = open_output(path);
    f << "row,type,groups,tokens,out,in,status,auto_median_ms,cublas_loop_median_ms,cublas_grouped_median_ms,ratio,"
         "auto_tflops,cublas_tflops,rows_median_ms,dense_median_ms,dense_cublas_median_ms,device,commit\n";
    for (const GroupedRow& r : rows) {
        const GroupedShape& s = *r.shape;
        auto timed = [&](double v) { return csv_number(r.timed() ? v : kNaN); };
        f << csv_field(s.name) << ',' << csv_field(r.type->name) << ',' << s.groups << ',' << s.tokens << ',' << s.out
          << ',' << s.in << ',' << csv_field(r.status) << ',' << timed(r.autot.median_ms) << ','
          << timed(r.loop.median_ms) << ',' << csv_number(r.timed() && r.grouped_ok ? r.grouped.median_ms : kNaN)
          << ',' << csv_number(r.ratio()) << ',' << timed(tflops_at(flops_of(s), r.autot.median_ms)) << ','
          << timed(tflops_at(flops_of(s), r.best_cublas_ms())) << ',';
        std::ostringstream rows;  // "name=ms;name=ms"
        for (size_t i = 0; i < r.by_row.size(); ++i)
            rows << (i ? ";" : "") << r.by_row[i].first << '=' << csv_number(r.by_row[i].second.median_ms);
        f << csv_field(rows.str()) << ',' << timed(r.dense.median_ms) << ',' << timed(r.dense_cublas.median_ms) << ','
          << csv_field(d.name) << ',' << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    }
    close_output(f, path);
}

}  // namespace

int bench_grouped(const Options& o) {
    std::vector<const CorpusType*> types;  // FP16 and BF16 only: what the grouped kernel serves
    for (const CorpusType* t : selected_types(o))
        if (t->ab == GEMMKIT_R_16F || t->ab == GEMMKIT_R_16BF) types.push_back(t);
    analysis::DeviceInfo dev;
    if (!require_device("bench --suite grouped", &dev)) return 1;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    ref::Cublas blas(stream);
    L2Flusher flusher(dev, o.flush_by_reading);
    const TimingPlan plan = corpus_timing(o);
    std::printf("gemmkit bench --suite grouped — %s\n", analysis::one_line(dev).c_str());
    std::printf("commit %s; seed %llu; mixture-of-experts layers: out[t] = x[t] @ W_g^T for the tokens t of expert g "
                "(uneven groups, multiples of 16 tokens)\n",
                GEMMKIT_GIT_COMMIT, static_cast<unsigned long long>(o.seed));
    std::printf("auto (gemmkit_gemm_grouped_ex, ends on the device) verified group by group against FP64; then %d "
                "warm-up + up to %d timed calls of it, a cublasGemmEx loop and cublasGemmGroupedBatchedEx (and the "
                "layer without groups: gemmkit auto and cublasGemmEx of out x tokens x in), interleaved, L2 flushed "
                "(%s) before each\n",
                plan.warmup, plan.iters, flusher.how());
    std::printf("ratio = the faster cuBLAS call's ms / auto ms (> 1: gemmkit faster)\n\n");
    std::printf("%-14s %-4s %6s %7s %6s %6s %9s %9s %9s %6s %7s %7s\n", "row", "type", "groups", "tokens", "out", "in",
                "auto ms", "loop ms", "grouped", "ratio", "TFLOP/s", "cuBLAS");
    std::vector<GroupedRow> rows;
    int failures = 0;
    for (const GroupedShape& s : grouped_corpus())
        for (const CorpusType* t : types) {
            rows.push_back(measure(s, *t, o.seed, plan, blas, flusher, stream));
            failures += rows.back().status.rfind("FAILED", 0) == 0;
            print_row(rows.back());
        }
    print_type_summary(rows, types, [](const GroupedRow&) { return true; }, [](const GroupedRow& r) { print_row(r); });
    CUDA_CHECK(cudaStreamDestroy(stream));
    if (!o.csv.empty()) write_csv(o.csv, rows, dev);
    if (failures > 0) std::printf("\n%d (row, type) pair(s) FAILED verification and were not timed\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
