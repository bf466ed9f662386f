// Probe: peak mma.sync m16n8k16 bf16 rate on this GPU, registers only.
// With --tf32 (added 2026-11-25, docs/results/2026-11-25-mma-sync-step05/2026-11-25-h100-tf32-mma-peak-probe.txt): the same
// loop on mma.sync m16n8k8 TF32, whose operands take the same registers.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <cstdint>
template <int kChains, bool kTf32>
__global__ void hmma_loop(float* out, int iters) {
    float acc[kChains][4] = {};
    uint32_t a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = threadIdx.x * 7 + i;
    b[0] = threadIdx.x; b[1] = threadIdx.x * 3;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int c = 0; c < kChains; ++c)
            if constexpr (kTf32)
                asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
            else
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    float s = 0;
    for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int kChains, bool kTf32>
void run(int warps_per_sm) {
    float* out; cudaMalloc(&out, 132 * 8 * 1024 * 4);
    int threads = 32 * warps_per_sm, iters = 4096;
    if (threads > 1024) threads = 1024;
    int blocks = 132 * (32 * warps_per_sm / threads);
    hmma_loop<kChains, kTf32><<<blocks, threads>>>(out, 16);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    hmma_loop<kChains, kTf32><<<blocks, threads>>>(out, iters);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    double flop = 2.0 * 16 * 8 * (kTf32 ? 8 : 16) * kChains * (double)iters * blocks * threads / 32;
    printf("chains %2d warps/SM %2d: %.1f TFLOP/s (%s)\n", kChains, warps_per_sm, flop / ms / 1e9, cudaGetErrorString(cudaGetLastError()));
    cudaFree(out);
}
int main(int argc, char** argv) {
    if (argc > 1 && !strcmp(argv[1], "--tf32"))
        for (int w : {4, 8, 16, 32}) { run<8, true>(w); run<32, true>(w); }
    else
        for (int w : {4, 8, 16, 32}) { run<8, false>(w); run<32, false>(w); }
}
