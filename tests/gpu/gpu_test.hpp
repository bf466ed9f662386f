// Shared pieces of the GPU tests: the fixture every test derives from, a CUDA check that
// fails the test, stream-aware copies, and host-side GEMM data with a CPU reference.
//
// Without a device every test skips in SetUp() with the reason, so the binary runs (and
// reports each test as SKIPPED) on the GPU-less CI machines; main() then exits 77.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "common/check.hpp"
#include "common/host_copy.hpp"
#include "gemmkit/gemmkit.h"
#include "reference/cpu_gemm.hpp"
#include "reference/cublas_gemm.hpp"
#include "registry.hpp"
#include "verify/compare.hpp"
#include "verify/matrix_init.hpp"

namespace gemmkit::test {

// Fails the current test (and returns from it) when a CUDA runtime call fails.
#define ASSERT_CUDA(expr)                                                                  \
    do {                                                                                   \
        const cudaError_t gk_test_err_ = (expr);                                           \
        ASSERT_EQ(gk_test_err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(gk_test_err_); \
    } while (0)

// Whether a device is present, asked once. The reason is what the skips print.
struct DevicePresence {
    int count = 0;
    std::string reason;  // empty when count > 0
};

inline const DevicePresence& device_presence() {
    static const DevicePresence kPresence = [] {
        DevicePresence d;
        const cudaError_t err = cudaGetDeviceCount(&d.count);
        if (err != cudaSuccess) {
            cudaGetLastError();  // no driver / no device: do not leave the error behind
            d.count = 0;
            d.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
        } else if (d.count == 0) {
            d.reason = "cudaGetDeviceCount reports 0 devices";
        }
        return d;
    }();
    return kPresence;
}

// Compute capability of the current device as 10 * major + minor; 0 if it cannot be read.
inline int current_sm() {
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return 10 * major + minor;
}

// Base of every GPU test: skips without a device, otherwise owns a stream and a cuBLAS
// handle bound to it (the reference run_case needs for large sizes).
class GpuTest : public ::testing::Test {
protected:
    void SetUp() override {
        const DevicePresence& d = device_presence();
        if (d.count == 0) GTEST_SKIP() << "no CUDA device (" << d.reason << ")";
        // An error left by an earlier test (a fault is sticky) would be blamed on this one.
        ASSERT_CUDA(cudaGetLastError());
        ASSERT_CUDA(cudaStreamCreate(&stream_));
        blas_ = std::make_unique<ref::Cublas>(stream_);
        sm_ = current_sm();
        ASSERT_GT(sm_, 0) << "cannot read the device's compute capability";
    }

    void TearDown() override {
        if (stream_ == nullptr) return;  // skipped before any device work
        blas_.reset();
        // Asynchronous faults surface here, attributed to the test that caused them.
        EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess) << "work left on the test's stream failed";
        EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
        stream_ = nullptr;
        const cudaError_t err = cudaDeviceSynchronize();
        EXPECT_EQ(err, cudaSuccess) << "device error after the test: " << cudaGetErrorString(err);
    }

    cudaStream_t stream_ = nullptr;
    std::unique_ptr<ref::Cublas> blas_;
    int sm_ = 0;
};

// Copies to and from a DeviceBuffer ordered with `stream`. DeviceBuffer's own copies run on
// the legacy default stream, which non-blocking streams do not wait for; and a pageable
// host-to-device cudaMemcpy may return before its DMA lands, hence the second sync.
template <class T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& host, cudaStream_t stream) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    d.copy_from_host(host.data());
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}
template <class T>
std::vector<T> download(const DeviceBuffer<T>& d, cudaStream_t stream) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return to_host(d);
}

// Bitwise equality: NaN == NaN and -0 != +0, which is what "untouched" means.
inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The first element (of `size` bytes) that no problem covers (`inside` 0) and whose bytes differ
// between `after` and `before`; -1 where every such element is as it was.
inline int64_t first_changed_outside(const std::vector<unsigned char>& after, const std::vector<unsigned char>& before,
                                     const std::vector<char>& inside, size_t size) {
    for (size_t idx = 0; idx < inside.size(); ++idx)
        if (!inside[idx] && std::memcmp(after.data() + idx * size, before.data() + idx * size, size) != 0)
            return static_cast<int64_t>(idx);
    return -1;
}

