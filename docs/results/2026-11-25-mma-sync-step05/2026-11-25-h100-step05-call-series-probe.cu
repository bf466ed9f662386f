// Probe: the time of every call of one gemmkit kernel at one shape, in order, alone and
// interleaved with cuBLAS (A, B, B, A, ... as gemmkit bench does), L2 flushed before each call,
// with the SM clock and the throttle reasons NVML reports right after each call. To see whether a
// kernel's bimodal times follow the calls before it or the clock.
// Build: nvcc -O2 -arch=sm_90a probe.cu -Iinclude -Lbuild -lgemmkit -lcublas -ldl -o probe
// (NVML is opened at run time: the three calls used are declared here, as nvml.h declares them.)
// Run:   probe KERNEL N CALLS   (BF16, NN, C in BF16, alpha 1, beta 0)
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

typedef struct nvmlDevice_st* nvmlDevice_t;
static int (*nvmlInit)();
static int (*nvmlDeviceGetHandleByIndex)(unsigned, nvmlDevice_t*);
static int (*nvmlDeviceGetClockInfo)(nvmlDevice_t, int, unsigned*);  // type 1: NVML_CLOCK_SM
static int (*nvmlDeviceGetCurrentClocksThrottleReasons)(nvmlDevice_t, unsigned long long*);

static void open_nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) { printf("no NVML\n"); exit(1); }
    nvmlInit = (int (*)())dlsym(lib, "nvmlInit_v2");
    nvmlDeviceGetHandleByIndex = (int (*)(unsigned, nvmlDevice_t*))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    nvmlDeviceGetClockInfo = (int (*)(nvmlDevice_t, int, unsigned*))dlsym(lib, "nvmlDeviceGetClockInfo");
    nvmlDeviceGetCurrentClocksThrottleReasons =
        (int (*)(nvmlDevice_t, unsigned long long*))dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
}

#include "gemmkit/gemmkit.h"

__global__ void fill(__nv_bfloat16* x, size_t count, unsigned seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
        unsigned h = unsigned(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        x[i] = __float2bfloat16((h % 2001) / 1000.0f - 1.0f);
    }
}

int main(int argc, char** argv) {
    const char* kernel = argc > 1 ? argv[1] : "bf16.05_tuned_256x128x32_s4";
    const int n = argc > 2 ? atoi(argv[2]) : 8192, calls = argc > 3 ? atoi(argv[3]) : 40;
    const size_t count = size_t(n) * n, flush_bytes = 256u << 20;
    __nv_bfloat16 *A, *B, *C;
    void* flush;
    cudaMalloc(&A, count * 2); cudaMalloc(&B, count * 2); cudaMalloc(&C, count * 2); cudaMalloc(&flush, flush_bytes);
    fill<<<1024, 256>>>(A, count, 1); fill<<<1024, 256>>>(B, count, 2);
    cublasHandle_t handle; cublasCreate(&handle);
    open_nvml(); nvmlInit(); nvmlDevice_t dev; nvmlDeviceGetHandleByIndex(0, &dev);
    const float one = 1.0f, zero = 0.0f;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    auto call = [&](bool ours) {
        cudaMemsetAsync(flush, 0, flush_bytes);
        cudaEventRecord(e0);
        if (ours)
            gemmkit_gemm_ex(0, GEMMKIT_OP_N, GEMMKIT_OP_N, n, n, n, &one, A, GEMMKIT_R_16BF, n, B, GEMMKIT_R_16BF, n, &zero, C,
                            GEMMKIT_R_16BF, n, GEMMKIT_COMPUTE_32F, kernel);
        else
            cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, CUDA_R_16BF, n, B, CUDA_R_16BF, n, &zero, C,
                         CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        unsigned clock = 0; unsigned long long reasons = 0;
        nvmlDeviceGetClockInfo(dev, 1, &clock);
        nvmlDeviceGetCurrentClocksThrottleReasons(dev, &reasons);
        return std::make_pair(ms, std::make_pair(clock, reasons));
    };
    for (int w = 0; w < 3; ++w) { call(true); call(false); }
    printf("# %s %d^3: alone\n", kernel, n);
    for (int i = 0; i < calls; ++i) {
        auto r = call(true);
        printf("alone %d ours %.4f ms sm %u MHz reasons 0x%llx\n", i, r.first, r.second.first, r.second.second);
    }
    printf("# interleaved A B B A\n");
    for (int i = 0; i < calls; ++i) {
        const bool ours_first = i % 2 == 0;
        for (int j = 0; j < 2; ++j) {
            const bool ours = (j == 0) == ours_first;
            auto r = call(ours);
            printf("mixed %d %s %.4f ms sm %u MHz reasons 0x%llx\n", i, ours ? "ours" : "cublas", r.first, r.second.first,
                   r.second.second);
        }
    }
    return 0;
}
