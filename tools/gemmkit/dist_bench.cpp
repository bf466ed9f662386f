// One rank of gemmkit dist-bench. For each token count m and each operation it times, interleaved
// (A B C ... C B A, an L2 flush and a barrier before each call), on a Llama-70B-like layer:
//   auto        gemmkit_dist as the plan chooses;     overlap   gemmkit_dist, overlap forced;
//   seq gemmkit the NCCL collective, then gemmkit;    seq cuBLAS the collective, then cuBLAS;
//   comm        the collective alone;                  GEMM      gemmkit's GEMM alone.
// A call's time is the slowest rank's. Rank 0 prints the medians, the speedups, the link
// bandwidth, how much of the communication was hidden, and the GEMM's rate inside the overlap.
#include "dist_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "gemmkit/gemmkit_dist.h"
#include "l2_flush.hpp"
#include "verify/matrix_init.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {

struct Failure {
    std::string what;
};
void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw Failure{std::string(what) + ": " + cudaGetErrorString(e)};
}
void check(ncclResult_t r, const char* what) {
    if (r != ncclSuccess) throw Failure{std::string(what) + ": " + ncclGetErrorString(r)};
}
void check(gemmkit_status s, const char* what) {
    if (s != GEMMKIT_SUCCESS)
        throw Failure{std::string(what) + ": " + gemmkit_status_string(s) + " " + gemmkit_last_error() + " " +
                      gemmkit_dist_last_error()};
}
void check(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) throw Failure{std::string(what) + ": cuBLAS status " + std::to_string(s)};
}

