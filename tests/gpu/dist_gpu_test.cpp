// gemmkit_dist on real GPUs, in one process: one NCCL communicator per device over the first P
// (ncclCommInitAll), one thread per rank, each on its device with its own stream and context.
// Every result is compared with the whole problem computed on device 0 by the FP64 reference
// (ref::cublas_reference_f64) from the same rounded inputs, under the library's tolerance for
// the type. P = 1, 2 and (with 4 GPUs) 4; a test that needs more GPUs than there are skips
// with the reason, so CI (no GPU) skips them all and main() exits 77.
//
// Built only where NCCL is found, as its own program (tests/CMakeLists.txt): gemmkit_dist_gpu_tests.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include "dist/dist_plan.hpp"
#include "gemmkit/gemmkit_dist.h"
#include "../host/test_util.hpp"  // names
#include "gpu_test.hpp"

namespace gemmkit::test {
namespace {

// How long a context waits for its peers to exchange a call's sizes: short, so that a test
// that goes wrong fails instead of waiting out the default minute.
constexpr int kTimeoutMs = 20000;

constexpr gemmkit_dist_schedule kSchedules[] = {GEMMKIT_DIST_AUTO, GEMMKIT_DIST_SEQUENTIAL, GEMMKIT_DIST_OVERLAP};

const char* schedule_name(gemmkit_dist_schedule s) {
    return s == GEMMKIT_DIST_SEQUENTIAL ? "sequential" : s == GEMMKIT_DIST_OVERLAP ? "overlap" : "auto";
}

// fn(rank) on one thread per rank, each on its device; returns when every one has.
void on_every_rank(int ranks, const std::function<void(int)>& fn) {
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&fn, r] {
            if (cudaSetDevice(r) != cudaSuccess) return;  // the caller sees the rank's result missing
            fn(r);
        });
    for (std::thread& t : threads) t.join();
}

// ---- the ranks: communicators, streams and contexts, made once per rank count ----

struct World {
    int ranks = 0;
    std::vector<ncclComm_t> comms;
    std::vector<cudaStream_t> streams;
    std::map<gemmkit_dist_schedule, std::vector<gemmkit_dist>> contexts;  // one per rank, per schedule

    gemmkit_dist ctx(gemmkit_dist_schedule s, int rank) { return contexts.at(s)[static_cast<size_t>(rank)]; }
};

// Contexts are made collectively: every rank at once, each on its thread.
std::string make_contexts(World& w, const gemmkit_dist_options& options, std::vector<gemmkit_dist>* out) {
    out->assign(static_cast<size_t>(w.ranks), nullptr);
    std::vector<gemmkit_status> status(static_cast<size_t>(w.ranks), GEMMKIT_CUDA_ERROR);
    std::vector<std::string> error(static_cast<size_t>(w.ranks), "cudaSetDevice failed");
    on_every_rank(w.ranks, [&](int r) {
        status[r] = gemmkit_dist_create(w.comms[r], &options, &(*out)[r]);
        error[r] = gemmkit_dist_last_error();
    });
    for (int r = 0; r < w.ranks; ++r)
        if (status[r] != GEMMKIT_SUCCESS)
            return "gemmkit_dist_create on rank " + std::to_string(r) + ": " + gemmkit_status_string(status[r]) +
                   " (" + error[r] + ")";
    return "";
}

void destroy_contexts(int ranks, const std::vector<gemmkit_dist>& contexts) {
    on_every_rank(ranks, [&](int r) { gemmkit_dist_destroy(contexts[r]); });
}

// A test's own contexts, one per rank with the same options, destroyed together at its end.
class ScopedContexts {
public:
    ScopedContexts(World& w, const gemmkit_dist_options& options) : ranks_(w.ranks) {
        error_ = make_contexts(w, options, &contexts_);
    }
    ~ScopedContexts() { destroy_contexts(ranks_, contexts_); }
    ScopedContexts(const ScopedContexts&) = delete;
    ScopedContexts& operator=(const ScopedContexts&) = delete;

    const std::string& error() const { return error_; }  // "" when every rank made its context
    const std::vector<gemmkit_dist>* get() const { return &contexts_; }

private:
    int ranks_;
    std::vector<gemmkit_dist> contexts_;
    std::string error_;
};

// Communicators over devices 0..ranks-1 (ncclCommInitAll), with multicast (NVLS) off.
std::string make_comms(int ranks, std::vector<ncclComm_t>* comms) {
    setenv("NCCL_NVLS_ENABLE", "0", 1);  // before NCCL reads its environment, at the first init
    comms->assign(static_cast<size_t>(ranks), nullptr);
    const ncclResult_t r = ncclCommInitAll(comms->data(), ranks, nullptr);
    if (r != ncclSuccess) return std::string("ncclCommInitAll over ") + std::to_string(ranks) +
                                 " devices: " + ncclGetErrorString(r);
    return "";
}

// A blocking communicator's destruction waits for its peers: every rank at once.
void destroy_comms(int ranks, const std::vector<ncclComm_t>& comms) {
    on_every_rank(ranks, [&](int r) {
        if (comms[r] != nullptr) ncclCommDestroy(comms[r]);
    });
}

std::string make_world(int ranks, World* w) {
    w->ranks = ranks;
    if (std::string e = make_comms(ranks, &w->comms); !e.empty()) return e;
    w->streams.assign(static_cast<size_t>(ranks), nullptr);
    for (int r = 0; r < ranks; ++r) {
        if (cudaSetDevice(r) != cudaSuccess || cudaStreamCreateWithFlags(&w->streams[r], cudaStreamNonBlocking) != cudaSuccess)
            return "creating rank " + std::to_string(r) + "'s stream";
    }
    for (gemmkit_dist_schedule s : kSchedules) {
        gemmkit_dist_options options{};
        options.schedule = s;
        options.timeout_ms = kTimeoutMs;
        if (std::string e = make_contexts(*w, options, &w->contexts[s]); !e.empty())
            return std::string(schedule_name(s)) + ": " + e;
    }
    cudaSetDevice(0);
    return "";
}

void destroy_world(World& w) {
    for (auto& [schedule, contexts] : w.contexts) destroy_contexts(w.ranks, contexts);
    for (int r = 0; r < static_cast<int>(w.streams.size()); ++r) {
        if (w.streams[r] == nullptr) continue;
        cudaSetDevice(r);
        cudaStreamDestroy(w.streams[r]);
    }
    destroy_comms(w.ranks, w.comms);
    cudaSetDevice(0);
}

// The FP64 reference's cuBLAS handle and stream on device 0.
struct ReferenceDevice {
    cudaStream_t stream = nullptr;
    std::unique_ptr<ref::Cublas> blas;
};

struct Worlds {
    std::map<int, std::unique_ptr<World>> by_ranks;
    std::map<int, std::string> failed;  // a world that could not be made, and why
    std::unique_ptr<ReferenceDevice> reference;
};
Worlds& worlds() {
    static Worlds w;
    return w;
}

