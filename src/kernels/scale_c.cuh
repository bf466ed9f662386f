// C = beta * C (then the fused epilogue): the whole GEMM when k == 0 or alpha == 0 (A and B are
// not read).
// beta == 0 writes zeros without reading C, so NaN in C does not survive.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/launch_common.cuh"

namespace gemmkit {

// Rows along x, columns along y (grid-stride: at most 65535 layers of columns), problems of a
// batch along z (select_batch). Scaled in ScalarOf<T> (FP32 for 16-bit C, as the GEMMs are),
// then through the fused epilogue if the launch has one.
template <class T>
__global__ void scale_c_kernel(GemmArgs<T> args) {
    using S = ScalarOf<T>;
    select_batch<true>(args);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // rows along the warp: coalesced
    if (i >= args.m) return;
    const auto epi = args.epilogue();  // once, not a value (docs/epilogues.md#select-late)
    for (int j = blockIdx.y; j < args.n; j += gridDim.y) {
        T* c = args.C + i + static_cast<int64_t>(j) * args.ldc;
        S v = args.beta == S(0) ? S(0) : args.beta * widen<S>(*c);
        if (args.epi.active()) v = epilogue_value(epi, i, j, args.m, args.n, v);
        *c = narrow<T>(v);
    }
}

template <class T>
cudaError_t launch_scale_c(const Problem& p, cudaStream_t stream) {
    constexpr int kThreads = 256;
    const dim3 grid(ceil_div(p.m, kThreads), static_cast<unsigned>(std::min<int64_t>(p.n, 65535)));
    scale_c_kernel<T><<<batch_grid(grid, p), kThreads, 0, stream>>>(make_args<T>(p));
    return cudaGetLastError();
}

}  // namespace gemmkit