// One FP32 GEMM on the host: seeded random operands (column-major, with their leading
// dimensions) and the double-precision CPU reference to compare a device result with.
struct HostGemm {
    gemmkit_op transa = GEMMKIT_OP_N, transb = GEMMKIT_OP_N;
    int64_t m = 0, n = 0, k = 0;
    int64_t lda = 1, ldb = 1, ldc = 1;
    float alpha = 1.0f, beta = 0.0f;
    std::vector<float> A, B, C;  // C: its content before the call
    uint64_t seed = 0;

    // Operands in [-1, 1) from verify::uniform_value (the library's own seeded generator).
    // Padding rows of A and B are NaN, so a kernel that reads past the stored rows fails.
    static HostGemm random(gemmkit_op ta, gemmkit_op tb, int64_t m, int64_t n, int64_t k, int64_t ld_pad,
                           float alpha, float beta, uint64_t seed) {
        HostGemm g;
        g.transa = ta;
        g.transb = tb;
        g.m = m;
        g.n = n;
        g.k = k;
        g.alpha = alpha;
        g.beta = beta;
        g.seed = seed;
        const int64_t rows_a = ta == GEMMKIT_OP_N ? m : k, cols_a = ta == GEMMKIT_OP_N ? k : m;
        const int64_t rows_b = tb == GEMMKIT_OP_N ? k : n, cols_b = tb == GEMMKIT_OP_N ? n : k;
        g.lda = std::max<int64_t>(1, rows_a) + ld_pad;
        g.ldb = std::max<int64_t>(1, rows_b) + ld_pad;
        g.ldc = std::max<int64_t>(1, m) + ld_pad;
        g.A = fill(rows_a, cols_a, g.lda, seed * 3 + 0);
        g.B = fill(rows_b, cols_b, g.ldb, seed * 3 + 1);
        g.C = fill(m, n, g.ldc, seed * 3 + 2);
        return g;
    }

    // ref and scale (m x n, ld m) from the double-accumulating CPU GEMM.
    void reference(std::vector<double>* ref, std::vector<double>* scale) const {
        ref->assign(static_cast<size_t>(m * n), 0.0);
        scale->assign(static_cast<size_t>(m * n), 0.0);
        ref::cpu_gemm<float>(transa, transb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta,
                             beta == 0.0f ? nullptr : C.data(), ldc, ref->data(), scale->data());
    }

    // `out` (as C is laid out, ld ldc) against the CPU reference with the FP32 tolerance.
    verify::CompareResult check(const std::vector<float>& out) const {
        std::vector<double> ref, scale;
        reference(&ref, &scale);
        return verify::compare<float>(out.data(), ldc, ref.data(), scale.data(), m, n, k,
                                      verify::tolerance_for(GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, k));
    }

    // The Problem as the library receives it (no pointers), for asking supports().
    Problem problem() const {
        Problem p;
        p.transa = transa;
        p.transb = transb;
        p.m = m;
        p.n = n;
        p.k = k;
        p.lda = lda;
        p.ldb = ldb;
        p.ldc = ldc;
        p.alpha = alpha;
        p.beta = beta;
        return p;  // FP32 A/B/C, COMPUTE_32F: Problem's defaults
    }

    std::string describe() const {
        return std::string(ops_name(transa, transb)) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
               std::to_string(k) + " lda " + std::to_string(lda) + " ldb " + std::to_string(ldb) + " ldc " +
               std::to_string(ldc) + " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta) +
               " seed " + std::to_string(seed);
    }

