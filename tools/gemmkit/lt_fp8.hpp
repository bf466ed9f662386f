// cuBLASLt's FP8 matmul with scales: the baseline of `gemmkit bench --suite fp8`, with the
// semantics of gemmkit_gemm_scaled_ex. One matmul descriptor, layouts and heuristic algorithm a
// problem, made once and run many times.
#pragma once

#include <cstdint>
#include <string>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.hpp"
#include "lt_call.hpp"

namespace gemmkit::cli {

// C (m x n, column-major) = alpha * sa(i) * sb(j) * sum_p op T(A)(i, p) op N(B)(p, j) + beta * C,
// as gemmkit_gemm_scaled_ex computes it (with block scales, sa and sb those of p's block of k):
// A stored k x m and B stored k x n (both K-major, the only FP8 layout cuBLASLt serves on
// Hopper), FP32 accumulation, FP32 scales on the device in gemmkit_scaling's layouts.
struct LtFp8Problem {
    int64_t m = 0, n = 0, k = 0;
    const void* A = nullptr;  // stored k x m
    gemmkit_dtype a_type = GEMMKIT_R_8F_E4M3;
    int64_t lda = 0;
    const void* B = nullptr;  // stored k x n
    gemmkit_dtype b_type = GEMMKIT_R_8F_E4M3;
    int64_t ldb = 0;
    void* C = nullptr;  // D is written in place of C, same type and layout
    gemmkit_dtype c_type = GEMMKIT_R_16BF;
    int64_t ldc = 0;
    gemmkit_scaling scaling = GEMMKIT_SCALING_INIT;  // any mode; its fast_accum is not read (below)
    float alpha = 1, beta = 0;
    // cuBLASLt's FAST_ACCUM: sums kept in the tensor cores' accumulators for all of k, never
    // promoted to FP32 registers (faster, less accurate). Off is its default and torch's.
    bool fast_accum = false;
};

class LtFp8Matmul : public LtCall {
public:
    explicit LtFp8Matmul(cudaStream_t stream) : LtCall(stream) {}

    // Describes p and asks the heuristic for an algorithm: "" when ready, else why cuBLASLt
    // (or the installed cuBLASLt's header) cannot run it; for block scales the reason starts with
    // the combination tried (tried()). Block scales are copied into cuBLASLt's layout here, on
    // the stream, once: run() only reads the copy, so p's scales must not change after.
    std::string prepare(const LtFp8Problem& p);
    // The prepared call on the stream.
    cublasStatus_t run() const;

    // p's types (gemmkit's names), cuBLASLt scale modes and FAST_ACCUM: the combination tried
    // ("e4m3 x e4m3 -> bf16, A VEC128_32F x B BLK128x128_32F, FAST_ACCUM off").
    static std::string tried(const LtFp8Problem& p);

private:
    std::string prepare_call(const LtFp8Problem& p);

    LtFp8Problem p_;
    // Block scales in cuBLASLt's layouts (lt_fp8.cpp), where gemmkit's differ or are NULL.
    DeviceBuffer<float> a_blocks_, b_blocks_;
};

}  // namespace gemmkit::cli
