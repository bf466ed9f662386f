// DFMA throughput probe: an 8 x TN outer product from registers, repeated; cycles by clock64.
#include <cstdio>
#include <cuda_runtime.h>
template <int TM, int TN>
__global__ void probe(const double* in, double* out, int iters, long long* cyc) {
    double a[TM], b[TN], acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r) a[r] = in[(threadIdx.x + r) & 63];
#pragma unroll
    for (int c = 0; c < TN; ++c) b[c] = in[(threadIdx.x * 3 + c) & 63];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = 0.0;
    __syncthreads();
    long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int r = 0; r < TM; ++r)
#pragma unroll
            for (int c = 0; c < TN; ++c) acc[r][c] = fma(a[r], b[c], acc[r][c]);
    }
    __syncthreads();
    long long t1 = clock64();
    double s = 0;
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) s += acc[r][c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
}
template <int TM, int TN>
void run(int threads, int blocks_per_sm) {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int blocks = sms * blocks_per_sm, iters = 20000;
    double *in, *out; long long* cyc;
    cudaMalloc(&in, 64 * 8); cudaMemset(in, 0, 64 * 8);
    cudaMalloc(&out, (size_t)blocks * threads * 8); cudaMalloc(&cyc, blocks * 8);
    probe<TM, TN><<<blocks, threads>>>(in, out, 10, cyc);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    probe<TM, TN><<<blocks, threads>>>(in, out, iters, cyc);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    long long c0; cudaMemcpy(&c0, cyc, 8, cudaMemcpyDeviceToHost);
    double dfma_per_sm = (double)iters * TM * TN * threads * blocks_per_sm;  // lane-DFMAs per SM
    printf("%dx%d threads %d blocks/SM %d: %.1f lane-DFMA/cycle/SM (of 64) by clock64, %.2f TFLOP/s, clock %.0f MHz [%s]\n",
           TM, TN, threads, blocks_per_sm, dfma_per_sm / c0, 2.0 * dfma_per_sm * sms / (ms * 1e-3) / 1e12,
           c0 / (ms * 1e-3) / 1e6, cudaGetErrorString(cudaGetLastError()));
    cudaFree(in); cudaFree(out); cudaFree(cyc);
}
int main() {
    run<8, 8>(256, 1);
    run<8, 8>(128, 1);
    run<8, 8>(128, 2);
    run<8, 8>(384, 1);
    run<8, 4>(512, 1);
    run<8, 4>(256, 1);
    run<4, 4>(512, 1);
    run<4, 4>(1024, 1);
    run<8, 8>(256, 1);
}
