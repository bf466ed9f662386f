// sgemm.08_double_buffering — the next K-slab loads while the current one is computed.
//
// Changed from 07: two shared buffers per operand. At the top of each slab the thread
// issues the global loads of the next slab into registers, computes the current slab from
// shared memory while those loads are in flight, then stores them into the other buffer.
// One __syncthreads() per slab: it both publishes the new buffer and retires the old one.
// Bottleneck it removes: global-memory latency exposed once per slab (the FMAs now cover it).
// What remains: each k step's LDS.128s sit right before the FMAs that need them, so shared
// latency is exposed 8 times per slab. Step 09 prefetches those too.
// Preconditions: none for correctness; full speed with 16-byte alignment.
// Measured: docs/ladder/fp32.md#step-08.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct DoubleBufferingCfg {
    static constexpr int BM = 128, BN = 128, BK = 8;
    static constexpr int kQuad = 4;
    static constexpr int kThreads = (BM / 8) * (BN / 8);  // 256
    static constexpr int kPad = 4;
    // 2 buffers x 8 x 132 floats x 2 operands = 16.5 KiB: far under the 48 KiB static limit.
};

// Two blocks per SM (launch bounds cap registers at 128): one block's barrier wait overlaps
// the other's FMAs.
template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(DoubleBufferingCfg::kThreads, 2) double_buffering_kernel(GemmArgs<float> g) {
    using Cfg = DoubleBufferingCfg;
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

    float acc[8][8] = {};
    float rA[8], rB[8];
    load_slab_to_registers(0);
    store_slab(0);
    __syncthreads();
    int buf = 0;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        const bool has_next = p0 + Cfg::BK < g.k;
        if (has_next) load_slab_to_registers(p0 + Cfg::BK);  // in flight during the FMAs below
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            *reinterpret_cast<float4*>(&rA[0]) = *reinterpret_cast<const float4*>(&sA[buf][p][ti]);
            *reinterpret_cast<float4*>(&rA[4]) = *reinterpret_cast<const float4*>(&sA[buf][p][ti + Cfg::BM / 2]);
            *reinterpret_cast<float4*>(&rB[0]) = *reinterpret_cast<const float4*>(&sB[buf][p][tj]);
            *reinterpret_cast<float4*>(&rB[4]) = *reinterpret_cast<const float4*>(&sB[buf][p][tj + Cfg::BN / 2]);
#pragma unroll
            for (int r = 0; r < 8; ++r)
#pragma unroll
                for (int c = 0; c < 8; ++c) acc[r][c] += rA[r] * rB[c];
        }
        if (has_next) store_slab(buf ^ 1);  // the other buffer: nobody reads it this slab
        __syncthreads();
        buf ^= 1;
    }
    store_quadrants<Cfg::BM / 2, Cfg::BN / 2>(g, acc, i0 + ti, j0 + tj);
}

inline cudaError_t launch_double_buffering(const Problem& p, cudaStream_t stream) {
    using Cfg = DoubleBufferingCfg;
    return launch_tiles_vec<float>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return double_buffering_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::sgemm