// Everything made for the tests goes before the program ends (NCCL's threads, CUDA's contexts).
class WorldsEnvironment : public ::testing::Environment {
public:
    void TearDown() override {
        Worlds& w = worlds();
        for (auto& [ranks, world] : w.by_ranks) destroy_world(*world);
        w.by_ranks.clear();
        if (w.reference != nullptr) {
            cudaSetDevice(0);
            w.reference->blas.reset();
            cudaStreamDestroy(w.reference->stream);
            w.reference.reset();
        }
    }
};
[[maybe_unused]] ::testing::Environment* const kWorldsEnvironment =
    ::testing::AddGlobalTestEnvironment(new WorldsEnvironment);

// Why a test of `ranks` ranks cannot run here ("" when it can).
std::string missing_gpus(int ranks) {
    const DevicePresence& d = device_presence();
    if (d.count == 0) return "no CUDA device (" + d.reason + ")";
    if (d.count < ranks)
        return "needs " + std::to_string(ranks) + " GPUs, this machine has " + std::to_string(d.count);
    return "";
}

// The world of `ranks` ranks, made on first use; nullptr and *error when it cannot be made.
World* world_of(int ranks, std::string* error) {
    Worlds& w = worlds();
    if (auto it = w.by_ranks.find(ranks); it != w.by_ranks.end()) return it->second.get();
    if (auto it = w.failed.find(ranks); it != w.failed.end()) {
        *error = it->second;
        return nullptr;
    }
    auto world = std::make_unique<World>();
    if (std::string e = make_world(ranks, world.get()); !e.empty()) {
        destroy_world(*world);
        w.failed[ranks] = e;
        *error = e;
        return nullptr;
    }
    return (w.by_ranks[ranks] = std::move(world)).get();
}

const ReferenceDevice& reference_device() {
    Worlds& w = worlds();
    if (w.reference == nullptr) {
        auto d = std::make_unique<ReferenceDevice>();
        CUDA_CHECK(cudaSetDevice(0));
        CUDA_CHECK(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
        d->blas = std::make_unique<ref::Cublas>(d->stream);
        w.reference = std::move(d);
    }
    return *w.reference;
}

// Skips the test when there are too few GPUs, fails it when the ranks cannot be set up.
#define GET_WORLD_OR_SKIP(world, ranks)                                         \
    World* world = nullptr;                                                     \
    do {                                                                        \
        if (const std::string gk_missing_ = missing_gpus(ranks); !gk_missing_.empty()) \
            GTEST_SKIP() << gk_missing_;                                        \
        std::string gk_error_;                                                  \
        world = world_of(ranks, &gk_error_);                                    \
        ASSERT_NE(world, nullptr) << gk_error_;                                 \
    } while (0)

// ---- one problem, shared out over the ranks ----

enum class Op { kAllGather, kReduceScatter };

// The whole problem, Y[m, n] = X[m, k] · op(W) (row-major), and how it runs.
struct DistCase {
    Op op = Op::kAllGather;
    gemmkit_dtype type = GEMMKIT_R_16BF;
    gemmkit_op w_op = GEMMKIT_OP_N;
    gemmkit_dist_schedule schedule = GEMMKIT_DIST_AUTO;
    int ranks = 2;
    const char* shape = "";
    int64_t m = 0, n = 0, k = 0;
    int64_t pad = 0;  // ldx, ldw and ldy exceed what each rank's part needs by this
    uint64_t seed = 1;
};

std::string describe(const DistCase& c) {
    return std::string(c.op == Op::kAllGather ? "AllGather-GEMM" : "GEMM-ReduceScatter") + " " +
           (c.type == GEMMKIT_R_16BF ? "bf16" : "f16") + " W" + (c.w_op == GEMMKIT_OP_N ? "N" : "T") + " " +
           schedule_name(c.schedule) + " P=" + std::to_string(c.ranks) + " m=" + std::to_string(c.m) +
           " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " ld+" + std::to_string(c.pad) +
           " seed=" + std::to_string(c.seed);
}
void PrintTo(const DistCase& c, std::ostream* os) { *os << describe(c); }

// Rank r's part. AllGather: its rows of X, all of W's depth, its columns of W and Y.
// ReduceScatter: its slice of the depth (X's columns, W's), and its rows of Y.
struct Part {
    int64_t x_rows = 0, x_cols = 0, ldx = 1;
    int64_t w_rows = 0, w_cols = 0, ldw = 1;  // as stored: [k, n] for w_op N, [n, k] for T
    int64_t y_rows = 0, y_cols = 0, ldy = 1;
    int64_t n = 0, k = 0;                     // the call's n_local / n and k / k_local
    int64_t row0 = 0;  // AllGather: first row of X; ReduceScatter: first row of Y
    int64_t col0 = 0;  // AllGather: first column of W and Y; ReduceScatter: first column of X (depth)
};

Part part_of(const DistCase& c, int r) {
    const int P = c.ranks;
    Part p;
    const int64_t row0 = gemmkit_dist_row_begin(c.m, P, r), rows = gemmkit_dist_row_begin(c.m, P, r + 1) - row0;
    if (c.op == Op::kAllGather) {
        p.row0 = row0;
        p.col0 = gemmkit_dist_row_begin(c.n, P, r);
        p.n = gemmkit_dist_row_begin(c.n, P, r + 1) - p.col0;
        p.k = c.k;
        p.x_rows = rows, p.x_cols = c.k;
        p.y_rows = c.m, p.y_cols = p.n;
    } else {
        p.row0 = row0;
        p.col0 = gemmkit_dist_row_begin(c.k, P, r);
        p.k = gemmkit_dist_row_begin(c.k, P, r + 1) - p.col0;
        p.n = c.n;
        p.x_rows = c.m, p.x_cols = p.k;
        p.y_rows = rows, p.y_cols = c.n;
    }
    p.w_rows = c.w_op == GEMMKIT_OP_N ? p.k : p.n;
    p.w_cols = c.w_op == GEMMKIT_OP_N ? p.n : p.k;
    p.ldx = std::max<int64_t>(1, p.x_cols) + c.pad;
    p.ldw = std::max<int64_t>(1, p.w_cols) + c.pad;
    p.ldy = std::max<int64_t>(1, p.y_cols) + c.pad;
    return p;
}

// GEMM-ReduceScatter over P > 1 ranks rounds partial sums to the output type before they are
// added: P - 1 of them in the ring (which passes them on in that type, as NCCL's reduce-scatter
// does), all P on the copy engines (each rank's GEMM writes its own, then the peers' are added
// in). Each rounding is at most u_out |partial| <= u_out scale: an elementwise term of P u_out
// scale, and at most P u_out more relative Frobenius error. AllGather-GEMM rounds once, as one GEMM.
verify::Tolerance tolerance_of(const DistCase& c) {
    verify::Tolerance tol = verify::tolerance_for(c.type, GEMMKIT_COMPUTE_32F, c.k);
    if (c.op == Op::kReduceScatter && c.ranks > 1) {
        const double extra = c.ranks;
        tol.rel_frobenius += extra * tol.output_roundoff;
        tol.elem_factor += extra * tol.output_roundoff / (tol.unit_roundoff * (std::sqrt(double(c.k)) + 1.0));
    }
    return tol;
}

template <class T>
T nan_of() {
    return verify::from_double<T>(std::numeric_limits<double>::quiet_NaN());
}

// Rows [r0, r0 + rows) and columns [c0, c0 + cols) of row-major `full` (`full_cols` wide), with
// leading dimension ld; the padding is NaN, so reading it shows.
template <class T>
std::vector<T> sub_matrix(const std::vector<T>& full, int64_t full_cols, int64_t r0, int64_t rows, int64_t c0,
                          int64_t cols, int64_t ld) {
    std::vector<T> out(static_cast<size_t>(std::max<int64_t>(1, rows) * ld), nan_of<T>());
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) out[i * ld + j] = full[(r0 + i) * full_cols + c0 + j];
    return out;
}

