// DFMA ceiling probe, second take: which operand pattern limits the FP64 pipe?
// Each variant runs one wave of 1 block x 256 threads per SM; lane-ops per cycle per SM by clock64.
#include <cstdio>
#include <cuda_runtime.h>
enum Kind { kOuter8x8, kSameSrc, kConstSrc, kDadd, kDmul, kFfma8x8, kOuter8x8Swap };
template <Kind K>
__global__ void probe(const double* in, double* out, int iters, long long* cyc) {
    double a[8], b[8], acc[8][8];
    float af[8], bf[8], accf[8][8];
#pragma unroll
    for (int r = 0; r < 8; ++r) { a[r] = in[(threadIdx.x + r) & 63]; b[r] = in[(threadIdx.x * 3 + r) & 63]; af[r] = (float)a[r]; bf[r] = (float)b[r]; }
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) { acc[r][c] = in[(r * 8 + c + threadIdx.x) & 63]; accf[r][c] = (float)acc[r][c]; }
    __syncthreads();
    long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c) {
                if constexpr (K == kOuter8x8) acc[r][c] = fma(a[r], b[c], acc[r][c]);
                if constexpr (K == kOuter8x8Swap) acc[c][r] = fma(a[c], b[r], acc[c][r]);
                if constexpr (K == kSameSrc) acc[r][c] = fma(a[r], a[r], acc[r][c]);
                if constexpr (K == kConstSrc) acc[r][c] = fma(a[0], b[0], acc[r][c]);
                if constexpr (K == kDadd) acc[r][c] = acc[r][c] + b[c];
                if constexpr (K == kDmul) acc[r][c] = acc[r][c] * b[c];
                if constexpr (K == kFfma8x8) accf[r][c] = fmaf(af[r], bf[c], accf[r][c]);
            }
    }
    __syncthreads();
    long long t1 = clock64();
    double s = 0;
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) s += (K == kFfma8x8) ? (double)accf[r][c] : acc[r][c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
}
template <Kind K>
void run(const char* name, int threads, double lanes_peak) {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int blocks = sms, iters = 20000;
    double h[64]; for (int i = 0; i < 64; ++i) h[i] = 0.999 + 1e-4 * i;   // nonzero, bounded growth under DMUL
    double *in, *out; long long* cyc;
    cudaMalloc(&in, 64 * 8); cudaMemcpy(in, h, 64 * 8, cudaMemcpyHostToDevice);
    cudaMalloc(&out, (size_t)blocks * threads * 8); cudaMalloc(&cyc, blocks * 8);
    probe<K><<<blocks, threads>>>(in, out, 10, cyc);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    probe<K><<<blocks, threads>>>(in, out, iters, cyc);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    long long c0; cudaMemcpy(&c0, cyc, 8, cudaMemcpyDeviceToHost);
    double ops = (double)iters * 64 * threads;  // lane-ops per SM
    printf("%-14s threads %4d: %6.1f lane-ops/cycle/SM (of %3.0f, %5.1f%%), clock %.0f MHz [%s]\n", name, threads,
           ops / c0, lanes_peak, 100.0 * ops / c0 / lanes_peak, c0 / (ms * 1e-3) / 1e6, cudaGetErrorString(cudaGetLastError()));
}
int main() {
    for (int t : {256, 512}) {
        run<kOuter8x8>("dfma 8x8", t, 64);
        run<kOuter8x8Swap>("dfma 8x8 swap", t, 64);
        run<kSameSrc>("dfma a*a", t, 64);
        run<kConstSrc>("dfma const", t, 64);
        run<kDadd>("dadd", t, 64);
        run<kDmul>("dmul", t, 64);
        run<kFfma8x8>("ffma 8x8", t, 128);
    }
}
