// gemmkit — a thin, header-only C++ layer over the C API in gemmkit.h.
//
// Adds exceptions instead of status codes, a row-major GEMM helper and an RAII device
// buffer. Everything here is inline and calls only the C API and the CUDA runtime, so the
// ABI stays the C one. C++17 or newer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.h"

namespace gemmkit {

// A failed call: the status, and a message "<status name>: <detail>".
class Error : public std::runtime_error {
public:
    // The detail is this thread's gemmkit_last_error(), so build the Error right after the
    // failing call, before another gemmkit call on this thread overwrites it.
    explicit Error(gemmkit_status status) : Error(status, gemmkit_last_error()) {}
    Error(gemmkit_status status, const std::string& detail)
        : std::runtime_error(compose(status, detail)), status_(status) {}

    gemmkit_status status() const noexcept { return status_; }

private:
    static std::string compose(gemmkit_status status, const std::string& detail) {
        std::string text = gemmkit_status_string(status);
        if (!detail.empty()) text += ": " + detail;
        return text;
    }
    gemmkit_status status_;
};

// Throws Error unless `status` is GEMMKIT_SUCCESS.
inline void check(gemmkit_status status) {
    if (status != GEMMKIT_SUCCESS) throw Error(status);
}

namespace detail {
inline void check_cuda(cudaError_t err, const char* what) {
    if (err == cudaSuccess) return;
    cudaGetLastError();  // a non-sticky error must not resurface in the caller's next check
    throw Error(GEMMKIT_CUDA_ERROR, std::string(what) + ": " + cudaGetErrorString(err));
}
inline gemmkit_op op(bool transpose) { return transpose ? GEMMKIT_OP_T : GEMMKIT_OP_N; }

// A message of the column-major call gemm_row_major makes, in the caller's names: that call
// passes B as its A and A as its B, so the whole words A and B trade places.
inline std::string swap_a_and_b(const std::string& msg) {
    const auto ident = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    };
    std::string out = msg;
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] != 'A' && out[i] != 'B') continue;
        if ((i > 0 && ident(out[i - 1])) || (i + 1 < out.size() && ident(out[i + 1]))) continue;
        out[i] = out[i] == 'A' ? 'B' : 'A';
    }
    return out;
}

inline void check_row_major_ld(const char* name, int64_t ld, int64_t cols, const char* cols_text) {
    if (ld >= std::max<int64_t>(1, cols)) return;
    throw Error(GEMMKIT_INVALID_VALUE, std::string(name) + " = " + std::to_string(ld) + " is less than max(1, " +
                                           std::to_string(cols) + "), the columns of the row-major " + cols_text);
}
}  // namespace detail

// Row-major FP32 GEMM: C = alpha * op(A) * op(B) + beta * C with op(A) M x K, op(B) K x N and
// C M x N, all stored row by row (lda, ldb, ldc count elements between rows). Same pointer,
// scalar and stream rules as gemmkit_sgemm; throws Error on failure.
inline void gemm_row_major(cudaStream_t stream, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                           float alpha, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                           float* C, int64_t ldc) {
    // A row-major X with leading dimension ld is, read column-major with the same ld, X^T.
    // So row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: pass B first, A
    // second, swap M and N, keep every ld. The ops stay as given: the column-major view of
    // B is B^T, and op(B)^T is that view with the same op applied.
    // Sizes and leading dimensions are checked here, in this function's own terms; the C API
    // would name them after the swap (M as n, lda as ldb).
    if (M < 0 || N < 0 || K < 0) {
        const char* name = M < 0 ? "M" : N < 0 ? "N" : "K";
        throw Error(GEMMKIT_INVALID_VALUE,
                    std::string(name) + " = " + std::to_string(M < 0 ? M : N < 0 ? N : K) + " is negative");
    }
    detail::check_row_major_ld("lda", lda, trans_a ? M : K, trans_a ? "A (trans_a: M)" : "A (K)");
    detail::check_row_major_ld("ldb", ldb, trans_b ? K : N, trans_b ? "B (trans_b: K)" : "B (N)");
    detail::check_row_major_ld("ldc", ldc, N, "C (N)");
    const gemmkit_status status = gemmkit_sgemm(stream, detail::op(trans_b), detail::op(trans_a), N, M, K, &alpha, B,
                                                ldb, A, lda, &beta, C, ldc);
    if (status != GEMMKIT_SUCCESS) throw Error(status, detail::swap_a_and_b(gemmkit_last_error()));
}

// Owns `size()` elements of T in device memory (cudaMalloc). Move-only.
// The copies are synchronous cudaMemcpy calls: they wait for earlier work on the legacy
// default stream, which is what a simple program expects after a GEMM on stream 0.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : size_(count) {
        if (count == 0) return;
        if (count > std::numeric_limits<size_t>::max() / sizeof(T))
            throw Error(GEMMKIT_ALLOC_FAILED, "DeviceBuffer: " + std::to_string(count) + " elements overflow size_t");
        detail::check_cuda(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMalloc");
    }
    ~DeviceBuffer() { release(); }

    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }

    T* data() noexcept { return data_; }
    const T* data() const noexcept { return data_; }
    size_t size() const noexcept { return size_; }
    size_t bytes() const noexcept { return size_ * sizeof(T); }

    // Copies `count` elements (default: all) from host memory into the start of the buffer.
    void copy_from_host(const T* host, size_t count) {
        check_count(count);
        detail::check_cuda(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
    }
    void copy_from_host(const T* host) { copy_from_host(host, size_); }

    // Copies `count` elements (default: all) from the start of the buffer into host memory.
    void copy_to_host(T* host, size_t count) const {
        check_count(count);
        detail::check_cuda(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    }
    void copy_to_host(T* host) const { copy_to_host(host, size_); }

private:
    void check_count(size_t count) const {
        if (count > size_)
            throw Error(GEMMKIT_INVALID_VALUE, "DeviceBuffer: a copy of " + std::to_string(count) +
                                                   " elements exceeds its size of " + std::to_string(size_));
    }
    // A destructor must not throw; a failing cudaFree here means the context is already gone.
    void release() noexcept {
        if (data_ != nullptr) cudaFree(data_);
        data_ = nullptr;
        size_ = 0;
    }

    T* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace gemmkit
