// Probe: peak mma.sync m16n8k8 TF32 rate on this GPU, registers only (the BF16 probe of
// 2026-11-24, docs/results/2026-11-24-h100-hmma-peak-probe.cu, with the TF32 instruction).
#include <cstdio>
#include <cuda_runtime.h>
#include <cstdint>
template <int kChains>
__global__ void hmma_loop(float* out, int iters) {
    float acc[kChains][4] = {};
    uint32_t a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = threadIdx.x * 7 + i;
    b[0] = threadIdx.x; b[1] = threadIdx.x * 3;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int c = 0; c < kChains; ++c)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                         : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    float s = 0;
    for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int kChains>
void run(int warps_per_sm) {
    float* out; cudaMalloc(&out, 132 * 8 * 1024 * 4);
    int threads = 32 * warps_per_sm, iters = 4096;
    if (threads > 1024) threads = 1024;
    int blocks = 132 * (32 * warps_per_sm / threads);
    hmma_loop<kChains><<<blocks, threads>>>(out, 16);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    hmma_loop<kChains><<<blocks, threads>>>(out, iters);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    double flop = 2.0 * 16 * 8 * 8 * kChains * (double)iters * blocks * threads / 32;
    printf("chains %2d warps/SM %2d: %.1f TFLOP/s (%s)\n", kChains, warps_per_sm, flop / ms / 1e9, cudaGetErrorString(cudaGetLastError()));
    cudaFree(out);
}
int main() {
    for (int w : {4, 8, 16, 32}) { run<8>(w); run<32>(w); }
}