std::vector<double> sub_matrix(const std::vector<double>& full, int64_t full_cols, int64_t r0, int64_t rows,
                               int64_t c0, int64_t cols) {
    std::vector<double> out(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = full[(r0 + i) * full_cols + c0 + j];
    return out;
}

template <class T>
std::vector<T> random_matrix(int64_t rows, int64_t cols, uint64_t seed) {
    std::vector<T> x(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows * cols; ++i) x[i] = verify::from_double<T>(verify::uniform_value(seed, i));
    return x;
}

// What one rank's call came back with.
struct RankResult {
    gemmkit_status status = GEMMKIT_CUDA_ERROR;
    std::string error = "the rank's thread did not run", plan;
    cudaError_t sync = cudaErrorUnknown;
};

std::string status_line(const RankResult& r) {
    return std::string(gemmkit_status_string(r.status)) + " (" + r.error + ")";
}

// One case on the ranks of a world: the inputs on every rank, the reference of the whole problem
// from device 0, the call on every rank, and the comparison of every rank's part.
template <class T>
class Harness {
public:
    Harness(const DistCase& c, World& w) : c_(c), w_(w) {
        const int P = c.ranks;
        // The whole problem, row-major: X [m, k]; W [k, n] (w_op N) or [n, k] (T).
        const std::vector<T> X = random_matrix<T>(c.m, c.k, c.seed * 2);
        const int64_t w_cols = c.w_op == GEMMKIT_OP_N ? c.n : c.k;
        const std::vector<T> W = random_matrix<T>(c.w_op == GEMMKIT_OP_N ? c.k : c.n, w_cols, c.seed * 2 + 1);
        reference(X, W);
        for (int r = 0; r < P; ++r) {
            const Part p = part_of(c, r);
            parts_.push_back(p);
            std::vector<T> x, wr;
            if (c.op == Op::kAllGather) {
                x = sub_matrix(X, c.k, p.row0, p.x_rows, 0, p.x_cols, p.ldx);
                wr = c.w_op == GEMMKIT_OP_N ? sub_matrix(W, w_cols, 0, p.w_rows, p.col0, p.w_cols, p.ldw)
                                            : sub_matrix(W, w_cols, p.col0, p.w_rows, 0, p.w_cols, p.ldw);
            } else {
                x = sub_matrix(X, c.k, 0, p.x_rows, p.col0, p.x_cols, p.ldx);
                wr = c.w_op == GEMMKIT_OP_N ? sub_matrix(W, w_cols, p.col0, p.w_rows, 0, p.w_cols, p.ldw)
                                            : sub_matrix(W, w_cols, 0, p.w_rows, p.col0, p.w_cols, p.ldw);
            }
            CUDA_CHECK(cudaSetDevice(r));
            x_.emplace_back(x.size());
            w_buf_.emplace_back(wr.size());
            y_.emplace_back(static_cast<size_t>(std::max<int64_t>(1, p.y_rows) * p.ldy));
            x_.back().copy_from_host(x.data());
            w_buf_.back().copy_from_host(wr.data());
        }
        poison();
    }

    ~Harness() {
        for (int r = 0; r < c_.ranks; ++r) {
            cudaSetDevice(r);
            x_[r] = {}, w_buf_[r] = {}, y_[r] = {};
        }
        cudaSetDevice(0);
    }

    // Every rank's Y back to NaN (padding included: nothing may write there).
    void poison() {
        for (int r = 0; r < c_.ranks; ++r) {
            CUDA_CHECK(cudaSetDevice(r));
            const std::vector<T> nan(y_[r].size(), nan_of<T>());
            y_[r].copy_from_host(nan.data());
            CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may return before it lands
        }
        CUDA_CHECK(cudaSetDevice(0));
    }

    // Rank r's call with `ctx`, on the rank's stream; on the rank's thread (its device current).
    gemmkit_status call(int r, gemmkit_dist ctx) {
        const Part& p = parts_[r];
        cudaStream_t s = w_.streams[r];
        if (c_.op == Op::kAllGather)
            return gemmkit_dist_allgather_gemm(ctx, s, c_.m, p.n, c_.k, x_[r].data(), p.ldx, w_buf_[r].data(),
                                               c_.w_op, p.ldw, y_[r].data(), p.ldy, c_.type);
        return gemmkit_dist_gemm_reducescatter(ctx, s, c_.m, c_.n, p.k, x_[r].data(), p.ldx, w_buf_[r].data(), c_.w_op,
                                               p.ldw, y_[r].data(), p.ldy, c_.type);
    }

    // The call on every rank at once, each then waiting for its stream: with the world's
    // contexts of the case's schedule, or with `contexts` (one per rank).
    std::vector<RankResult> run(const std::vector<gemmkit_dist>* contexts = nullptr) {
        std::vector<RankResult> out(static_cast<size_t>(c_.ranks));
        on_every_rank(c_.ranks, [&](int r) {
            out[r].status = call(r, contexts != nullptr ? (*contexts)[r] : w_.ctx(c_.schedule, r));
            out[r].error = gemmkit_dist_last_error();
            out[r].plan = gemmkit_dist_last_plan();
            out[r].sync = cudaStreamSynchronize(w_.streams[r]);
        });
        return out;
    }

    // Each rank's Y against its part of the reference; the padding of Y still NaN.
    void expect_correct() const {
        const verify::Tolerance tol = tolerance_of(c_);
        const T poison = nan_of<T>();
        for (int r = 0; r < c_.ranks; ++r) {
            const Part& p = parts_[r];
            CUDA_CHECK(cudaSetDevice(r));
            const std::vector<T> y = to_host(y_[r]);
            // Y row-major [y_rows, y_cols] is column-major y_cols x y_rows: compare()'s m x n.
            const int64_t r0 = c_.op == Op::kAllGather ? 0 : p.row0, c0 = c_.op == Op::kAllGather ? p.col0 : 0;
            const std::vector<double> ref = sub_matrix(ref_, c_.n, r0, p.y_rows, c0, p.y_cols);
            const std::vector<double> scale = sub_matrix(scale_, c_.n, r0, p.y_rows, c0, p.y_cols);
            const verify::CompareResult res =
                verify::compare<T>(y.data(), p.ldy, ref.data(), scale.data(), p.y_cols, p.y_rows, c_.k, tol);
            EXPECT_TRUE(res.pass) << describe(c_) << ", rank " << r << ": " << verify::describe(res)
                                  << " (first bad element: row " << res.first_bad_col << ", column "
                                  << res.first_bad_row << " of the rank's Y)";
            int64_t outside = 0;
            for (int64_t i = 0; i < p.y_rows; ++i)
                for (int64_t j = p.y_cols; j < p.ldy; ++j)
                    outside += std::memcmp(&y[i * p.ldy + j], &poison, sizeof(T)) != 0;
            EXPECT_EQ(outside, 0) << describe(c_) << ", rank " << r << ": elements written past Y's " << p.y_cols
                                  << " columns (ldy " << p.ldy << ")";
        }
        CUDA_CHECK(cudaSetDevice(0));
    }

    const DistCase& dist_case() const { return c_; }

private:
    // Y = X · op(W) of the whole problem in FP64 on device 0: column-major, that is
    // Y^T [n, m] = op(W)^T X^T, with W row-major as A (op N: [n, k] ld n; op T: ld k) and X as B.
    void reference(const std::vector<T>& X, const std::vector<T>& W) {
        const ReferenceDevice& dev = reference_device();
        CUDA_CHECK(cudaSetDevice(0));
        DeviceBuffer<T> dx(X.size()), dw(W.size());
        dx.copy_from_host(X.data());
        dw.copy_from_host(W.data());
        CUDA_CHECK(cudaDeviceSynchronize());
        Problem p;
        p.transa = c_.w_op, p.transb = GEMMKIT_OP_N;
        p.m = c_.n, p.n = c_.m, p.k = c_.k;
        p.A = dw.data(), p.lda = c_.w_op == GEMMKIT_OP_N ? c_.n : c_.k;
        p.B = dx.data(), p.ldb = c_.k;
        p.ldc = c_.n;
        p.a_type = p.b_type = p.c_type = c_.type;
        DeviceBuffer<double> ref(static_cast<size_t>(c_.m * c_.n)), scale(static_cast<size_t>(c_.m * c_.n));
        ref::cublas_reference_f64(*dev.blas, p, verify::Tf32Inputs::exact, ref.data(), scale.data());
        ref_ = to_host(ref);
        scale_ = to_host(scale);
    }

    DistCase c_;
    World& w_;
    std::vector<Part> parts_;
    std::vector<DeviceBuffer<T>> x_, w_buf_, y_;
    std::vector<double> ref_, scale_;  // row-major [m, n]
};

// Every rank succeeded, said so, and ran the schedule it was asked for.
void expect_success(const DistCase& c, const std::vector<RankResult>& results) {
    for (int r = 0; r < c.ranks; ++r) {
        const RankResult& res = results[r];
        EXPECT_EQ(res.status, GEMMKIT_SUCCESS) << describe(c) << ", rank " << r << ": " << status_line(res);
        EXPECT_EQ(res.sync, cudaSuccess) << describe(c) << ", rank " << r << ": " << cudaGetErrorString(res.sync);
        EXPECT_EQ(res.error, "") << "the last error is cleared by a success";
        const bool sequential = c.ranks == 1 || c.schedule == GEMMKIT_DIST_SEQUENTIAL;
        if (sequential) {
            EXPECT_EQ(res.plan.rfind("sequential", 0), 0u) << "rank " << r << ": " << res.plan;
        }
        if (c.ranks > 1 && c.schedule == GEMMKIT_DIST_OVERLAP) {
            EXPECT_EQ(res.plan.rfind("overlap", 0), 0u) << "rank " << r << ": " << res.plan;
        }
    }
}

// Calls fn(std::type_identity<T>{}) with T the case's element type.
template <class F>
void with_type(gemmkit_dtype type, F&& fn) {
    verify::visit_dtype(type, [&]<class T>(std::type_identity<T> t) {
        if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) fn(t);
        else FAIL() << "not a type of gemmkit_dist";
    });
}

