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

// Elements a column-major matrix with `rows` x `cols` and leading dimension ld spans.
int64_t footprint(int64_t rows, int64_t cols, int64_t ld) { return rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows; }
}  // namespace

cublasStatus_t cublas_gemm(const Cublas& blas, const Problem& p) {
    const bool f32 = p.a_type == GEMMKIT_R_32F && p.b_type == GEMMKIT_R_32F && p.c_type == GEMMKIT_R_32F;
    if (!f32 || p.compute != GEMMKIT_COMPUTE_32F) return CUBLAS_STATUS_NOT_SUPPORTED;
    const float alpha = static_cast<float>(p.alpha), beta = static_cast<float>(p.beta);
    return cublasSgemm_64(blas.get(), to_cublas(p.transa), to_cublas(p.transb), p.m, p.n, p.k, &alpha,
                          static_cast<const float*>(p.A), p.lda, static_cast<const float*>(p.B), p.ldb, &beta,
                          static_cast<float*>(p.C), p.ldc);
}

void cublas_reference_f64(const Cublas& blas, const Problem& p, double* d_ref, double* d_scale) {
    cudaStream_t stream = nullptr;
    CUBLAS_CHECK(cublasGetStream(blas.get(), &stream));
    const int64_t rows_a = stored_rows_a(p), cols_a = p.transa == GEMMKIT_OP_N ? p.k : p.m;
    const int64_t rows_b = stored_rows_b(p), cols_b = p.transb == GEMMKIT_OP_N ? p.n : p.k;
    const int64_t na = footprint(rows_a, cols_a, p.lda), nb = footprint(rows_b, cols_b, p.ldb);
    const int64_t nc = footprint(p.m, p.n, p.ldc);
    DeviceBuffer<double> a(na), b(nb), c(nc);

    // One pass for the values, one for their magnitudes (the error scale).
    for (bool magnitude : {false, true}) {
        const auto widen_fn = magnitude ? verify::widen_abs : verify::widen;
        widen_fn(static_cast<const float*>(p.A), a.data(), na, stream);
        widen_fn(static_cast<const float*>(p.B), b.data(), nb, stream);
        double* out = magnitude ? d_scale : d_ref;
        const double alpha = magnitude ? std::fabs(p.alpha) : p.alpha;
        const double beta = magnitude ? std::fabs(p.beta) : p.beta;
        if (beta != 0) {
            widen_fn(static_cast<const float*>(p.C), c.data(), nc, stream);
            CUDA_CHECK(cudaMemcpy2DAsync(out, p.m * sizeof(double), c.data(), p.ldc * sizeof(double),
                                         p.m * sizeof(double), p.n, cudaMemcpyDeviceToDevice, stream));
        }
        CUBLAS_CHECK(cublasDgemm_64(blas.get(), to_cublas(p.transa), to_cublas(p.transb), p.m, p.n, p.k, &alpha,
                                    a.data(), p.lda, b.data(), p.ldb, &beta, out, p.m));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace gemmkit::ref
