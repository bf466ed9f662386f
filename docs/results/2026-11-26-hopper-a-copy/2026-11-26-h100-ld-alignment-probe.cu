// Probe (H100, 2026-11-26): FP16 NN GEMM time of f16.14_sized_tiles and cuBLAS against lda/ldb/ldc alignment. Data: constant 0x3c3c halves.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#include "gemmkit/gemmkit.h"
int main(int argc, char** argv) {
    struct Case { int64_t s, la, lb, lc; };
    std::vector<Case> cases;
    for (int i = 1; i + 3 < argc; i += 4) cases.push_back({atoll(argv[i]), atoll(argv[i+1]), atoll(argv[i+2]), atoll(argv[i+3])});
    cublasHandle_t h; cublasCreate(&h);
    void* flush; size_t fb = 256u << 20; cudaMalloc(&flush, fb);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    for (auto c : cases) {
        int64_t s = c.s;
        __half *A, *B, *C;
        cudaMalloc(&A, c.la * s * 2); cudaMalloc(&B, c.lb * s * 2); cudaMalloc(&C, c.lc * s * 2);
        cudaMemset(A, 0x3c, c.la * s * 2); cudaMemset(B, 0x3c, c.lb * s * 2);
        float one = 1, zero = 0; __half h1 = __float2half(1.f), h0 = __float2half(0.f);
        std::vector<float> tg, tc;
        for (int it = 0; it < 24; ++it) {
            for (int who : {it % 2, 1 - it % 2}) {
                cudaMemsetAsync(flush, it, fb);
                cudaEventRecord(e0);
                if (who == 0) {
                    gemmkit_status st = gemmkit_gemm_ex(0, GEMMKIT_OP_N, GEMMKIT_OP_N, s, s, s, &one, A, GEMMKIT_R_16F, c.la, B, GEMMKIT_R_16F, c.lb, &zero, C, GEMMKIT_R_16F, c.lc, GEMMKIT_COMPUTE_32F, "f16.14_sized_tiles");
                    if (st) { printf("gemmkit: %s %s\n", gemmkit_status_string(st), gemmkit_last_error()); return 1; }
                } else {
                    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &one, A, CUDA_R_16F, c.la, B, CUDA_R_16F, c.lb, &zero, C, CUDA_R_16F, c.lc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
                }
                cudaEventRecord(e1); cudaEventSynchronize(e1);
                float ms; cudaEventElapsedTime(&ms, e0, e1);
                if (it >= 4) (who == 0 ? tg : tc).push_back(ms);
            }
        }
        std::sort(tg.begin(), tg.end()); std::sort(tc.begin(), tc.end());
        double g = tg[tg.size()/2], cb = tc[tc.size()/2], fl = 2.0 * s * s * s;
        printf("s %5lld lda %5lld ldb %5lld ldc %5lld  gemmkit %.4f ms %6.1f TF/s  cublas %.4f ms %6.1f TF/s  %5.1f%%\n", (long long)s, (long long)c.la, (long long)c.lb, (long long)c.lc, g, fl / g / 1e9, cb, fl / cb / 1e9, 100 * cb / g);
        cudaFree(A); cudaFree(B); cudaFree(C);
    }
    return 0;
}
