// A batch of GEMMs in one call: 8 problems C_z = A_z * W, BF16 in, BF16 out, FP32 accumulation,
// with one W for the whole batch (stride 0), as cublasGemmStridedBatchedEx does. Column-major.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "gemmkit/gemmkit.h"

#define CUDA_OK(expr) do { cudaError_t e_ = (expr); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_)); return 1; } } while (0)

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "batched_example: no CUDA device found; gemmkit needs an NVIDIA GPU.\n");
        return 1;
    }
    // Each A_z is m x k, W is k x n, each C_z is m x n; the A_z and C_z lie one after another.
    const int64_t batch = 8, m = 256, n = 128, k = 64;
    const int64_t stride_a = m * k, stride_c = m * n;
    std::vector<__nv_bfloat16> A(batch * stride_a), W(k * n), C(batch * stride_c);
    for (size_t i = 0; i < A.size(); ++i) A[i] = __float2bfloat16(float(i % 7) - 3.0f);  // exact in BF16
    for (size_t i = 0; i < W.size(); ++i) W[i] = __float2bfloat16(float(i % 5) - 2.0f);

    __nv_bfloat16 *dA, *dW, *dC;
    CUDA_OK(cudaMalloc(&dA, A.size() * sizeof(A[0])));
    CUDA_OK(cudaMalloc(&dW, W.size() * sizeof(W[0])));
    CUDA_OK(cudaMalloc(&dC, C.size() * sizeof(C[0])));
    CUDA_OK(cudaMemcpy(dA, A.data(), A.size() * sizeof(A[0]), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dW, W.data(), W.size() * sizeof(W[0]), cudaMemcpyHostToDevice));

    const float alpha = 1.0f, beta = 0.0f;  // FP32 scalars: the compute type
    gemmkit_status s = gemmkit_gemm_strided_batched_ex(
        /*stream=*/0, GEMMKIT_OP_N, GEMMKIT_OP_N, m, n, k, &alpha,
        dA, GEMMKIT_R_16BF, /*lda=*/m, stride_a,
        dW, GEMMKIT_R_16BF, /*ldb=*/k, /*stride_b=*/0,  // the same W for every problem
        &beta, dC, GEMMKIT_R_16BF, /*ldc=*/m, stride_c, batch, GEMMKIT_COMPUTE_32F, /*kernel=*/nullptr);
    if (s != GEMMKIT_SUCCESS) {
        std::fprintf(stderr, "gemmkit_gemm_strided_batched_ex: %s: %s\n", gemmkit_status_string(s),
                     gemmkit_last_error());
        return 1;
    }
    CUDA_OK(cudaMemcpy(C.data(), dC, C.size() * sizeof(C[0]), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dW));
    CUDA_OK(cudaFree(dC));

    // Element (i, j) of problem z: C[z * stride_c + i + j * m] = sum_p A_z(i, p) W(p, j).
    const int64_t z = 5, i = 17, j = 42;
    double want = 0.0;
    for (int64_t p = 0; p < k; ++p)
        want += double(__bfloat162float(A[z * stride_a + i + p * m])) * __bfloat162float(W[p + j * k]);
    const float got = __bfloat162float(C[z * stride_c + i + j * m]);
    std::printf("C_%d(%d, %d) = %g, host dot product %g\n", int(z), int(i), int(j), got, want);
    if (std::fabs(got - want) > 1e-2 * (1.0 + std::fabs(want))) {  // the result is rounded to BF16
        std::fprintf(stderr, "batched_example: mismatch\n");
        return 1;
    }
    return 0;
}
