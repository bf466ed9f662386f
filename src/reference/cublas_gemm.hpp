// cuBLAS, in two roles: the baseline every kernel is measured against, and a
// double-precision reference (DGEMM on upcast inputs) for sizes too large for the CPU.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "problem.hpp"
#include "verify/dtypes.hpp"

namespace gemmkit::ref {

// One cuBLAS handle, bound to a stream, destroyed with the object.
class Cublas {
public:
    explicit Cublas(cudaStream_t stream);
    ~Cublas();
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

// Whether cublas_gemm has a baseline for p's types:
//   FP32 A/B/C, COMPUTE_32F             cublasSgemm (default math: no TF32)
//   FP32 A/B/C, COMPUTE_32F_FAST_TF32   cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32
//   FP16 or BF16 A/B, C of FP32 or the same type, COMPUTE_32F   cublasGemmEx, CUBLAS_COMPUTE_32F
//   FP64 A/B/C, COMPUTE_64F             cublasDgemm
bool has_cublas_baseline(const Problem& p);

// The baseline: the same problem through cuBLAS (64-bit-size entry points), as listed above; a
// batch through cublasGemmStridedBatchedEx or, with pointer arrays, cublasGemmBatchedEx.
// Returns CUBLAS_STATUS_NOT_SUPPORTED for other types.
cublasStatus_t cublas_gemm(const Cublas& blas, const Problem& p);

// Reference on the device: ref = alpha op(A) op(B) + beta C in FP64 (inputs widened to double,
// exactly; A and B first cut to TF32 as `tf32` says, as the kernel's tensor cores do), and
// scale = |alpha| |op(A)| |op(B)| + |beta| |C|. ref and scale are device arrays, m x n, ld m.
// Any A/B and C types. Throws std::runtime_error on CUDA/cuBLAS failure.
void cublas_reference_f64(const Cublas& blas, const Problem& p, verify::Tf32Inputs tf32, double* d_ref,
                          double* d_scale);

}  // namespace gemmkit::ref
