// C = beta * C: the whole GEMM when k == 0 or alpha == 0 (A and B are not read).
// beta == 0 writes zeros without reading C, so NaN in C does not survive.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/launch_common.cuh"

namespace gemmkit {

// Rows along x, columns along y (grid-stride: at most 65535 layers of columns), problems of a
// batch along z (select_batch).
template <class T>
__global__ void scale_c_kernel(GemmArgs<T> args, T beta) {
    select_batch<true>(args);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // rows along the warp: coalesced
    if (i >= args.m) return;
    for (int j = blockIdx.y; j < args.n; j += gridDim.y) {
        T* c = args.C + i + j * args.ldc;
        *c = beta == T(0) ? T(0) : beta * *c;
    }
}

template <class T>
cudaError_t launch_scale_c(const Problem& p, cudaStream_t stream) {
    constexpr int kThreads = 256;
    const dim3 grid(ceil_div(p.m, kThreads), static_cast<unsigned>(std::min<int64_t>(p.n, 65535)));
    scale_c_kernel<T><<<batch_grid(grid, p), kThreads, 0, stream>>>(make_args<T>(p), static_cast<T>(p.beta));
    return cudaGetLastError();
}

}  // namespace gemmkit
