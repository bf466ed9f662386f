// Links the installed libgemmkit through find_package(gemmkit): checks that the library it
// runs against is the version its header names, then, where a GPU is present, runs one small
// row-major SGEMM through gemmkit.hpp and checks it on the CPU. Exit 0 means it worked (or
// that there is no GPU to try, which it says).
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.h"
#include "gemmkit/gemmkit.hpp"

int main() {
    std::printf("gemmkit header %d.%d.%d, library %d\n", GEMMKIT_VERSION_MAJOR, GEMMKIT_VERSION_MINOR,
                GEMMKIT_VERSION_PATCH, gemmkit_version());
    if (gemmkit_version() != GEMMKIT_VERSION) {
        std::printf("the library (%d) is not the version of the header (%d)\n", gemmkit_version(), GEMMKIT_VERSION);
        return 1;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        cudaGetLastError();
        std::printf("no CUDA device: the GEMM is not tried\n");
        return 0;
    }

    const int M = 33, N = 17, K = 9;
    std::vector<float> a(M * K), b(K * N), c(M * N);
    for (int i = 0; i < M * K; ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
    for (int i = 0; i < K * N; ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
    try {
        gemmkit::DeviceBuffer<float> dA(a.size()), dB(b.size()), dC(c.size());
        dA.copy_from_host(a.data());
        dB.copy_from_host(b.data());
        gemmkit::gemm_row_major(nullptr, false, false, M, N, K, 1.0f, dA.data(), K, dB.data(), N, 0.0f, dC.data(), N);
        dC.copy_to_host(c.data());
    } catch (const gemmkit::Error& e) {
        std::printf("gemmkit failed: %s\n", e.what());
        return 1;
    }
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float ref = 0.0f;
            for (int p = 0; p < K; ++p) ref += a[i * K + p] * b[p * N + j];
            if (std::fabs(c[i * N + j] - ref) > 1e-4f) {
                std::printf("C[%d][%d] = %g, expected %g\n", i, j, c[i * N + j], ref);
                return 1;
            }
        }
    std::printf("row-major %dx%dx%d SGEMM matches the CPU\n", M, N, K);
    return 0;
}