// ---- correctness: every operation, type, w_op and schedule, even and uneven ----

struct Shape {
    const char* name;
    int64_t m, n_ag, k_ag, n_rs, k_rs, pad;
};
// Even: m and the widths split evenly. m1003_ld: uneven rows (502/501, 251/251/251/250) and
// leading dimensions 8 past packed. odd: uneven rows and uneven n_local / k_local between ranks.
constexpr Shape kShapes[] = {
    {"m1024", 1024, 512, 512, 512, 1024, 0},
    {"m1003_ld", 1003, 512, 512, 512, 1024, 8},
    {"odd", 999, 1001, 999, 999, 1001, 0},
};

std::vector<DistCase> correctness_cases() {
    std::vector<DistCase> cases;
    uint64_t seed = 1;
    for (int P : {1, 2, 4})
        for (Op op : {Op::kAllGather, Op::kReduceScatter})
            for (gemmkit_dtype type : {GEMMKIT_R_16BF, GEMMKIT_R_16F})
                for (gemmkit_op w_op : {GEMMKIT_OP_N, GEMMKIT_OP_T})
                    for (gemmkit_dist_schedule s : kSchedules)
                        for (const Shape& sh : kShapes) {
                            DistCase c;
                            c.op = op, c.type = type, c.w_op = w_op, c.schedule = s, c.ranks = P;
                            c.shape = sh.name;
                            c.m = sh.m;
                            c.n = op == Op::kAllGather ? sh.n_ag : sh.n_rs;
                            c.k = op == Op::kAllGather ? sh.k_ag : sh.k_rs;
                            c.pad = sh.pad;
                            c.seed = seed++;
                            cases.push_back(c);
                        }
    return cases;
}

std::string case_name(const ::testing::TestParamInfo<DistCase>& info) {
    const DistCase& c = info.param;
    return std::string(c.op == Op::kAllGather ? "AllGather" : "ReduceScatter") + "_" +
           (c.type == GEMMKIT_R_16BF ? "bf16" : "f16") + "_W" + (c.w_op == GEMMKIT_OP_N ? "N" : "T") + "_" +
           schedule_name(c.schedule) + "_P" + std::to_string(c.ranks) + "_" + c.shape;
}

class DistCorrectness : public ::testing::TestWithParam<DistCase> {};

TEST_P(DistCorrectness, MatchesTheWholeProblemOnOneGpu) {
    const DistCase& c = GetParam();
    GET_WORLD_OR_SKIP(w, c.ranks);
    with_type(c.type, [&]<class T>(std::type_identity<T>) {
        Harness<T> h(c, *w);
        expect_success(c, h.run());
        h.expect_correct();
        // A second call of the same shape (no exchange this time) gives the same result.
        h.poison();
        expect_success(c, h.run());
        h.expect_correct();
    });
}

INSTANTIATE_TEST_SUITE_P(Dist, DistCorrectness, ::testing::ValuesIn(correctness_cases()), case_name);

// ---- CUDA graphs ----

struct GraphCase {
    Op op;
    gemmkit_dist_schedule schedule;
    int ranks;
};

std::vector<GraphCase> graph_cases() {
    std::vector<GraphCase> cases;
    for (int P : {1, 2, 4})
        for (Op op : {Op::kAllGather, Op::kReduceScatter})
            for (gemmkit_dist_schedule s : kSchedules) cases.push_back({op, s, P});
    return cases;
}

