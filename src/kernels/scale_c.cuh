// C = beta * C: the whole GEMM when k == 0 or alpha == 0 (A and B are not read).
// beta == 0 writes zeros without reading C, so NaN in C does not survive.
#pragma once

#include <cstdint>

#include "kernels/launch_common.cuh"

namespace gemmkit {

template <class T>
__global__ void scale_c_kernel(T* C, int64_t ldc, int m, int n, T beta) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // rows along the warp: coalesced
    const int j = blockIdx.y;
    if (i >= m) return;
    T* c = C + i + j * ldc;
    *c = beta == T(0) ? T(0) : beta * *c;
}

template <class T>
cudaError_t launch_scale_c(const Problem& p, cudaStream_t stream) {
    constexpr int kThreads = 256;
    scale_c_kernel<T><<<dim3(ceil_div(p.m, kThreads), static_cast<unsigned>(p.n)), kThreads, 0, stream>>>(
        static_cast<T*>(p.C), p.ldc, static_cast<int>(p.m), static_cast<int>(p.n), static_cast<T>(p.beta));
    return cudaGetLastError();
}

}  // namespace gemmkit