struct Buffer {
    void* p = nullptr;
    explicit Buffer(size_t bytes) { check(cudaMalloc(&p, std::max<size_t>(bytes, 16)), "cudaMalloc"); }
    ~Buffer() { cudaFree(p); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
};

struct Contender {
    const char* name;
    std::function<void()> run;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
}

// ||a - b|| / ||b|| over BF16 arrays on the device.
double relative_difference(const void* a, const void* b, int64_t count) {
    std::vector<__nv_bfloat16> ha(static_cast<size_t>(count)), hb(static_cast<size_t>(count));
    check(cudaMemcpy(ha.data(), a, ha.size() * 2, cudaMemcpyDeviceToHost), "download");
    check(cudaMemcpy(hb.data(), b, hb.size() * 2, cudaMemcpyDeviceToHost), "download");
    double diff = 0, norm = 0;
    for (size_t i = 0; i < ha.size(); ++i) {
        const double x = __bfloat162float(ha[i]), y = __bfloat162float(hb[i]);
        diff += (x - y) * (x - y);
        norm += y * y;
    }
    return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

struct Rank {
    int rank = 0, ranks = 1;
    ncclComm_t world = nullptr;
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    gemmkit_dist auto_ctx = nullptr, overlap_ctx = nullptr;
    std::unique_ptr<Buffer> flush, one;
    size_t flush_bytes = 0;
    unsigned* sink = nullptr;
    int sm_count = 0;

    // Y[rows, n] = X[rows, k] · W^T, W [n, k] (torch Linear layout), row-major, BF16.
    void gemmkit_rows(int64_t rows, int64_t n, int64_t k, const void* x, const void* w, void* y) const {
        const float alpha = 1, beta = 0;
        check(gemmkit_gemm_ex(stream, GEMMKIT_OP_T, GEMMKIT_OP_N, n, rows, k, &alpha, w, GEMMKIT_R_16BF, k, x,
                              GEMMKIT_R_16BF, k, &beta, y, GEMMKIT_R_16BF, n, GEMMKIT_COMPUTE_32F, nullptr),
              "gemmkit_gemm_ex");
    }
    void cublas_rows(int64_t rows, int64_t n, int64_t k, const void* x, const void* w, void* y) const {
        const float alpha = 1, beta = 0;
        check(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(rows),
                           static_cast<int>(k), &alpha, w, CUDA_R_16BF, static_cast<int>(k), x, CUDA_R_16BF,
                           static_cast<int>(k), &beta, y, CUDA_R_16BF, static_cast<int>(n), CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
    }

    // Times the contenders interleaved; returns each one's per-call times (the slowest rank's).
    std::vector<std::vector<double>> time(const std::vector<Contender>& cs, int warmup, int iters) {
        for (const Contender& c : cs)
            for (int i = 0; i < warmup; ++i) c.run();
        check(cudaStreamSynchronize(stream), "warm-up");
        const size_t n = cs.size();
        std::vector<cudaEvent_t> ev(2 * n * iters);
        for (cudaEvent_t& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
        for (int it = 0; it < iters; ++it) {
            for (size_t j = 0; j < n; ++j) {
                const size_t c = it % 2 == 0 ? j : n - 1 - j;  // A B C ... C B A
                check(read_buffer_through_l2(flush->p, flush_bytes, sink, sm_count, stream), "L2 flush");
                check(ncclAllReduce(one->p, one->p, 1, ncclFloat, ncclSum, world, stream), "barrier");
                check(cudaEventRecord(ev[2 * (it * n + c)], stream), "cudaEventRecord");
                cs[c].run();
                check(cudaEventRecord(ev[2 * (it * n + c) + 1], stream), "cudaEventRecord");
            }
            check(cudaStreamSynchronize(stream), "timed calls");
        }
        std::vector<float> ms(n * iters);
        for (size_t c = 0; c < n; ++c)
            for (int it = 0; it < iters; ++it)
                check(cudaEventElapsedTime(&ms[c * iters + it], ev[2 * (it * n + c)], ev[2 * (it * n + c) + 1]),
                      "cudaEventElapsedTime");
        for (cudaEvent_t e : ev) cudaEventDestroy(e);
        Buffer d(ms.size() * sizeof(float));
        check(cudaMemcpy(d.p, ms.data(), ms.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
        check(ncclAllReduce(d.p, d.p, ms.size(), ncclFloat, ncclMax, world, stream), "max over ranks");
        check(cudaStreamSynchronize(stream), "max over ranks");
        check(cudaMemcpy(ms.data(), d.p, ms.size() * sizeof(float), cudaMemcpyDeviceToHost), "download");
        std::vector<std::vector<double>> out(n);
        for (size_t c = 0; c < n; ++c)
            for (int it = 0; it < iters; ++it) out[c].push_back(1e3 * ms[c * iters + it]);
        return out;
    }

    double max_over_ranks(double v) {
        Buffer d(sizeof(double));
        check(cudaMemcpy(d.p, &v, sizeof v, cudaMemcpyHostToDevice), "upload");
        check(ncclAllReduce(d.p, d.p, 1, ncclDouble, ncclMax, world, stream), "max over ranks");
        check(cudaStreamSynchronize(stream), "max over ranks");
        check(cudaMemcpy(&v, d.p, sizeof v, cudaMemcpyDeviceToHost), "download");
        return v;
    }
};

struct Row {
    std::string op;
    int64_t m = 0;
    double t[6] = {};  // auto, overlap, seq gemmkit, seq cuBLAS, comm, GEMM (us, medians)
    double bytes = 0;  // received per rank by the collective
    double error = 0;  // ||auto - seq gemmkit|| / ||seq gemmkit||, the worst rank's
    std::string plan;
};

Row measure(Rank& R, const Options& o, bool gather, int64_t m) {
    const int P = R.ranks;
    const int64_t rows = m / P, width = o.ffn / P, H = o.hidden;
    const gemmkit_dtype bf16 = GEMMKIT_R_16BF;
    Row row;
    row.op = gather ? "AllGather-GEMM" : "GEMM-ReduceScatter";
    row.m = m;
    // AllGather-GEMM: X [rows, H] -> gathered [m, H]; W [width, H]; Y [m, width].
    // GEMM-ReduceScatter: X [m, width]; W [H, width]; partial sums [m, H] -> Y [rows, H].
    const int64_t x_count = gather ? rows * H : m * width, w_count = gather ? width * H : H * width;
    const int64_t y_count = gather ? m * width : rows * H, mid_count = m * H;
    Buffer x(x_count * 2), w(w_count * 2), y(y_count * 2), y_ref(y_count * 2), mid(mid_count * 2);
    verify::fill_uniform(x.p, bf16, x_count, o.seed + 7 * R.rank + 1, R.stream);
    verify::fill_uniform(w.p, bf16, w_count, o.seed + 7 * R.rank + 2, R.stream);
    auto dist = [&](gemmkit_dist ctx, void* out) {
        if (gather)
            check(gemmkit_dist_allgather_gemm(ctx, R.stream, m, width, H, x.p, H, w.p, GEMMKIT_OP_T, H, out, width, bf16),
                  "gemmkit_dist_allgather_gemm");
        else
            check(gemmkit_dist_gemm_reducescatter(ctx, R.stream, m, H, width, x.p, width, w.p, GEMMKIT_OP_T, width, out,
                                                  H, bf16),
                  "gemmkit_dist_gemm_reducescatter");
    };
    auto collective = [&] {
        if (gather)
            check(ncclAllGather(x.p, mid.p, rows * H, ncclBfloat16, R.world, R.stream), "ncclAllGather");
        else
            check(ncclReduceScatter(mid.p, y.p, rows * H, ncclBfloat16, ncclSum, R.world, R.stream), "ncclReduceScatter");
    };
    auto gemm = [&](bool cublas, void* out) {
        auto run = [&](int64_t r, int64_t n, int64_t k, const void* a, void* c) {
            if (cublas) R.cublas_rows(r, n, k, a, w.p, c);
            else R.gemmkit_rows(r, n, k, a, w.p, c);
        };
        if (gather) run(m, width, H, mid.p, out);
        else run(m, H, width, x.p, mid.p);
    };
    auto sequential = [&](bool cublas, void* out) {
        if (gather) {
            collective();
            gemm(cublas, out);
        } else {
            gemm(cublas, nullptr);
            check(ncclReduceScatter(mid.p, out, rows * H, ncclBfloat16, ncclSum, R.world, R.stream),
                  "ncclReduceScatter");
        }
    };
    const std::vector<Contender> cs = {
        {"auto", [&] { dist(R.auto_ctx, y.p); }},
        {"overlap", [&] { dist(R.overlap_ctx, y.p); }},
        {"seq gemmkit", [&] { sequential(false, y.p); }},
        {"seq cuBLAS", [&] { sequential(true, y.p); }},
        {"comm", collective},
        {"GEMM", [&] { gemm(false, y.p); }},
    };
    const std::vector<std::vector<double>> t = R.time(cs, o.warmup, o.iters);
    for (int c = 0; c < 6; ++c) row.t[c] = median(t[c]);
    row.bytes = double(m - rows) * H * 2;  // the other ranks' rows of X, or of the partial sums
    dist(R.auto_ctx, y.p);
    row.plan = gemmkit_dist_last_plan();
    sequential(false, y_ref.p);
    check(cudaStreamSynchronize(R.stream), "checking the result");
    row.error = R.max_over_ranks(relative_difference(y.p, y_ref.p, y_count));
    return row;
}

}  // namespace

bool make_nccl_id(std::string* hex, std::string* err) {
    ncclUniqueId id;
    if (ncclResult_t r = ncclGetUniqueId(&id); r != ncclSuccess) {
        *err = std::string("ncclGetUniqueId: ") + ncclGetErrorString(r);
        return false;
    }
    static const char* digits = "0123456789abcdef";
    hex->clear();
    for (unsigned char byte : id.internal) {
        hex->push_back(digits[byte >> 4]);
        hex->push_back(digits[byte & 15]);
    }
    return true;
}

int run_dist_bench_rank(const Options& o, int rank, int ranks, const char* id_hex) {
    Rank R;
    R.rank = rank, R.ranks = ranks;
    try {
        ncclUniqueId id{};
        const std::string hex = id_hex == nullptr ? "" : id_hex;
        if (hex.size() != 2 * sizeof id.internal) throw Failure{"no NCCL id in the environment"};
        for (size_t i = 0; i < sizeof id.internal; ++i)
            id.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
        check(cudaSetDevice(rank), "cudaSetDevice");
        check(ncclCommInitRank(&R.world, ranks, id, rank), "ncclCommInitRank");
        check(cudaStreamCreateWithFlags(&R.stream, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cublasCreate(&R.blas), "cublasCreate");
        check(cublasSetStream(R.blas, R.stream), "cublasSetStream");
        gemmkit_dist_options opt{};
        opt.comm_sms = o.comm_sms;
        opt.pieces = o.pieces;
        check(gemmkit_dist_create(R.world, &opt, &R.auto_ctx), "gemmkit_dist_create");
        opt.schedule = GEMMKIT_DIST_OVERLAP;
        check(gemmkit_dist_create(R.world, &opt, &R.overlap_ctx), "gemmkit_dist_create");
        int l2 = 0;
        check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, rank), "L2 size");
        check(cudaDeviceGetAttribute(&R.sm_count, cudaDevAttrMultiProcessorCount, rank), "SM count");
        R.flush_bytes = 2 * static_cast<size_t>(l2);
        R.flush = std::make_unique<Buffer>(R.flush_bytes);
        R.one = std::make_unique<Buffer>(sizeof(float));
        check(cudaMemset(R.flush->p, 0, R.flush_bytes), "cudaMemset");
        check(cudaMalloc(&R.sink, sizeof(unsigned)), "cudaMalloc");

        std::vector<int64_t> ms;
        for (const Shape& s : o.shapes) ms.push_back(s.m);
        if (ms.empty()) ms = {128, 256, 1024, 8192};
        for (int64_t m : ms)
            if (m % ranks != 0 || o.ffn % ranks != 0)
                throw Failure{"--m values and --ffn must be multiples of --gpus (" + std::to_string(ranks) + ")"};
        std::vector<Row> rows;
        for (int64_t m : ms)
            for (bool gather : {true, false}) {
                rows.push_back(measure(R, o, gather, m));
                const Row& r = rows.back();
                if (rank != 0) continue;
                if (rows.size() == 1)
                    std::printf("%-19s %6s %2s %9s %9s %9s %9s %8s %9s %7s %7s %7s %6s %6s %6s %8s\n", "op", "m", "P",
                                "auto us", "overlap", "seq gk", "seq cuBLAS", "comm", "GEMM", "speedup", "ovl x",
                                "vs cuBLAS", "GB/s", "hidden", "GEMM%", "rel err");
                const double seq = r.t[2], comm = r.t[4];
                std::printf("%-19s %6lld %2d %9.1f %9.1f %9.1f %9.1f %8.1f %9.1f %6.3fx %6.3fx %8.3fx %6.0f %5.0f%% %5.0f%% "
                            "%8.1e\n",
                            r.op.c_str(), static_cast<long long>(r.m), ranks, r.t[0], r.t[1], seq, r.t[3], comm, r.t[5],
                            seq / r.t[0], seq / r.t[1], r.t[3] / r.t[0], r.bytes / (comm * 1e3),
                            100 * (seq - r.t[0]) / comm, 100 * r.t[5] / r.t[1], r.error);
                std::printf("    plan: %s\n", r.plan.c_str());
                std::fflush(stdout);
            }
        if (rank == 0 && !o.csv.empty()) {
            std::ofstream f(o.csv);
            f << "op,m,gpus,hidden,ffn,auto_us,overlap_us,seq_gemmkit_us,seq_cublas_us,comm_us,gemm_us,bytes_received,"
                 "rel_error,plan\n";
            for (const Row& r : rows) {
                f << r.op << ',' << r.m << ',' << ranks << ',' << o.hidden << ',' << o.ffn;
                for (double v : r.t) f << ',' << csv_number(v);
                f << ',' << csv_number(r.bytes) << ',' << csv_number(r.error) << ',' << csv_field(r.plan) << '\n';
            }
        }
    } catch (const Failure& f) {
        std::fprintf(stderr, "gemmkit dist-bench: rank %d: %s\n", rank, f.what.c_str());
        return 1;
    }
    gemmkit_dist_destroy(R.auto_ctx);
    gemmkit_dist_destroy(R.overlap_ctx);
    if (R.blas != nullptr) cublasDestroy(R.blas);
    if (R.world != nullptr) ncclCommDestroy(R.world);
    return 0;
}

}  // namespace gemmkit::cli