std::string graph_case_name(const ::testing::TestParamInfo<GraphCase>& info) {
    const GraphCase& g = info.param;
    return std::string(g.op == Op::kAllGather ? "AllGather" : "ReduceScatter") + "_" + schedule_name(g.schedule) +
           "_P" + std::to_string(g.ranks);
}
void PrintTo(const GraphCase& g, std::ostream* os) { *os << graph_case_name({g, 0}); }

// One graph per rank of a harness's call, each captured by the rank's thread on its stream.
template <class T>
class Graphs {
public:
    Graphs(Harness<T>& h, World& w) : h_(h), w_(w), P_(h.dist_case().ranks) {}
    ~Graphs() {
        for (int r = 0; r < P_; ++r) {
            cudaSetDevice(r);
            if (execs_[r] != nullptr) cudaGraphExecDestroy(execs_[r]);
            if (graphs_[r] != nullptr) cudaGraphDestroy(graphs_[r]);
        }
        cudaSetDevice(0);
        cudaGetLastError();
    }

    // Captures the call on every rank; true when every rank's capture made a graph.
    bool capture() {
        std::vector<RankResult> captured(P_);
        std::vector<cudaError_t> err(P_, cudaErrorUnknown);
        on_every_rank(P_, [&](int r) {
            cudaStream_t s = w_.streams[r];
            cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
            if (e == cudaSuccess) {
                captured[r].status = h_.call(r, w_.ctx(h_.dist_case().schedule, r));
                captured[r].error = gemmkit_dist_last_error();
                e = cudaStreamEndCapture(s, &graphs_[r]);
            }
            if (e == cudaSuccess) e = cudaGraphInstantiate(&execs_[r], graphs_[r], 0);
            err[r] = e;
        });
        bool ok = true;
        for (int r = 0; r < P_; ++r) {
            EXPECT_EQ(captured[r].status, GEMMKIT_SUCCESS) << "rank " << r << " under capture: " << status_line(captured[r]);
            EXPECT_EQ(err[r], cudaSuccess) << "rank " << r << ": " << cudaGetErrorString(err[r]);
            ok = ok && captured[r].status == GEMMKIT_SUCCESS && err[r] == cudaSuccess;
        }
        return ok;
    }

    // Launches every rank's graph `times` times on its stream, then waits for it.
    void replay(int times) {
        std::vector<cudaError_t> err(P_, cudaErrorUnknown);
        on_every_rank(P_, [&](int r) {
            cudaError_t e = cudaSuccess;
            for (int i = 0; i < times && e == cudaSuccess; ++i) e = cudaGraphLaunch(execs_[r], w_.streams[r]);
            err[r] = e == cudaSuccess ? cudaStreamSynchronize(w_.streams[r]) : e;
        });
        for (int r = 0; r < P_; ++r) EXPECT_EQ(err[r], cudaSuccess) << "rank " << r << ": " << cudaGetErrorString(err[r]);
    }

private:
    Harness<T>& h_;
    World& w_;
    int P_;
    std::vector<cudaGraph_t> graphs_ = std::vector<cudaGraph_t>(P_, nullptr);
    std::vector<cudaGraphExec_t> execs_ = std::vector<cudaGraphExec_t>(P_, nullptr);
};

class DistGraph : public ::testing::TestWithParam<GraphCase> {};

// After one call of the shape outside capture, the same call captured on every rank's stream
// (each rank's thread captures its own) replays to the same result, twice in a row.
TEST_P(DistGraph, CapturedCallReplaysToTheSameResult) {
    const GraphCase& g = GetParam();
    GET_WORLD_OR_SKIP(w, g.ranks);
    DistCase c;
    c.op = g.op, c.schedule = g.schedule, c.ranks = g.ranks, c.type = GEMMKIT_R_16BF, c.w_op = GEMMKIT_OP_T;
    c.m = 1003, c.n = 512, c.k = 768, c.pad = 8, c.seed = 1000 + static_cast<uint64_t>(g.ranks);
    Harness<__nv_bfloat16> h(c, *w);
    expect_success(c, h.run());  // the warm call: the ranks agree on the shape here
    h.expect_correct();
    Graphs<__nv_bfloat16> graphs(h, *w);
    if (!graphs.capture()) return;
    h.poison();  // what the warm call wrote must be written again by the replay
    graphs.replay(2);
    h.expect_correct();
}

INSTANTIATE_TEST_SUITE_P(Dist, DistGraph, ::testing::ValuesIn(graph_cases()), graph_case_name);

// ---- the ranks disagree ----

// Each rank's call, with its own sizes and type, on buffers large enough for any of them.
struct Call {
    Op op = Op::kAllGather;
    int64_t m = 1024, n = 256, k = 256;  // AllGather: n_local, k; ReduceScatter: n, k_local
    gemmkit_dtype type = GEMMKIT_R_16BF;
};

