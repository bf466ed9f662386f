// The public C API on real device memory: automatic choice, the cuBLAS corner cases
// (k == 0, alpha == 0, beta == 0 with NaN in C, m == 0), streams, pointer checks, threads,
// and what a kernel must not touch (the padding rows of C).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../host/test_util.hpp"  // names
#include "gpu_test.hpp"
#include "verify/verify.hpp"

namespace gemmkit::test {
namespace {

using namespace std::chrono_literals;

constexpr gemmkit_op kOps[][2] = {
    {GEMMKIT_OP_N, GEMMKIT_OP_N},
    {GEMMKIT_OP_N, GEMMKIT_OP_T},
    {GEMMKIT_OP_T, GEMMKIT_OP_N},
    {GEMMKIT_OP_T, GEMMKIT_OP_T},
};

// A value no GEMM here produces from inputs in [-1, 1), so "still the sentinel" means "not written".
constexpr float kSentinel = -7777.25f;

// Index of the first element of `after` whose bits differ from `before`; -1 if none.
int64_t first_changed(const std::vector<float>& before, const std::vector<float>& after) {
    for (size_t i = 0; i < before.size(); ++i)
        if (!same_bits(before[i], after[i])) return static_cast<int64_t>(i);
    return -1;
}

class ApiGpuTest : public GpuTest {};

// ---- automatic choice -------------------------------------------------------------------

TEST_F(ApiGpuTest, AutoIsCorrectForAllOps) {
    // Shapes on both sides of the fast kernels' tiles, with padded leading dimensions
    // and scalars other than 1/0; "auto" by name goes through the same harness as the kernels.
    const verify::Case shapes[] = {
        {.m = 127, .n = 129, .k = 33, .ld_pad = 3, .alpha = 0.5, .beta = 2.0},
        {.m = 1000, .n = 999, .k = 65, .alpha = 1.0, .beta = 0.0, .nan_in_c = true},
    };
    uint64_t seed = 0xA070;
    for (const auto& ops : kOps) {
        for (verify::Case c : shapes) {
            c.transa = ops[0];
            c.transb = ops[1];
            c.seed = ++seed;
            const verify::Outcome out = verify::run_case("auto", c, *blas_, stream_);
            EXPECT_EQ(out.status, GEMMKIT_SUCCESS)
                << "auto " << verify::describe(c) << ": " << out.message;
            EXPECT_TRUE(out.pass()) << "auto " << verify::describe(c) << ": " << verify::describe(out.result) << ", "
                                    << out.outside_writes << " writes outside C's m x n window";
        }
    }
}

TEST_F(ApiGpuTest, NullKernelAndSgemmAreAuto) {
    uint64_t seed = 0xA100;
    for (const auto& ops : kOps) {
        const HostGemm h = HostGemm::random(ops[0], ops[1], 201, 77, 45, 2, 1.5f, -0.5f, ++seed);
        {
            DeviceGemm d(h);
            const gemmkit_status s = d.run(stream_, nullptr);
            ASSERT_EQ(s, GEMMKIT_SUCCESS) << h.describe() << ": " << status_text(s);
            const verify::CompareResult r = h.check(download(d.C, stream_));
            EXPECT_TRUE(r.pass) << "gemm_ex(kernel NULL) " << h.describe() << ": " << verify::describe(r);
        }
        {
            DeviceGemm d(h);
            const gemmkit_status s = gemmkit_sgemm(stream_, h.transa, h.transb, h.m, h.n, h.k, &h.alpha, d.A.data(),
                                                   h.lda, d.B.data(), h.ldb, &h.beta, d.C.data(), h.ldc);
            ASSERT_EQ(s, GEMMKIT_SUCCESS) << h.describe() << ": " << status_text(s);
            EXPECT_STREQ(gemmkit_last_error(), "") << "a successful call clears the last error";
            const verify::CompareResult r = h.check(download(d.C, stream_));
            EXPECT_TRUE(r.pass) << "gemmkit_sgemm " << h.describe() << ": " << verify::describe(r);
        }
    }
}

// ---- cuBLAS corner cases ----------------------------------------------------------------

// C = beta * C with A and B NULL: they must not be read (or even checked) when there is no
// product. beta = -1.5 makes each element one correctly rounded FP32 multiply, so the
// device result must equal the host's bit for bit.
void expect_beta_times_c(int64_t k, float alpha, cudaStream_t stream) {
    const int64_t m = 65, n = 33;
    const float beta = -1.5f;
    const std::vector<float> c0 = HostGemm::fill(m, n, m, 0xBE7A + k);
    DeviceBuffer<float> dC(c0.size());
    upload(dC, c0, stream);
    const gemmkit_status s = gemmkit_sgemm(stream, GEMMKIT_OP_N, GEMMKIT_OP_N, m, n, k, &alpha, nullptr, m,
                                           nullptr, std::max<int64_t>(1, k), &beta, dC.data(), m);
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << "k " << k << " alpha " << alpha << " with A = B = NULL: " << status_text(s);
    const std::vector<float> c1 = download(dC, stream);
    for (size_t i = 0; i < c0.size(); ++i)
        ASSERT_TRUE(same_bits(c1[i], beta * c0[i]))
            << "k " << k << " alpha " << alpha << ": C[" << i << "] = " << c1[i] << ", expected " << beta * c0[i];
}

TEST_F(ApiGpuTest, KZeroGivesBetaTimesC) { expect_beta_times_c(0, 1.0f, stream_); }

TEST_F(ApiGpuTest, AlphaZeroGivesBetaTimesC) { expect_beta_times_c(33, 0.0f, stream_); }

TEST_F(ApiGpuTest, KZeroBetaZeroClearsNanC) {
    // beta == 0 means C is never read: C = 0 exactly, even where it held NaN.
    const int64_t m = 40, n = 9;
    const float alpha = 1.0f, beta = 0.0f;
    DeviceBuffer<float> dC(m * n);
    upload(dC, std::vector<float>(m * n, std::numeric_limits<float>::quiet_NaN()), stream_);
    const gemmkit_status s =
        gemmkit_sgemm(stream_, GEMMKIT_OP_T, GEMMKIT_OP_N, m, n, 0, &alpha, nullptr, 1, nullptr, 1, &beta, dC.data(), m);
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
    const std::vector<float> c1 = download(dC, stream_);
    for (size_t i = 0; i < c1.size(); ++i) ASSERT_EQ(c1[i], 0.0f) << "C[" << i << "]";
}

TEST_F(ApiGpuTest, BetaZeroIgnoresNanInC) {
    uint64_t seed = 0xB0;
    for (const auto& ops : kOps) {
        HostGemm h = HostGemm::random(ops[0], ops[1], 150, 70, 40, 0, 0.75f, 0.0f, ++seed);
        h.C.assign(h.C.size(), std::numeric_limits<float>::quiet_NaN());
        DeviceGemm d(h);
        const gemmkit_status s = d.run(stream_, "auto");
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << h.describe() << ": " << status_text(s);
        const std::vector<float> out = download(d.C, stream_);
        for (size_t i = 0; i < out.size(); ++i)
            ASSERT_TRUE(std::isfinite(out[i])) << h.describe() << ": C[" << i << "] = " << out[i] << " (NaN from C leaked)";
        const verify::CompareResult r = h.check(out);
        EXPECT_TRUE(r.pass) << h.describe() << ": " << verify::describe(r);
    }
}

TEST_F(ApiGpuTest, EmptyProblemLeavesCUntouched) {
    // m == 0 or n == 0: nothing to compute, and C (even with room for elements) is not written.
    const std::vector<float> before(64, kSentinel);
    DeviceBuffer<float> dA(64), dB(64), dC(64);
    upload(dC, before, stream_);
    const float alpha = 1.0f, beta = 0.0f;
    struct Dims { int64_t m, n, k, lda, ldb, ldc; };
    for (const Dims& d : {Dims{0, 7, 5, 1, 5, 1}, Dims{7, 0, 5, 7, 5, 7}, Dims{0, 0, 0, 1, 1, 1}}) {
        const gemmkit_status s = gemmkit_sgemm(stream_, GEMMKIT_OP_N, GEMMKIT_OP_N, d.m, d.n, d.k, &alpha, dA.data(),
                                               d.lda, dB.data(), d.ldb, &beta, dC.data(), d.ldc);
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << d.m << "x" << d.n << "x" << d.k << ": " << status_text(s);
        const int64_t changed = first_changed(before, download(dC, stream_));
        ASSERT_EQ(changed, -1) << d.m << "x" << d.n << "x" << d.k << " wrote C[" << changed << "]";
    }
}

// ---- streams ----------------------------------------------------------------------------

// Holds a stream at a host function until opened, so work queued behind it cannot run.
// It opens by itself after 20 s, so a library that waits on the stream fails the test
// instead of hanging it.
struct StreamGate {
    std::atomic<bool> open{false};
    static void CUDART_CB wait(void* self) {
        auto* gate = static_cast<StreamGate*>(self);
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (!gate->open.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    }
};

// A stream destroyed on scope exit.
struct OwnedStream {
    cudaStream_t s = nullptr;
    explicit OwnedStream(unsigned flags) {
        if (cudaStreamCreateWithFlags(&s, flags) != cudaSuccess) throw std::runtime_error("cudaStreamCreateWithFlags");
    }
    ~OwnedStream() {
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    }
    OwnedStream(const OwnedStream&) = delete;
    OwnedStream& operator=(const OwnedStream&) = delete;
};

TEST_F(ApiGpuTest, HonoursTheCallersStream) {
    // Non-blocking streams do not synchronize with the legacy default stream, so if the
    // library launched anywhere but `work`, the product would appear while `work` is held.
    // Declaration order matters however the test exits: the gate outlives the streams (their
    // destructors wait for its host function), and the opener dies before the streams and
    // the buffers (cudaFree synchronizes the device), so nothing waits on a closed gate.
    StreamGate gate;
    OwnedStream work(cudaStreamNonBlocking), observer(cudaStreamNonBlocking);
    const HostGemm h = HostGemm::random(GEMMKIT_OP_N, GEMMKIT_OP_T, 300, 200, 50, 0, 1.0f, 0.0f, 0x57EA);
    DeviceGemm d(h);
    struct Opener {
        StreamGate& g;
        ~Opener() { g.open = true; }
    } opener{gate};
    const std::vector<float> sentinel(h.C.size(), kSentinel);
    upload(d.C, sentinel, work.s);
    const auto read_c = [&] {
        std::vector<float> out(d.C.size());
        if (cudaMemcpyAsync(out.data(), d.C.data(), d.C.size() * sizeof(float), cudaMemcpyDeviceToHost, observer.s) != cudaSuccess ||
            cudaStreamSynchronize(observer.s) != cudaSuccess)
            throw std::runtime_error("reading C on the observer stream failed");
        return out;
    };

    // Run the product once first: with lazy module loading (CUDA's default) the first launch
    // of a kernel loads it, which may wait for the device, here for the closed gate.
    ASSERT_EQ(gemmkit_sgemm(work.s, h.transa, h.transb, h.m, h.n, h.k, &h.alpha, d.A.data(), h.lda, d.B.data(), h.ldb,
                            &h.beta, d.C.data(), h.ldc),
              GEMMKIT_SUCCESS);
    upload(d.C, sentinel, work.s);

    ASSERT_CUDA(cudaLaunchHostFunc(work.s, &StreamGate::wait, &gate));

    const auto t0 = std::chrono::steady_clock::now();
    const gemmkit_status s = gemmkit_sgemm(work.s, h.transa, h.transb, h.m, h.n, h.k, &h.alpha, d.A.data(), h.lda,
                                           d.B.data(), h.ldb, &h.beta, d.C.data(), h.ldc);
    const double call_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << status_text(s);
    ASSERT_LT(call_seconds, 10.0) << "gemmkit_sgemm waited for earlier work on its stream (it must only enqueue)";

    // Long enough for a kernel launched on the wrong stream to have finished.
    std::this_thread::sleep_for(200ms);
    ASSERT_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
    const int64_t early = first_changed(sentinel, read_c());
    ASSERT_EQ(early, -1) << "C[" << early << "] was written while the caller's stream was held: "
                         << "the product did not run on that stream";

    gate.open = true;
    ASSERT_CUDA(cudaStreamSynchronize(work.s));
    const verify::CompareResult r = h.check(read_c());
    EXPECT_TRUE(r.pass) << h.describe() << ": " << verify::describe(r);
}

// ---- pointer checks ---------------------------------------------------------------------

TEST_F(ApiGpuTest, HostPointerIsRejectedBeforeAnyWork) {
    // An ordinary malloc'ed pointer would fault inside the kernel; the call must refuse it
    // up front, name it, and leave C alone.
    const HostGemm h = HostGemm::random(GEMMKIT_OP_N, GEMMKIT_OP_N, 64, 48, 32, 0, 1.0f, 0.5f, 0x4057);
    for (const char* which : {"A", "B", "C"}) {
        DeviceGemm d(h);
        const std::string w = which;
        const size_t count = w == "A" ? h.A.size() : w == "B" ? h.B.size() : h.C.size();
        const std::vector<float>& src = w == "A" ? h.A : w == "B" ? h.B : h.C;
        float* host = static_cast<float*>(std::malloc(count * sizeof(float)));
        ASSERT_NE(host, nullptr);
        std::memcpy(host, src.data(), count * sizeof(float));
        const float* A = w == "A" ? host : d.A.data();
        const float* B = w == "B" ? host : d.B.data();
        float* C = w == "C" ? host : d.C.data();

        const gemmkit_status s =
            gemmkit_sgemm(stream_, h.transa, h.transb, h.m, h.n, h.k, &h.alpha, A, h.lda, B, h.ldb, &h.beta, C, h.ldc);
        const std::string message = gemmkit_last_error();
        const cudaError_t sync = cudaStreamSynchronize(stream_);
        const std::vector<float> c_after =
            w == "C" ? std::vector<float>(host, host + count) : download(d.C, stream_);
        std::free(host);

        EXPECT_EQ(s, GEMMKIT_INVALID_VALUE) << which << " on the host: " << status_text(s);
        EXPECT_TRUE(names(message, which));
        EXPECT_EQ(sync, cudaSuccess) << cudaGetErrorString(sync);
        const int64_t changed = first_changed(h.C, c_after);
        EXPECT_EQ(changed, -1) << which << " on the host, yet C[" << changed << "] changed";
    }
}

// ---- every kernel by name ---------------------------------------------------------------

TEST_F(ApiGpuTest, EveryKernelAgreesWithAuto) {
    const HostGemm h = HostGemm::random(GEMMKIT_OP_N, GEMMKIT_OP_T, 193, 130, 67, 1, 0.75f, -0.5f, 0xE7E7);
    DeviceGemm d(h);
    gemmkit_status s = d.run(stream_, "auto");
    ASSERT_EQ(s, GEMMKIT_SUCCESS) << "auto: " << status_text(s);
    const std::vector<float> auto_out = download(d.C, stream_);
    ASSERT_TRUE(h.check(auto_out).pass) << "auto itself is wrong: " << verify::describe(h.check(auto_out));

    // Two FP32 results may each be off the exact value by one bound, so they may differ
    // from each other by twice it.
    std::vector<double> ref, scale;
    h.reference(&ref, &scale);
    std::vector<double> auto_ref(static_cast<size_t>(h.m * h.n));
    for (int64_t j = 0; j < h.n; ++j)
        for (int64_t i = 0; i < h.m; ++i) auto_ref[i + j * h.m] = auto_out[i + j * h.ldc];
    verify::Tolerance tol = verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, h.k);
    tol.rel_frobenius *= 2;
    tol.elem_factor *= 2;

