// sgemm.03_smem_tiling — 32x32 tiles of A and B staged in shared memory.
//
// Changed from 02: the block first copies a 32x32 slab of op(A) and of op(B) into shared
// memory (coalesced, whatever the ops), then every thread reads its 32 products from there.
// Bottleneck it removes: each global element is now loaded once per block instead of once
// per thread: 32x fewer global loads, about 8 FLOP per byte of global traffic.
// What remains: still 2 shared loads per FMA, so the shared-memory pipe is the limit.
// Preconditions: none. Full speed for all four ops (the slab loader follows the layout).
// Measured: docs/ladder/fp32.md#step-03.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct SmemTilingCfg {
    static constexpr int BM = 32, BN = 32, BK = 32;
    static constexpr int kThreads = BM * BN;  // one thread per C element of the tile
};

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(SmemTilingCfg::kThreads) smem_tiling_kernel(GemmArgs<float> g) {
    using Cfg = SmemTilingCfg;
    __shared__ float sA[Cfg::BK][Cfg::BM];  // op(A) slab, k-major: sA[p][i]
    __shared__ float sB[Cfg::BK][Cfg::BN];  // op(B) slab, k-major: sB[p][j]

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    const int ti = threadIdx.x, tj = threadIdx.y;  // a warp spans 32 rows: sA reads conflict-free, sB broadcast
    float acc = 0.0f;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        load_slab<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA>(&sA[0][0], g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda,
                                                            g.m - i0, g.k - p0);
        load_slab<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB>(&sB[0][0], g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb,
                                                           g.n - j0, g.k - p0);
        __syncthreads();  // slab complete before anyone reads it
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) acc += sA[p][ti] * sB[p][tj];
        __syncthreads();  // everyone done before the next slab overwrites it
    }
    const int i = i0 + ti, j = j0 + tj;
    if (i < g.m && j < g.n) store_c(g, i, j, acc);
}

inline cudaError_t launch_smem_tiling(const Problem& p, cudaStream_t stream) {
    using Cfg = SmemTilingCfg;
    return launch_tiles<float>(p, Cfg::BM, Cfg::BN, dim3(Cfg::BM, Cfg::BN), stream, [](auto ta, auto tb) {
        return smem_tiling_kernel<decltype(ta)::value, decltype(tb)::value>;
    });
}

}  // namespace gemmkit::sgemm