// Every rank calls at once, rank r with calls[r]; returns what each got back.
std::vector<RankResult> call_on_every_rank(World& w, const std::vector<Call>& calls) {
    const int P = w.ranks;
    constexpr int64_t kMaxElems = 1024 * 256;  // m x k, k x n and m x n of every call below
    std::vector<DeviceBuffer<uint16_t>> x, wt, y;
    for (int r = 0; r < P; ++r) {
        CUDA_CHECK(cudaSetDevice(r));
        x.emplace_back(kMaxElems), wt.emplace_back(kMaxElems), y.emplace_back(kMaxElems);
        CUDA_CHECK(cudaMemset(x.back().data(), 0, x.back().bytes()));
        CUDA_CHECK(cudaMemset(wt.back().data(), 0, wt.back().bytes()));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    std::vector<RankResult> out(P);
    on_every_rank(P, [&](int r) {
        const Call& c = calls[r];
        gemmkit_dist ctx = w.ctx(GEMMKIT_DIST_AUTO, r);
        out[r].status = c.op == Op::kAllGather
                            ? gemmkit_dist_allgather_gemm(ctx, w.streams[r], c.m, c.n, c.k, x[r].data(), c.k,
                                                          wt[r].data(), GEMMKIT_OP_N, c.n, y[r].data(), c.n, c.type)
                            : gemmkit_dist_gemm_reducescatter(ctx, w.streams[r], c.m, c.n, c.k, x[r].data(), c.k,
                                                              wt[r].data(), GEMMKIT_OP_N, c.n, y[r].data(), c.n,
                                                              c.type);
        out[r].error = gemmkit_dist_last_error();
        out[r].sync = cudaStreamSynchronize(w.streams[r]);
    });
    for (int r = 0; r < P; ++r) {
        CUDA_CHECK(cudaSetDevice(r));
        x[r] = {}, wt[r] = {}, y[r] = {};
    }
    CUDA_CHECK(cudaSetDevice(0));
    return out;
}

// Rank 0 makes one call, every other rank `other`: all of them get INVALID_VALUE naming `field`,
// and none waits for the others beyond the exchange.
void expect_every_rank_rejects(World& w, const Call& first, const Call& other, const std::string& field) {
    std::vector<Call> calls(w.ranks, other);
    calls[0] = first;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<RankResult> res = call_on_every_rank(w, calls);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (int r = 0; r < w.ranks; ++r) {
        EXPECT_EQ(res[r].status, GEMMKIT_INVALID_VALUE) << "rank " << r << ", " << field << ": " << status_line(res[r]);
        EXPECT_TRUE(names(res[r].error, field)) << "rank " << r;
        EXPECT_EQ(res[r].sync, cudaSuccess) << "rank " << r;
    }
    EXPECT_LT(seconds, kTimeoutMs / 2000.0) << "a mismatch is found by the exchange, not by waiting out the timeout";
}

TEST(DistMismatch, EveryRankRejectsACallThatDiffersAndTheContextGoesOn) {
    GET_WORLD_OR_SKIP(w, 2);
    Call ag;
    Call rs;
    rs.op = Op::kReduceScatter;
    {
        SCOPED_TRACE("AllGather-GEMM, m");
        Call fewer = ag;
        fewer.m = 1000;
        expect_every_rank_rejects(*w, ag, fewer, "m");
    }
    {
        SCOPED_TRACE("AllGather-GEMM, k");
        Call shallower = ag;
        shallower.k = 128;
        expect_every_rank_rejects(*w, ag, shallower, "k");
    }
    {
        SCOPED_TRACE("GEMM-ReduceScatter, m");
        Call fewer = rs;
        fewer.m = 1000;
        expect_every_rank_rejects(*w, rs, fewer, "m");
    }
    {
        SCOPED_TRACE("GEMM-ReduceScatter, n");
        Call narrower = rs;
        narrower.n = 128;
        expect_every_rank_rejects(*w, rs, narrower, "n");
    }
    {
        SCOPED_TRACE("type");
        Call half = ag;
        half.type = GEMMKIT_R_16F;
        expect_every_rank_rejects(*w, ag, half, "type");
    }
    {
        SCOPED_TRACE("operation");
        expect_every_rank_rejects(*w, ag, rs, "operation");
    }
    // What may differ does not: AllGather's n_local, ReduceScatter's k_local.
    {
        Call narrower = ag;
        narrower.n = 128;
        std::vector<Call> calls(w->ranks, narrower);
        calls[0] = ag;
        for (const RankResult& r : call_on_every_rank(*w, calls))
            EXPECT_EQ(r.status, GEMMKIT_SUCCESS) << "n_local may differ between ranks: " << status_line(r);
    }
    {
        Call shallower = rs;
        shallower.k = 128;
        std::vector<Call> calls(w->ranks, shallower);
        calls[0] = rs;
        for (const RankResult& r : call_on_every_rank(*w, calls))
            EXPECT_EQ(r.status, GEMMKIT_SUCCESS) << "k_local may differ between ranks: " << status_line(r);
    }
    // The contexts are still good: a matching call runs and is right.
    for (Op op : {Op::kAllGather, Op::kReduceScatter}) {
        DistCase c;
        c.op = op, c.ranks = 2, c.m = 1000, c.n = 256, c.k = 256, c.seed = 77;
        Harness<__nv_bfloat16> h(c, *w);
        expect_success(c, h.run());
        h.expect_correct();
    }
}

// ---- what may differ between ranks, at its edges ----

// A rank whose share of W's columns is empty (n < P) still sends its rows of X to the others.
TEST(DistEdges, ARankWithNoColumnsStillTakesPart) {
    GET_WORLD_OR_SKIP(w, 2);
    for (gemmkit_dist_schedule s : kSchedules) {
        DistCase c;
        c.op = Op::kAllGather, c.schedule = s, c.ranks = 2, c.m = 1024, c.n = 1, c.k = 256, c.seed = 91;
        ASSERT_EQ(part_of(c, 1).n, 0);
        Harness<__nv_bfloat16> h(c, *w);
        expect_success(c, h.run());
        h.expect_correct();
    }
}

// k_local may differ between ranks, so the plan must not depend on it. Here the model puts the
// two ranks' k_local either side of its 2% line: planned on their own, one runs the ring (on the
// capped communicator) and the other the collective (on the other one), and neither returns.
TEST(DistEdges, RanksWhoseKLocalStraddlesTheModelPlanAlike) {
    GET_WORLD_OR_SKIP(w, 2);
    gemmkit_dist_options options{};
    options.link_gbps = 1000;  // a capped link fast enough for the ring to win at small depths
    options.timeout_ms = kTimeoutMs;
    const ScopedContexts contexts(*w, options);
    ASSERT_EQ(contexts.error(), "");
    dist::DistFacts facts;
    CUDA_CHECK(cudaDeviceGetAttribute(&facts.sm_count, cudaDevAttrMultiProcessorCount, 0));
    facts.link_gbps = options.link_gbps;
    constexpr int64_t m = 4096, n = 8192;
    auto schedule_of = [&](int64_t k_local) {
        const dist::DistShape shape{.op = dist::DistOp::kGemmReduceScatter, .m = m, .n = n, .k = k_local, .ranks = 2,
                                    .elem_bytes = 2};
        return dist::plan_dist(shape, facts, {}).schedule;
    };
    // The line, by bisection: the ring's gain falls as the GEMMs grow.
    int64_t lo = 256, hi = int64_t(1) << 17;
    if (schedule_of(lo) == schedule_of(hi)) GTEST_SKIP() << "the model no longer has a line between these depths";
    while (hi - lo > 1) {
        const int64_t mid = (lo + hi) / 2;
        (schedule_of(mid) == schedule_of(lo) ? lo : hi) = mid;
    }
    DistCase c;
    c.op = Op::kReduceScatter, c.schedule = GEMMKIT_DIST_AUTO, c.ranks = 2, c.m = m, c.n = n, c.k = lo + hi;
    c.seed = 92;
    ASSERT_EQ(part_of(c, 0).k, hi);
    ASSERT_EQ(part_of(c, 1).k, lo);
    Harness<__nv_bfloat16> h(c, *w);
    const std::vector<RankResult> res = h.run(contexts.get());
    expect_success(c, res);
    EXPECT_EQ(res[0].plan.substr(0, res[0].plan.find('\n')), res[1].plan.substr(0, res[1].plan.find('\n')))
        << "every rank runs the same schedule";
    h.expect_correct();
}

// GEMM-ReduceScatter in three pieces (options.pieces): row pieces of each block on capped
// kernels, column parts on the copy engines. 1001 columns in three parts put the second and
// third at offsets no 16-byte load reaches; P = 4 runs the all-to-all.
class DistPieces : public ::testing::TestWithParam<int> {};

TEST_P(DistPieces, ReduceScatterInThreePiecesMatches) {
    const int P = GetParam();
    GET_WORLD_OR_SKIP(w, P);
    gemmkit_dist_options options{};
    options.schedule = GEMMKIT_DIST_OVERLAP;
    options.pieces = 3;
    options.timeout_ms = kTimeoutMs;
    const ScopedContexts contexts(*w, options);
    ASSERT_EQ(contexts.error(), "");
    for (const Shape& sh : kShapes) {
        DistCase c;
        c.op = Op::kReduceScatter, c.schedule = GEMMKIT_DIST_OVERLAP, c.ranks = P, c.shape = sh.name;
        c.m = sh.m, c.n = sh.n_rs, c.k = sh.k_rs, c.pad = sh.pad, c.seed = 94;
        for (gemmkit_op w_op : {GEMMKIT_OP_N, GEMMKIT_OP_T}) {
            c.w_op = w_op;
            Harness<__nv_bfloat16> h(c, *w);
            const std::vector<RankResult> res = h.run(contexts.get());
            expect_success(c, res);
            for (const RankResult& r : res)
                EXPECT_TRUE(r.plan.find("3 column parts") != std::string::npos ||
                            r.plan.find("3 pieces") != std::string::npos)
                    << describe(c) << ": " << r.plan;
            h.expect_correct();
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Dist, DistPieces, ::testing::Values(2, 4),
                         [](const ::testing::TestParamInfo<int>& info) { return std::string("P") + std::to_string(info.param); });

// A graph keeps working after a larger call outside it has grown the context's workspace (the
// graph's kernels still point at the workspace of the capture).
TEST(DistEdges, AGraphSurvivesALargerCallAfterIt) {
    GET_WORLD_OR_SKIP(w, 2);
    for (Op op : {Op::kAllGather, Op::kReduceScatter}) {
        DistCase small;
        small.op = op, small.schedule = GEMMKIT_DIST_OVERLAP, small.ranks = 2;
        small.m = 1024, small.n = 512, small.k = 512, small.seed = 93;
        Harness<__nv_bfloat16> h(small, *w);
        expect_success(small, h.run());
        Graphs<__nv_bfloat16> graphs(h, *w);
        if (!graphs.capture()) return;
        {
            DistCase large = small;
            large.m = 4096, large.n = 2048, large.k = 2048, large.seed = 94;
            Harness<__nv_bfloat16> hl(large, *w);
            expect_success(large, hl.run());
            hl.expect_correct();
        }
        h.poison();
        graphs.replay(1);
        h.expect_correct();
    }
}

// ---- argument checks: before any device work, so one rank alone gets its answer ----

TEST(DistArgs, NullContextIsRejected) {
    EXPECT_EQ(gemmkit_dist_allgather_gemm(nullptr, nullptr, 8, 8, 8, nullptr, 8, nullptr, GEMMKIT_OP_N, 8, nullptr, 8,
                                          GEMMKIT_R_16BF),
              GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "ctx"));
    EXPECT_EQ(gemmkit_dist_gemm_reducescatter(nullptr, nullptr, 8, 8, 8, nullptr, 8, nullptr, GEMMKIT_OP_N, 8, nullptr,
                                              8, GEMMKIT_R_16BF),
              GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "ctx"));
    EXPECT_EQ(gemmkit_dist_rank(nullptr), -1);
    EXPECT_EQ(gemmkit_dist_size(nullptr), 0);
    EXPECT_EQ(gemmkit_dist_destroy(nullptr), GEMMKIT_SUCCESS);
}

TEST(DistArgs, NullCommunicatorOrOutIsRejected) {
    gemmkit_dist ctx = reinterpret_cast<gemmkit_dist>(uintptr_t{0x1000});
    EXPECT_EQ(gemmkit_dist_create(nullptr, nullptr, &ctx), GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "comm"));
    EXPECT_EQ(ctx, nullptr) << "*out is NULL after a failure";
    EXPECT_EQ(gemmkit_dist_create(nullptr, nullptr, nullptr), GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "out"));
}

