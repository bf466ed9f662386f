// sgemm.09_two_level_prefetch — shared->register fragments double-buffered as well.
//
// Changed from 08: the 8 op(A) and 8 op(B) values of step p+1 are read from shared memory
// into a second set of fragment registers while the 64 FMAs of step p run; the first step
// of the next slab is read right after the barrier that publishes it. So both levels of the
// hierarchy prefetch: global->shared one slab ahead, shared->registers one k step ahead.
// Bottleneck it removes: shared-memory latency in front of every k step's FMAs.
// What remains: a warp's 32 threads span all 128 rows of the tile, so per k step it reads
// 128 op(A) + 16 op(B) floats where a squarer warp tile needs 96. Step 10 tiles per warp.
// Preconditions: none for correctness; full speed with 16-byte alignment.
// Measured: docs/ladder/fp32.md#step-09. Slower than 08, against the prediction: the extra
// registers leave one block (8 warps) per SM instead of two (gemmkit explain shows it).
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct TwoLevelPrefetchCfg {
    static constexpr int BM = 128, BN = 128, BK = 8;
    static constexpr int kQuad = 4;
    static constexpr int kThreads = (BM / 8) * (BN / 8);  // 256
    static constexpr int kPad = 4;
};

template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(TwoLevelPrefetchCfg::kThreads) two_level_prefetch_kernel(GemmArgs<float> g) {
    using Cfg = TwoLevelPrefetchCfg;
    constexpr int SA = Cfg::BM + Cfg::kPad, SB = Cfg::BN + Cfg::kPad;
    __shared__ __align__(16) float sA[2][Cfg::BK][SA];  // [buffer][p][i]
    __shared__ __align__(16) float sB[2][Cfg::BK][SB];  // [buffer][p][j]
    SlabLoader<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec> loadA;
    SlabLoader<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec> loadB;

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    constexpr int kThreadRows = Cfg::BM / 8;
    const int ti = threadIdx.x % kThreadRows * Cfg::kQuad;
    const int tj = threadIdx.x / kThreadRows * Cfg::kQuad;
    auto load_slab_to_registers = [&](int p0) {
        loadA.load(g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda, g.m - i0, g.k - p0);
        loadB.load(g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb, g.n - j0, g.k - p0);
    };
    auto store_slab = [&](int buf) {
        loadA.template store<SA>(&sA[buf][0][0]);
        loadB.template store<SB>(&sB[buf][0][0]);
    };
    float rA[2][8], rB[2][8];  // [fragment buffer][value]
    auto load_fragments = [&](int frag, int buf, int p) {
        *reinterpret_cast<float4*>(&rA[frag][0]) = *reinterpret_cast<const float4*>(&sA[buf][p][ti]);
        *reinterpret_cast<float4*>(&rA[frag][4]) = *reinterpret_cast<const float4*>(&sA[buf][p][ti + Cfg::BM / 2]);
        *reinterpret_cast<float4*>(&rB[frag][0]) = *reinterpret_cast<const float4*>(&sB[buf][p][tj]);
        *reinterpret_cast<float4*>(&rB[frag][4]) = *reinterpret_cast<const float4*>(&sB[buf][p][tj + Cfg::BN / 2]);
    };

    float acc[8][8] = {};
    load_slab_to_registers(0);
    store_slab(0);
    __syncthreads();
    load_fragments(0, 0, 0);
    int buf = 0;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        const bool has_next = p0 + Cfg::BK < g.k;
        if (has_next) load_slab_to_registers(p0 + Cfg::BK);
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            // p is a compile-time constant here, so fragment indices stay in registers.
            if (p + 1 < Cfg::BK) load_fragments((p + 1) % 2, buf, p + 1);
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[r][c] += rA[p % 2][r] * rB[p % 2][c];
        }
        if (has_next) {
            store_slab(buf ^ 1);
            __syncthreads();
            buf ^= 1;
            load_fragments(0, buf, 0);  // BK is even: step 0 of the next slab uses fragment 0
        }
    }
    static_assert(Cfg::BK % 2 == 0, "fragment buffers alternate; the next slab must start on buffer 0");
    store_quadrants<Cfg::BM / 2, Cfg::BN / 2>(g, acc, i0 + ti, j0 + tj);
}

inline cudaError_t launch_two_level_prefetch(const Problem& p, cudaStream_t stream) {
    using Cfg = TwoLevelPrefetchCfg;
    return launch_tiles_vec<float>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return two_level_prefetch_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::sgemm
