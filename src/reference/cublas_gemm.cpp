#include "reference/cublas_gemm.hpp"

#include <cmath>

#include "common/check.hpp"
#include "gemmkit/gemmkit.hpp"
#include "verify/matrix_init.hpp"

namespace gemmkit::ref {

Cublas::Cublas(cudaStream_t stream) {
    CUBLAS_CHECK(cublasCreate(&handle_));
    CUBLAS_CHECK(cublasSetStream(handle_, stream));
}

Cublas::~Cublas() {
    if (handle_ != nullptr) cublasDestroy(handle_);
}

namespace {
cublasOperation_t to_cublas(gemmkit_op op) { return op == GEMMKIT_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N; }

cudaDataType to_cuda(gemmkit_dtype t) {
    switch (t) {
        case GEMMKIT_R_32F: return CUDA_R_32F;
        case GEMMKIT_R_64F: return CUDA_R_64F;
        case GEMMKIT_R_16F: return CUDA_R_16F;
        case GEMMKIT_R_16BF: return CUDA_R_16BF;
        case GEMMKIT_R_8F_E4M3: return CUDA_R_8F_E4M3;
        case GEMMKIT_R_8F_E5M2: return CUDA_R_8F_E5M2;
    }
    return CUDA_R_32F;  // unreachable for valid values; has_cublas_baseline rejects the rest
}

bool all_of_type(const Problem& p, gemmkit_dtype t) { return p.a_type == t && p.b_type == t && p.c_type == t; }

// FP16/BF16 A and B of one type, C of FP32 or that type, FP32 accumulation.
bool is_half_problem(const Problem& p) {
    const bool half = p.a_type == GEMMKIT_R_16F || p.a_type == GEMMKIT_R_16BF;
    return half && p.b_type == p.a_type && (p.c_type == GEMMKIT_R_32F || p.c_type == p.a_type) &&
           p.compute == GEMMKIT_COMPUTE_32F;
}

// Elements a column-major matrix with `rows` x `cols` and leading dimension ld spans.
int64_t footprint(int64_t rows, int64_t cols, int64_t ld) { return rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows; }

// TF32 on FP32 data, or FP16/BF16 operands: FP32 accumulation on tensor cores (FP64: FP64).
cublasComputeType_t compute_of(const Problem& p) {
    if (p.compute == GEMMKIT_COMPUTE_64F) return CUBLAS_COMPUTE_64F;
    // COMPUTE_32F on FP32 data stays FP32 (no TF32) under the handle's default math, as cublasSgemm.
    return p.compute == GEMMKIT_COMPUTE_32F_FAST_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

// A batch: cublasGemmStridedBatchedEx, or cublasGemmBatchedEx for pointer arrays (64-bit sizes).
cublasStatus_t cublas_gemm_batched(const Cublas& blas, const Problem& p) {
    const cublasOperation_t ta = to_cublas(p.transa), tb = to_cublas(p.transb);
    const double alpha64 = p.alpha, beta64 = p.beta;
    const float alpha32 = static_cast<float>(p.alpha), beta32 = static_cast<float>(p.beta);
    const bool f64 = p.compute == GEMMKIT_COMPUTE_64F;
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32;
    const Batch& b = p.batch;
    if (pointer_arrays(p))
        return cublasGemmBatchedEx_64(blas.get(), ta, tb, p.m, p.n, p.k, alpha, b.a_array, to_cuda(p.a_type), p.lda,
                                      b.b_array, to_cuda(p.b_type), p.ldb, beta, b.c_array, to_cuda(p.c_type), p.ldc,
                                      b.count, compute_of(p), CUBLAS_GEMM_DEFAULT);
    return cublasGemmStridedBatchedEx_64(blas.get(), ta, tb, p.m, p.n, p.k, alpha, p.A, to_cuda(p.a_type), p.lda,
                                         b.stride_a, p.B, to_cuda(p.b_type), p.ldb, b.stride_b, beta, p.C,
                                         to_cuda(p.c_type), p.ldc, b.stride_c, b.count, compute_of(p),
                                         CUBLAS_GEMM_DEFAULT);
}

}  // namespace

bool has_cublas_baseline(const Problem& p) {
    if (all_of_type(p, GEMMKIT_R_32F))
        return p.compute == GEMMKIT_COMPUTE_32F || p.compute == GEMMKIT_COMPUTE_32F_FAST_TF32;
    if (all_of_type(p, GEMMKIT_R_64F)) return p.compute == GEMMKIT_COMPUTE_64F;
    return is_half_problem(p);
}

cublasStatus_t cublas_gemm(const Cublas& blas, const Problem& p) {
    if (!has_cublas_baseline(p)) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (batched(p)) return cublas_gemm_batched(blas, p);
    const cublasOperation_t ta = to_cublas(p.transa), tb = to_cublas(p.transb);
    if (p.compute == GEMMKIT_COMPUTE_64F) {
        const double alpha = p.alpha, beta = p.beta;
        return cublasDgemm_64(blas.get(), ta, tb, p.m, p.n, p.k, &alpha, static_cast<const double*>(p.A), p.lda,
                              static_cast<const double*>(p.B), p.ldb, &beta, static_cast<double*>(p.C), p.ldc);
    }
    const float alpha = static_cast<float>(p.alpha), beta = static_cast<float>(p.beta);
    if (p.a_type == GEMMKIT_R_32F && p.compute == GEMMKIT_COMPUTE_32F)
        return cublasSgemm_64(blas.get(), ta, tb, p.m, p.n, p.k, &alpha, static_cast<const float*>(p.A), p.lda,
                              static_cast<const float*>(p.B), p.ldb, &beta, static_cast<float*>(p.C), p.ldc);
    return cublasGemmEx_64(blas.get(), ta, tb, p.m, p.n, p.k, &alpha, p.A, to_cuda(p.a_type), p.lda, p.B,
                           to_cuda(p.b_type), p.ldb, &beta, p.C, to_cuda(p.c_type), p.ldc, compute_of(p),
                           CUBLAS_GEMM_DEFAULT);
}

void cublas_reference_f64(const Cublas& blas, const Problem& p, verify::Tf32Inputs tf32, double* d_ref,
                          double* d_scale) {
    cudaStream_t stream = nullptr;
    CUBLAS_CHECK(cublasGetStream(blas.get(), &stream));
    const int64_t rows_a = stored_rows_a(p), cols_a = p.transa == GEMMKIT_OP_N ? p.k : p.m;
    const int64_t rows_b = stored_rows_b(p), cols_b = p.transb == GEMMKIT_OP_N ? p.n : p.k;
    const int64_t na = footprint(rows_a, cols_a, p.lda), nb = footprint(rows_b, cols_b, p.ldb);
    const int64_t nc = footprint(p.m, p.n, p.ldc);
    DeviceBuffer<double> a(na), b(nb), c(nc);

    // One pass for the values, one for their magnitudes (the error scale).
    for (bool magnitude : {false, true}) {
        const verify::Widening ab_how{tf32, magnitude}, c_how{verify::Tf32Inputs::exact, magnitude};
        verify::widen(p.A, p.a_type, a.data(), na, ab_how, stream);
        verify::widen(p.B, p.b_type, b.data(), nb, ab_how, stream);
        double* out = magnitude ? d_scale : d_ref;
        const double alpha = magnitude ? std::fabs(p.alpha) : p.alpha;
        const double beta = magnitude ? std::fabs(p.beta) : p.beta;
        if (beta != 0) {
            verify::widen(p.C, p.c_type, c.data(), nc, c_how, stream);
            CUDA_CHECK(cudaMemcpy2DAsync(out, p.m * sizeof(double), c.data(), p.ldc * sizeof(double),
                                         p.m * sizeof(double), p.n, cudaMemcpyDeviceToDevice, stream));
        }
        CUBLAS_CHECK(cublasDgemm_64(blas.get(), to_cublas(p.transa), to_cublas(p.transb), p.m, p.n, p.k, &alpha,
                                    a.data(), p.lda, b.data(), p.ldb, &beta, out, p.m));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace gemmkit::ref