TEST(DistArgs, RowBeginSharesRowsAndRejectsNoSuchRank) {
    EXPECT_EQ(gemmkit_dist_row_begin(10, 4, 0), 0);
    EXPECT_EQ(gemmkit_dist_row_begin(10, 4, 1), 3);  // ranks 0 and 1 hold 3 rows, 2 and 3 hold 2
    EXPECT_EQ(gemmkit_dist_row_begin(10, 4, 2), 6);
    EXPECT_EQ(gemmkit_dist_row_begin(10, 4, 3), 8);
    EXPECT_EQ(gemmkit_dist_row_begin(10, 4, 4), 10);
    EXPECT_EQ(gemmkit_dist_row_begin(3, 8, 5), 3);
    EXPECT_EQ(gemmkit_dist_row_begin(-1, 4, 0), -1);
    EXPECT_EQ(gemmkit_dist_row_begin(10, 0, 0), -1);
    EXPECT_EQ(gemmkit_dist_row_begin(10, 4, -1), -1);
    EXPECT_EQ(gemmkit_dist_row_begin(10, 4, 5), -1);
}

// Options are checked before the communicator is split: one rank alone gets the error.
TEST(DistArgs, BadOptionsAreRejectedByOneRankAlone) {
    GET_WORLD_OR_SKIP(w, 1);
    CUDA_CHECK(cudaSetDevice(0));
    struct BadOption {
        const char* name;
        std::function<void(gemmkit_dist_options&)> set;
    };
    const BadOption bad[] = {
        {"schedule", [](gemmkit_dist_options& o) { o.schedule = static_cast<gemmkit_dist_schedule>(7); }},
        {"pieces", [](gemmkit_dist_options& o) { o.pieces = -1; }},
        {"comm_sms", [](gemmkit_dist_options& o) { o.comm_sms = 1000; }},
        {"link_gbps", [](gemmkit_dist_options& o) { o.link_gbps = std::nan(""); }},
        {"timeout_ms", [](gemmkit_dist_options& o) { o.timeout_ms = -1; }},
    };
    for (const BadOption& b : bad) {
        gemmkit_dist_options o{};
        b.set(o);
        gemmkit_dist ctx = nullptr;
        EXPECT_EQ(gemmkit_dist_create(w->comms[0], &o, &ctx), GEMMKIT_INVALID_VALUE) << b.name;
        EXPECT_TRUE(names(gemmkit_dist_last_error(), b.name));
        EXPECT_EQ(ctx, nullptr);
        if (ctx != nullptr) gemmkit_dist_destroy(ctx);
    }
}

