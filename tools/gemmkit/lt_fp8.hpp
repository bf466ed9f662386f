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
// as gemmkit_gemm_scaled_ex computes it: A stored k x m and B stored k x n (both K-major, the
// only FP8 layout cuBLASLt serves on Hopper), FP32 accumulation, FP32 scales on the device.
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
    gemmkit_scaling scaling = GEMMKIT_SCALING_INIT;  // TENSOR or OUTER; BLOCK is refused
    float alpha = 1, beta = 0;
    // cuBLASLt's FAST_ACCUM: sums kept in the tensor cores' accumulators for all of k, never
    // promoted to FP32 registers (faster, less accurate). Off is its default and torch's.
    bool fast_accum = false;
};

class LtFp8Matmul : public LtCall {
public:
    explicit LtFp8Matmul(cudaStream_t stream) : LtCall(stream) {}

    // Describes p and asks the heuristic for an algorithm: "" when ready, else why cuBLASLt
    // (or the installed cuBLASLt's header) cannot run it.
    std::string prepare(const LtFp8Problem& p);
    // The prepared call on the stream.
    cublasStatus_t run() const;

private:
    LtFp8Problem p_;
};

}  // namespace gemmkit::cli
