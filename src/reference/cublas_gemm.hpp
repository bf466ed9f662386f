// cuBLAS, in two roles: the baseline every kernel is measured against, and a
// double-precision reference (DGEMM on upcast inputs) for sizes too large for the CPU.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "problem.hpp"

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

// The baseline: the same problem through cuBLAS (FP32: cublasSgemm with default math,
// no TF32). Returns CUBLAS_STATUS_NOT_SUPPORTED for types it has no baseline for yet.
cublasStatus_t cublas_gemm(const Cublas& blas, const Problem& p);

// Reference on the device: ref = alpha op(A) op(B) + beta C in FP64 (inputs widened to double),
// and scale = |alpha| |op(A)| |op(B)| + |beta| |C|. ref and scale are device arrays, m x n, ld m.
// FP32 inputs only. Throws std::runtime_error on CUDA/cuBLAS failure.
void cublas_reference_f64(const Cublas& blas, const Problem& p, double* d_ref, double* d_scale);

}  // namespace gemmkit::ref