// Each bad argument, from rank 0 only (the other ranks make no call): the status and a message
// naming the argument come back at once. Were the check behind the exchange of sizes, rank 0
// would wait for peers that never come.
TEST(DistArgs, BadArgumentsAreRejectedByOneRankAlone) {
    const int P = device_presence().count >= 2 ? 2 : 1;
    GET_WORLD_OR_SKIP(w, P);
    CUDA_CHECK(cudaSetDevice(0));
    gemmkit_dist ctx = w->ctx(GEMMKIT_DIST_AUTO, 0);
    cudaStream_t s = w->streams[0];
    constexpr int64_t m = 64, n = 32, k = 48;
    DeviceBuffer<uint16_t> x(m * k), wt(k * n), y(m * n);
    struct Args {
        int64_t m = 64, n = 32, k = 48, ldx = 48, ldw = 32, ldy = 32;
        gemmkit_op w_op = GEMMKIT_OP_N;
        gemmkit_dtype type = GEMMKIT_R_16BF;
        bool null_x = false, null_w = false, null_y = false;
    };
    struct Bad {
        const char* what;
        Args args;
        gemmkit_status status;
        const char* ag_name;  // the argument the message names, AllGather / ReduceScatter
        const char* rs_name;
    };
    std::vector<Bad> bad;
    auto add = [&](const char* what, gemmkit_status st, const char* ag, const char* rs, auto&& change) {
        Bad b{what, Args{}, st, ag, rs};
        change(b.args);
        bad.push_back(b);
    };
    add("type f32", GEMMKIT_NOT_SUPPORTED, "type", "type", [](Args& a) { a.type = GEMMKIT_R_32F; });
    // Not a gemmkit_dtype at all: a bad argument, as gemmkit_gemm_ex has it (FP32 above is a valid
    // type that nothing serves).
    add("type 99", GEMMKIT_INVALID_VALUE, "type", "type", [](Args& a) { a.type = static_cast<gemmkit_dtype>(99); });
    add("w_op 5", GEMMKIT_INVALID_VALUE, "w_op", "w_op", [](Args& a) { a.w_op = static_cast<gemmkit_op>(5); });
    add("m < 0", GEMMKIT_INVALID_VALUE, "m", "m", [](Args& a) { a.m = -1; });
    add("n < 0", GEMMKIT_INVALID_VALUE, "n_local", "n", [](Args& a) { a.n = -1; });
    add("k < 0", GEMMKIT_INVALID_VALUE, "k", "k_local", [](Args& a) { a.k = -1; });
    add("short ldx", GEMMKIT_INVALID_VALUE, "ldx", "ldx", [](Args& a) { a.ldx = a.k - 1; });
    add("short ldw, w_op N", GEMMKIT_INVALID_VALUE, "ldw", "ldw", [](Args& a) { a.ldw = a.n - 1; });
    add("short ldw, w_op T", GEMMKIT_INVALID_VALUE, "ldw", "ldw", [](Args& a) {
        a.w_op = GEMMKIT_OP_T;
        a.ldw = a.k - 1;  // W is [n, k]: ld 32 would do for N but not for T
    });
    add("short ldy", GEMMKIT_INVALID_VALUE, "ldy", "ldy", [](Args& a) { a.ldy = a.n - 1; });
    add("NULL x", GEMMKIT_INVALID_VALUE, "x", "x", [](Args& a) { a.null_x = true; });
    add("NULL w", GEMMKIT_INVALID_VALUE, "w", "w", [](Args& a) { a.null_w = true; });
    add("NULL y", GEMMKIT_INVALID_VALUE, "y", "y_local", [](Args& a) { a.null_y = true; });
    for (const Bad& b : bad) {
        const Args& a = b.args;
        const void* xp = a.null_x ? nullptr : x.data();
        const void* wp = a.null_w ? nullptr : wt.data();
        void* yp = a.null_y ? nullptr : y.data();
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(gemmkit_dist_allgather_gemm(ctx, s, a.m, a.n, a.k, xp, a.ldx, wp, a.w_op, a.ldw, yp, a.ldy, a.type),
                  b.status)
            << "AllGather-GEMM, " << b.what << ": " << gemmkit_dist_last_error();
        EXPECT_TRUE(names(gemmkit_dist_last_error(), b.ag_name)) << "AllGather-GEMM, " << b.what;
        EXPECT_EQ(gemmkit_dist_gemm_reducescatter(ctx, s, a.m, a.n, a.k, xp, a.ldx, wp, a.w_op, a.ldw, yp, a.ldy,
                                                  a.type),
                  b.status)
            << "GEMM-ReduceScatter, " << b.what << ": " << gemmkit_dist_last_error();
        EXPECT_TRUE(names(gemmkit_dist_last_error(), b.rs_name)) << "GEMM-ReduceScatter, " << b.what;
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0)
            << b.what << ": an argument check does not wait for the peers";
    }
    // The context is untouched: the stream has nothing on it.
    EXPECT_EQ(cudaStreamQuery(s), cudaSuccess);
}

// A context is used on the device its communicator was made for.
TEST(DistArgs, ContextOnAnotherDeviceIsRejected) {
    GET_WORLD_OR_SKIP(w, 2);
    CUDA_CHECK(cudaSetDevice(1));
    gemmkit_dist ctx0 = w->ctx(GEMMKIT_DIST_AUTO, 0);
    const int dummy = 0;
    EXPECT_EQ(gemmkit_dist_allgather_gemm(ctx0, w->streams[1], 8, 8, 8, &dummy, 8, &dummy, GEMMKIT_OP_N, 8,
                                          const_cast<int*>(&dummy), 8, GEMMKIT_R_16BF),
              GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "device")) << gemmkit_dist_last_error();
    gemmkit_dist other = nullptr;
    EXPECT_EQ(gemmkit_dist_create(w->comms[0], nullptr, &other), GEMMKIT_INVALID_VALUE)
        << "comm 0 is device 0's: " << gemmkit_dist_last_error();
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "device")) << gemmkit_dist_last_error();
    CUDA_CHECK(cudaSetDevice(0));
}

TEST(DistArgs, RankAndSizeAreTheCommunicators) {
    GET_WORLD_OR_SKIP(w, device_presence().count >= 2 ? 2 : 1);
    for (int r = 0; r < w->ranks; ++r) {
        EXPECT_EQ(gemmkit_dist_rank(w->ctx(GEMMKIT_DIST_AUTO, r)), r);
        EXPECT_EQ(gemmkit_dist_size(w->ctx(GEMMKIT_DIST_AUTO, r)), w->ranks);
    }
}

// A rank that never makes the call: the others give up after options.timeout_ms instead of
// waiting for ever, and their context says it is unusable. Its own communicators, since the
// timeout aborts them.
TEST(DistTimeout, APeerThatNeverCallsTimesOut) {
    if (const std::string missing = missing_gpus(2); !missing.empty()) GTEST_SKIP() << missing;
    World w;
    w.ranks = 2;
    ASSERT_EQ(make_comms(2, &w.comms), "");
    gemmkit_dist_options options{};
    options.timeout_ms = 2000;
    std::vector<gemmkit_dist> contexts;
    ASSERT_EQ(make_contexts(w, options, &contexts), "");
    CUDA_CHECK(cudaSetDevice(0));
    DeviceBuffer<uint16_t> x(64 * 64), wt(64 * 64), y(64 * 64);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(gemmkit_dist_allgather_gemm(contexts[0], nullptr, 64, 64, 64, x.data(), 64, wt.data(), GEMMKIT_OP_N, 64,
                                          y.data(), 64, GEMMKIT_R_16BF),
              GEMMKIT_CUDA_ERROR);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(seconds, 1.5);
    EXPECT_LT(seconds, 10.0);
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "time")) << gemmkit_dist_last_error();
    EXPECT_EQ(gemmkit_dist_allgather_gemm(contexts[0], nullptr, 64, 64, 64, x.data(), 64, wt.data(), GEMMKIT_OP_N, 64,
                                          y.data(), 64, GEMMKIT_R_16BF),
              GEMMKIT_INVALID_VALUE);
    EXPECT_TRUE(names(gemmkit_dist_last_error(), "destroy")) << gemmkit_dist_last_error();
    x = {}, wt = {}, y = {};
    destroy_contexts(2, contexts);
    destroy_comms(2, w.comms);
    CUDA_CHECK(cudaSetDevice(0));
}

}  // namespace
}  // namespace gemmkit::test