    static std::vector<float> fill(int64_t rows, int64_t cols, int64_t ld, uint64_t seed) {
        std::vector<float> x(static_cast<size_t>(ld * std::max<int64_t>(cols, 1)),
                             std::numeric_limits<float>::quiet_NaN());
        for (int64_t j = 0; j < cols; ++j)
            for (int64_t i = 0; i < rows; ++i)
                x[i + j * ld] = static_cast<float>(verify::uniform_value(seed, i + j * rows));
        return x;
    }
};

// HostGemm's operands on the device, and a call through the public C API.
struct DeviceGemm {
    explicit DeviceGemm(const HostGemm& h) : host(h), A(h.A.size()), B(h.B.size()), C(h.C.size()) {
        A.copy_from_host(h.A.data());
        B.copy_from_host(h.B.data());
        C.copy_from_host(h.C.data());
        // The copies are on the legacy stream; callers may go on with a non-blocking one.
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }

    // kernel: NULL or "auto" for automatic choice, else a registry name.
    gemmkit_status run(cudaStream_t stream, const char* kernel) {
        return gemmkit_gemm_ex(stream, host.transa, host.transb, host.m, host.n, host.k, &host.alpha, A.data(),
                               GEMMKIT_R_32F, host.lda, B.data(), GEMMKIT_R_32F, host.ldb, &host.beta, C.data(),
                               GEMMKIT_R_32F, host.ldc, GEMMKIT_COMPUTE_32F, kernel);
    }

    const HostGemm& host;
    DeviceBuffer<float> A, B, C;
};

// The library's status and message, for failure output.
inline std::string status_text(gemmkit_status s) {
    return std::string(gemmkit_status_string(s)) + " (" + gemmkit_last_error() + ")";
}

// A registry name made fit for a GoogleTest name: "sgemm.05_x" -> "sgemm_05_x".
inline std::string test_name_part(const std::string& s) {
    std::string out = s;
    for (char& ch : out)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return out;
}

// Runs body(id, stream) for id = 0 .. threads - 1 on that many threads at once, each with a
// non-blocking stream of its own; returns each thread's error: what body returned ("" for none),
// or what it threw.
inline std::vector<std::string> run_on_threads(int threads,
                                               const std::function<std::string(int, cudaStream_t)>& body) {
    std::vector<std::string> error(static_cast<size_t>(threads));
    std::vector<std::thread> running;
    for (int id = 0; id < threads; ++id)
        running.emplace_back([&, id] {
            cudaStream_t stream = nullptr;
            try {
                if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
                    throw std::runtime_error("cudaStreamCreateWithFlags");
                error[id] = body(id, stream);
            } catch (const std::exception& e) {
                error[id] = e.what();
            }
            if (stream != nullptr) cudaStreamDestroy(stream);
        });
    for (std::thread& t : running) t.join();
    return error;
}

// Elements a column-major rows x cols matrix with leading dimension ld spans.
inline int64_t footprint(int64_t rows, int64_t cols, int64_t ld) {
    return rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows;
}

// Elements a batch of `count` matrices spans, each `one` long and `stride` after the last.
inline int64_t batch_span(int64_t stride, int64_t count, int64_t one) { return stride * (count - 1) + one; }

// Sets p's leading dimensions and batch strides (p's ops, m, n, k and batch.count given) for
// the batches the GPU tests lay out: each leading dimension the stored rows plus ld_pad, each
// matrix stride_gap elements after the end of the one before; a shared A or B has stride 0.
// Returns the elements the A, B and C buffers span.
struct BatchElements {
    int64_t a, b, c;
};
inline BatchElements lay_out_batch(Problem* p, int64_t ld_pad, int64_t stride_gap, bool shared_a = false,
                                   bool shared_b = false) {
    const int64_t rows_a = stored_rows_a(*p), cols_a = p->transa == GEMMKIT_OP_N ? p->k : p->m;
    const int64_t rows_b = stored_rows_b(*p), cols_b = p->transb == GEMMKIT_OP_N ? p->n : p->k;
    p->lda = std::max<int64_t>(1, rows_a) + ld_pad;
    p->ldb = std::max<int64_t>(1, rows_b) + ld_pad;
    p->ldc = std::max<int64_t>(1, p->m) + ld_pad;
    const int64_t a = footprint(rows_a, cols_a, p->lda), b = footprint(rows_b, cols_b, p->ldb);
    const int64_t c = footprint(p->m, p->n, p->ldc);
    p->batch.stride_a = shared_a ? 0 : a + stride_gap;
    p->batch.stride_b = shared_b ? 0 : b + stride_gap;
    p->batch.stride_c = c + stride_gap;
    const int64_t count = p->batch.count;
    return {batch_span(p->batch.stride_a, count, a), batch_span(p->batch.stride_b, count, b),
            batch_span(p->batch.stride_c, count, c)};
}

