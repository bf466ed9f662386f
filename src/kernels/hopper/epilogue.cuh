// Writing a warpgroup's 64 x N accumulator tile to C with alpha and beta (register epilogue).
#pragma once

#include "kernels/tensor/types.cuh"

namespace gemmkit::hopper {

// What the epilogue needs of a problem (A and B travel as tensor maps).
template <class TC>
struct OutputArgs {
    int m, n, k;
    TC* C;
    int64_t ldc;
    float alpha, beta;
    bool tma_store;  // step 6: C is written through shared memory and TMA (launch decides)
    // A batch (problem.hpp, Batch; steps 10 and on): its problems, how far C moves a problem
    // (elements), and whether A and B do (1) or every problem reads matrix 0 of their maps (0).
    int batch;
    int64_t stride_c;
    int a_step, b_step;
};

template <class TC>
OutputArgs<TC> make_output_args(const Problem& p) {
    return {static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), static_cast<TC*>(p.C), p.ldc,
            static_cast<float>(p.alpha), static_cast<float>(p.beta), false, static_cast<int>(p.batch.count),
            p.batch.stride_c, p.batch.stride_a != 0, p.batch.stride_b != 0};
}

// Stores the accumulators of wgmma m64nN (fragment layout in ptx/wgmma.cuh) of the warpgroup
// whose tile starts at C(row0, col0) of problem z of the batch; elements outside m x n are skipped.
template <int N, class TC>
__device__ __forceinline__ void store_warpgroup_tile(const float (&d)[N / 2], const OutputArgs<TC>& out, int z,
                                                     int row0, int col0) {
    TC* const cz = out.C + z * out.stride_c;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
    const int row = row0 + 16 * warp + lane / 4, col = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int i = row + 8 * h, jj = col + 8 * j + c;
                if (i < out.m && jj < out.n)
                    tensor::store_scaled(cz, out.ldc, i, jj, d[4 * j + 2 * h + c], out.alpha, out.beta);
            }
        }
    }
}

}  // namespace gemmkit::hopper
