// Checks the LeetGPU entry point (leetgpu_solve.cu) the way the judge would, plus every element:
// random row-major A (M x N) and B (N x K), C = A * B on the device, compared with a
// double-precision host loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <cuda_runtime.h>

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K);

// Inside check(): a CUDA failure prints the call and fails the size.
#define CUDA_OK(expr) do { cudaError_t e_ = (expr); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_)); return false; } } while (0)

namespace {

// One size; prints one line and returns whether every element is within the bound.
bool check(int M, int N, int K, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> A(size_t(M) * N), B(size_t(N) * K), C(size_t(M) * K);
    for (float& x : A) x = dist(rng);
    for (float& x : B) x = dist(rng);

    float *dA, *dB, *dC;
    CUDA_OK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CUDA_OK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dC, 0xFF, C.size() * sizeof(float)));  // all-ones bits are NaN: unwritten elements fail
    solve(dA, dB, dC, M, N, K);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dB));
    CUDA_OK(cudaFree(dC));

    // FP32 rounding grows with the length of the sum; bound each element by 1e-5 * sqrt(N)
    // times sum |a| |b| (the size of the terms, not of their possibly cancelling sum).
    int64_t bad = 0;
    double worst = 0.0;
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < K; ++j) {
            double ref = 0.0, scale = 0.0;
            for (int p = 0; p < N; ++p) {
                const double t = double(A[size_t(i) * N + p]) * B[size_t(p) * K + j];
                ref += t;
                scale += std::fabs(t);
            }
            const double err = std::fabs(C[size_t(i) * K + j] - ref);
            const double bound = 1e-5 * std::sqrt(double(N)) * scale + 1e-30;
            if (!(err <= bound)) {  // NaN fails too
                if (bad == 0)
                    std::fprintf(stderr, "  C[%d][%d] = %g, expected %.9g\n", i, j, C[size_t(i) * K + j], ref);
                ++bad;
            }
            worst = std::max(worst, std::isnan(err) ? INFINITY : err / bound);
        }
    }
    std::printf("M=%-4d N=%-4d K=%-4d  worst error %.3g of the bound  %s\n", M, N, K, worst, bad ? "FAIL" : "ok");
    if (bad) std::fprintf(stderr, "  %lld of %lld elements out of bound\n", (long long)bad, (long long)C.size());
    return bad == 0;
}

}  // namespace

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "leetgpu_main: no CUDA device found; this check needs an NVIDIA GPU.\n");
        return 1;
    }
    const uint64_t seed = 2024;
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);

    // Odd sizes smaller than a tile, a tile-aligned one, and the degenerate 1 x 1 x 1.
    const int sizes[][3] = {{7, 33, 129}, {256, 128, 64}, {1, 1, 1}, {129, 1, 33}};
    bool pass = true;
    for (const auto& s : sizes) pass = check(s[0], s[1], s[2], rng) && pass;
    std::printf("%s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
}