    int ran = 0;
    for (const KernelInfo& info : registry()) {
        std::string why;
        if (info.dtype != GEMMKIT_R_32F || info.min_sm > sm_ || !info.supports(h.problem(), &why)) {
            std::printf("  [ skipped ] %s: %s\n", info.name,
                        info.dtype != GEMMKIT_R_32F ? "not an FP32 kernel"
                        : info.min_sm > sm_         ? "needs a newer GPU"
                                                    : why.c_str());
            continue;
        }
        upload(d.C, h.C, stream_);
        s = d.run(stream_, info.name);
        EXPECT_EQ(s, GEMMKIT_SUCCESS) << info.name << ": " << status_text(s);
        if (s != GEMMKIT_SUCCESS) continue;
        const std::vector<float> out = download(d.C, stream_);
        const verify::CompareResult vs_auto =
            verify::compare<float>(out.data(), h.ldc, auto_ref.data(), scale.data(), h.m, h.n, h.k, tol);
        EXPECT_TRUE(vs_auto.pass) << info.name << " vs auto, " << h.describe() << ": " << verify::describe(vs_auto);
        ++ran;
    }
    EXPECT_GT(ran, 0) << "no registered kernel ran";
}

// ---- TF32 inputs ------------------------------------------------------------------------

// Every TF32 kernel cuts A and B to TF32 the way its row says (KernelInfo::truncates_tf32), which
// is what verification builds its reference from. A's first column holds, row after row, a value
// above a tie and the two kinds of tie, and B a 1 in its first row, so C(i, j) = A(i, 0) cut
// once: rounded to nearest with ties to even, or truncated.
TEST_F(ApiGpuTest, Tf32KernelsCutInputsAsTheirRowsSay) {
    constexpr int64_t m = 128, n = 256, k = 32;
    struct Cut {
        float x, rounded, truncated;
    };
    const Cut cuts[] = {
        {1.0f + 0x1.0p-11f + 0x1.0p-12f, 1.0f + 0x1.0p-10f, 1.0f},                // above the tie: up
        {1.0f + 0x1.0p-11f, 1.0f, 1.0f},                                         // tie, even below
        {1.0f + 0x1.0p-10f + 0x1.0p-11f, 1.0f + 0x1.0p-9f, 1.0f + 0x1.0p-10f},  // tie, even above
    };
    constexpr int64_t kCuts = sizeof cuts / sizeof cuts[0];
    std::vector<float> a(m * k, 0.0f), b(k * n, 0.0f), c(m * n, kSentinel);
    for (int64_t i = 0; i < m; ++i) a[i] = cuts[i % kCuts].x;  // A(i, 0), column-major m x k
    for (int64_t j = 0; j < n; ++j) b[j * k] = 1.0f;            // B(0, j), column-major k x n
    DeviceBuffer<float> da(a.size()), db(b.size()), dc(c.size());
    upload(da, a, stream_);
    upload(db, b, stream_);
    const float alpha = 1.0f, beta = 0.0f;
    int ran = 0;
    for (const KernelInfo& info : registry()) {
        if (info.compute != GEMMKIT_COMPUTE_32F_FAST_TF32 || info.min_sm > sm_) continue;
        upload(dc, c, stream_);
        const gemmkit_status s =
            gemmkit_gemm_ex(stream_, GEMMKIT_OP_N, GEMMKIT_OP_N, m, n, k, &alpha, da.data(), GEMMKIT_R_32F, m,
                            db.data(), GEMMKIT_R_32F, k, &beta, dc.data(), GEMMKIT_R_32F, m,
                            GEMMKIT_COMPUTE_32F_FAST_TF32, info.name);
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << info.name << ": " << status_text(s);
        Problem p;
        p.m = m, p.n = n, p.k = k, p.lda = m, p.ldb = k, p.ldc = m;
        p.A = da.data(), p.B = db.data(), p.C = dc.data();
        p.a_type = p.b_type = p.c_type = GEMMKIT_R_32F;
        p.compute = GEMMKIT_COMPUTE_32F_FAST_TF32;
        const bool truncates = info.truncates_tf32 != nullptr && info.truncates_tf32(p);
        const std::vector<float> out = download(dc, stream_);
        int64_t wrong = 0, first_wrong = -1;
        for (int64_t e = 0; e < m * n; ++e) {
            const Cut& cut = cuts[e % m % kCuts];
            if (out[e] == (truncates ? cut.truncated : cut.rounded)) continue;
            if (wrong++ == 0) first_wrong = e;
        }
        EXPECT_EQ(wrong, 0) << info.name << (truncates ? " says it truncates" : " says it rounds") << ": C(" << first_wrong % m
                            << ", " << first_wrong / m << ") = " << std::hexfloat << out[std::max<int64_t>(first_wrong, 0)];
        ++ran;
    }
    EXPECT_GT(ran, 0) << "no TF32 kernel runs on this device";
}

// ---- threads ----------------------------------------------------------------------------

TEST_F(ApiGpuTest, ConcurrentThreadsGetCorrectResults) {
    // Two threads share the library's per-device state and call at the same time, each on
    // its own stream and buffers. Thread 1 also makes a failing call each round: the last
    // error is thread-local, so thread 0 must never see it.
    struct Worker {
        HostGemm h;
        std::vector<float> out;
        std::string error;  // first thing that went wrong, empty if none
    };
    Worker w[2] = {
        {HostGemm::random(GEMMKIT_OP_N, GEMMKIT_OP_N, 513, 257, 129, 0, 1.0f, 0.0f, 0x7A0), {}, {}},
        {HostGemm::random(GEMMKIT_OP_T, GEMMKIT_OP_N, 257, 513, 65, 3, 1.0f, 0.0f, 0x7A1), {}, {}},
    };
    constexpr int kRounds = 25;
    const auto body = [&](int id) {
        Worker& me = w[id];
        try {
            OwnedStream stream(cudaStreamNonBlocking);
            DeviceGemm d(me.h);
            const HostGemm& h = me.h;
            for (int round = 0; round < kRounds && me.error.empty(); ++round) {
                if (id == 1) {
                    const gemmkit_status bad = gemmkit_sgemm(stream.s, h.transa, h.transb, h.m, h.n, h.k, &h.alpha,
                                                             d.A.data(), h.lda, d.B.data(), h.ldb, &h.beta, d.C.data(), 0);
                    if (bad != GEMMKIT_INVALID_VALUE || !names(gemmkit_last_error(), "ldc"))
                        me.error = "ldc = 0 gave " + status_text(bad);
                }
                // beta == 0: every round writes the same C, so only the last one is checked.
                const gemmkit_status s = gemmkit_sgemm(stream.s, h.transa, h.transb, h.m, h.n, h.k, &h.alpha,
                                                       d.A.data(), h.lda, d.B.data(), h.ldb, &h.beta, d.C.data(), h.ldc);
                if (s != GEMMKIT_SUCCESS) me.error = "round " + std::to_string(round) + ": " + status_text(s);
                else if (gemmkit_last_error()[0] != '\0')
                    me.error = std::string("last error not cleared after success: ") + gemmkit_last_error();
            }
            me.out = download(d.C, stream.s);
        } catch (const std::exception& e) {
            me.error = e.what();
        }
    };
    std::thread t0(body, 0), t1(body, 1);
    t0.join();
    t1.join();
    for (int id = 0; id < 2; ++id) {
        ASSERT_EQ(w[id].error, "") << "thread " << id;
        const verify::CompareResult r = w[id].h.check(w[id].out);
        EXPECT_TRUE(r.pass) << "thread " << id << ", " << w[id].h.describe() << ": " << verify::describe(r);
    }
}

// ---- what a kernel must not write -------------------------------------------------------

TEST_F(ApiGpuTest, LargeLdcLeavesPaddingRowsUntouched) {
    // Rows m .. ldc-1 of each column of C belong to the caller. Checked for auto and for
    // every FP32 kernel, since each has its own edge handling.
    HostGemm h = HostGemm::random(GEMMKIT_OP_N, GEMMKIT_OP_N, 100, 50, 33, 0, 1.0f, 0.5f, 0x1DC);
    h.ldc = h.m + 1000;
    h.C = HostGemm::fill(h.m, h.n, h.ldc, 0x1DC0);
    for (int64_t j = 0; j < h.n; ++j)
        for (int64_t i = h.m; i < h.ldc; ++i) h.C[i + j * h.ldc] = kSentinel;

    std::vector<std::string> kernels = {"auto"};
    for (const KernelInfo& info : registry()) {
        std::string why;
        if (info.dtype == GEMMKIT_R_32F && info.min_sm <= sm_ && info.supports(h.problem(), &why))
            kernels.push_back(info.name);
    }
    DeviceGemm d(h);
    for (const std::string& kernel : kernels) {
        upload(d.C, h.C, stream_);
        const gemmkit_status s = d.run(stream_, kernel.c_str());
        ASSERT_EQ(s, GEMMKIT_SUCCESS) << kernel << ": " << status_text(s);
        const std::vector<float> out = download(d.C, stream_);
        for (int64_t j = 0; j < h.n; ++j)
            for (int64_t i = h.m; i < h.ldc; ++i)
                ASSERT_TRUE(same_bits(out[i + j * h.ldc], kSentinel))
                    << kernel << " wrote padding row " << i << " of column " << j << " (ldc " << h.ldc << ", m "
                    << h.m << "): " << out[i + j * h.ldc];
        const verify::CompareResult r = h.check(out);
        EXPECT_TRUE(r.pass) << kernel << " " << h.describe() << ": " << verify::describe(r);
    }
}

}  // namespace
}  // namespace gemmkit::test
