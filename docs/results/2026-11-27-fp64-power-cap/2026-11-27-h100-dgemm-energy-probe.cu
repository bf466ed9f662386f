// Energy and time per GEMM under sustained load: back-to-back calls for S seconds a phase,
// NVML's energy counter around each phase, SM clock sampled. Contenders: cublas, gk:G (gemmkit_dgemm
// with GEMMKIT_TRIAL_GROUP=G). usage: energy_probe M N K SECONDS ROUNDS TA TB contender...
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "gemmkit/gemmkit.h"
typedef int (*InitFn)();
typedef int (*HandleFn)(unsigned, void**);
typedef int (*EnergyFn)(void*, unsigned long long*);
typedef int (*ClockFn)(void*, int, unsigned*);
int main(int argc, char** argv) {
    long m = atol(argv[1]), n = atol(argv[2]), k = atol(argv[3]);
    double secs = atof(argv[4]);
    int rounds = atoi(argv[5]);
    bool ta = argv[6][0] == 'T', tb = argv[7][0] == 'T';
    std::vector<std::string> who(argv + 8, argv + argc);
    void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!h) { printf("no nvml\n"); return 1; }
    auto init = (InitFn)dlsym(h, "nvmlInit_v2");
    auto handle = (HandleFn)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    auto energy = (EnergyFn)dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
    auto clock = (ClockFn)dlsym(h, "nvmlDeviceGetClockInfo");
    init();
    void* dev; handle(0, &dev);
    long lda = ta ? k : m, ldb = tb ? n : k;
    double *A, *B, *C;
    cudaMalloc(&A, sizeof(double) * m * k); cudaMalloc(&B, sizeof(double) * k * n); cudaMalloc(&C, sizeof(double) * m * n);
    std::vector<double> hA(m * k), hB(k * n);
    for (auto& x : hA) x = rand() / (double)RAND_MAX - 0.5;
    for (auto& x : hB) x = rand() / (double)RAND_MAX - 0.5;
    cudaMemcpy(A, hA.data(), 8 * hA.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(B, hB.data(), 8 * hB.size(), cudaMemcpyHostToDevice);
    cublasHandle_t blas; cublasCreate(&blas);
    const double one = 1, zero = 0;
    auto call = [&](const std::string& w) {
        if (w == "cublas") cublasDgemm(blas, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &one, A, lda, B, ldb, &zero, C, m);
        else gemmkit_dgemm(0, ta ? GEMMKIT_OP_T : GEMMKIT_OP_N, tb ? GEMMKIT_OP_T : GEMMKIT_OP_N, m, n, k, &one, A, lda, B, ldb, &zero, C, m);
    };
    printf("contender round calls ms_per_call J_per_call avg_W avg_MHz\n");
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < who.size(); ++i) {
            const std::string w = who[r % 2 == 0 ? i : who.size() - 1 - i];
            if (w.rfind("g", 0) == 0) setenv("GEMMKIT_TRIAL_BAND", w.c_str() + 1, 1); else unsetenv("GEMMKIT_TRIAL_BAND");
            for (int j = 0; j < 3; ++j) call(w);
            cudaDeviceSynchronize();
            unsigned long long e0, e1;
            energy(dev, &e0);
            auto t0 = std::chrono::steady_clock::now();
            long calls = 0; double mhz = 0; int samples = 0; double el = 0;
            while (true) {
                for (int j = 0; j < 8; ++j) call(w);
                calls += 8;
                unsigned c = 0; clock(dev, 1, &c); mhz += c; ++samples;
                cudaDeviceSynchronize();
                el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                if (el >= secs) break;
            }
            energy(dev, &e1);
            double J = (e1 - e0) / 1e3;
            printf("%s %d %ld %.4f %.4f %.1f %.0f\n", w.c_str(), r, calls, el * 1e3 / calls, J / calls, J / el, mhz / samples);
            fflush(stdout);
        }
    return 0;
}