// A pointer-array batch over the matrices of p, a strided batch on the device: device arrays of
// A, B and C pointers, one after the other, where problem z gets the matrices at strided
// position order[z] (a shuffle: reversed, the first two swapped, so that a kernel that ignored
// the arrays would fail). p becomes that batch (its A, B and C NULL); *order receives the
// shuffle. The returned buffer holds the arrays and must outlive p's use.
inline DeviceBuffer<uintptr_t> make_pointer_arrays(Problem* p, std::vector<int64_t>* order) {
    const int64_t count = p->batch.count;
    order->resize(static_cast<size_t>(count));
    std::iota(order->begin(), order->end(), 0);
    std::reverse(order->begin(), order->end());
    if (count > 2) std::swap((*order)[0], (*order)[1]);
    std::vector<uintptr_t> ptrs(static_cast<size_t>(3 * count));
    const size_t ab = dtype_size(p->a_type), cs = dtype_size(p->c_type);
    for (int64_t z = 0; z < count; ++z) {
        const int64_t at = (*order)[z];
        ptrs[z] = reinterpret_cast<uintptr_t>(static_cast<const char*>(p->A) + at * p->batch.stride_a * ab);
        ptrs[count + z] = reinterpret_cast<uintptr_t>(static_cast<const char*>(p->B) + at * p->batch.stride_b * ab);
        ptrs[2 * count + z] = reinterpret_cast<uintptr_t>(static_cast<char*>(p->C) + at * p->batch.stride_c * cs);
    }
    DeviceBuffer<uintptr_t> arrays(ptrs.size());
    arrays.copy_from_host(ptrs.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    p->batch.arrays = true;
    p->batch.a_array = reinterpret_cast<const void* const*>(arrays.data());
    p->batch.b_array = p->batch.a_array + count;
    p->batch.c_array = reinterpret_cast<void* const*>(arrays.data()) + 2 * count;
    p->A = p->B = nullptr, p->C = nullptr;
    return arrays;
}

// Captures run(stream) once into a CUDA graph on a non-blocking stream of its own, then
// `replays` times: reset(stream), launch the graph, synchronize, and check(replay), which returns
// "" or what is wrong. Returns "" or the first failure, the call's status or CUDA's included.
inline std::string capture_and_replay(const std::function<gemmkit_status(cudaStream_t)>& run,
                                      const std::function<void(cudaStream_t)>& reset,
                                      const std::function<std::string(int)>& check, int replays = 2) {
    cudaStream_t stream = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return "cudaStreamCreateWithFlags";
    std::string failure;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    if (cudaError_t err = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal); err != cudaSuccess) {
        failure = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(err);
    } else {
        const gemmkit_status s = run(stream);
        const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
        cudaGetLastError();
        if (ended != cudaSuccess)
            failure = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(ended);
        else if (s != GEMMKIT_SUCCESS)
            failure = "the captured call: " + status_text(s);
        else if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess)
            failure = "cudaGraphInstantiate";
    }
    for (int replay = 0; failure.empty() && replay < replays; ++replay) {
        reset(stream);
        if (cudaGraphLaunch(exec, stream) != cudaSuccess || cudaStreamSynchronize(stream) != cudaSuccess)
            failure = "replay " + std::to_string(replay) + ": " + cudaGetErrorString(cudaGetLastError());
        else
            failure = check(replay);
    }
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    return failure;
}

}  // namespace gemmkit::test
