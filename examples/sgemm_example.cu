// The smallest complete gemmkit program: C = A * B, column-major, as with cuBLAS.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "gemmkit/gemmkit.h"

// Any failure ends the program with a message and exit status 1.
#define CUDA_OK(expr) do { cudaError_t e_ = (expr); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_)); return 1; } } while (0)

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "sgemm_example: no CUDA device found; gemmkit needs an NVIDIA GPU.\n");
        return 1;
    }
    // A is m x k, B is k x n, C is m x n; each leading dimension is its matrix's row count.
    const int64_t m = 300, n = 200, k = 100;
    std::vector<float> A(m * k), B(k * n), C(m * n);
    for (size_t i = 0; i < A.size(); ++i) A[i] = float(i % 7) - 3.0f;         // small values whose
    for (size_t i = 0; i < B.size(); ++i) B[i] = float(i % 5) * 0.5f - 1.0f;  // sums are exact

    float *dA, *dB, *dC;
    CUDA_OK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));

    const float alpha = 1.0f, beta = 0.0f;  // host pointers, as in cuBLAS; beta = 0: C is not read
    gemmkit_status s = gemmkit_sgemm(/*stream=*/0, GEMMKIT_OP_N, GEMMKIT_OP_N, m, n, k,
                                     &alpha, dA, /*lda=*/m, dB, /*ldb=*/k, &beta, dC, /*ldc=*/m);
    if (s != GEMMKIT_SUCCESS) {
        std::fprintf(stderr, "gemmkit_sgemm: %s: %s\n", gemmkit_status_string(s), gemmkit_last_error());
        return 1;
    }
    // A plain cudaMemcpy waits for the GEMM: both are on the legacy default stream.
    CUDA_OK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dB));
    CUDA_OK(cudaFree(dC));

    // Element (i, j) of a column-major matrix with leading dimension ld is at [i + j * ld].
    const int64_t i = 17, j = 42;
    double want = 0.0;
    for (int64_t p = 0; p < k; ++p) want += double(A[i + p * m]) * B[p + j * k];
    const float got = C[i + j * m];
    std::printf("C(%d, %d) = %g, host dot product %g\n", int(i), int(j), got, want);
    if (std::fabs(got - want) > 1e-4 * (1.0 + std::fabs(want))) {
        std::fprintf(stderr, "sgemm_example: mismatch\n");
        return 1;
    }
    return 0;
}
