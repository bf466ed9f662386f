// sgemm.06_vectorized — 128-bit global and shared-memory accesses.
//
// Changed from 05: global loads move 4 floats per instruction (LDG.128) when A and B are
// 16-byte aligned with leading dimensions divisible by 4; groups along k (op(A) = T,
// op(B) = N) are transposed into the k-major shared tiles on the way in. Each thread then
// reads its 8 op(A) and 8 op(B) values per k as two LDS.128 each instead of 16 LDS.32.
// Bottleneck it removes: load/store instruction count (4x fewer for the same bytes), which
// competes with the FMAs for issue slots.
// What remains: lanes l and l+4 of a quarter-warp read op(A) addresses 128 bytes apart: a
// 2-way bank conflict on every A read. Step 07 removes it.
// Preconditions: none for correctness; full speed with 16-byte alignment (else scalar loads).
// Measured: docs/ladder/fp32.md#step-06.
#pragma once

#include "kernels/launch_tiles.cuh"
#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

struct VectorizedCfg {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are read as float4");
};

template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(VectorizedCfg::kThreads) vectorized_kernel(GemmArgs<float> g) {
    using Cfg = VectorizedCfg;
    __shared__ __align__(16) float sA[Cfg::BK][Cfg::BM];  // sA[p][i]
    __shared__ __align__(16) float sB[Cfg::BK][Cfg::BN];  // sB[p][j]
    SlabLoader<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec> loadA;
    SlabLoader<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec> loadB;

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    constexpr int kThreadRows = Cfg::BM / Cfg::TM;
    const int ti = threadIdx.x % kThreadRows * Cfg::TM;
    const int tj = threadIdx.x / kThreadRows * Cfg::TN;
    float acc[Cfg::TM][Cfg::TN] = {};
    float rA[Cfg::TM], rB[Cfg::TN];
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        loadA.load(g.A + op_offset<kTransA>(i0, p0, g.lda), g.lda, g.m - i0, g.k - p0);
        loadB.load(g.B + op_offset<kTransB>(p0, j0, g.ldb), g.ldb, g.n - j0, g.k - p0);
        loadA.template store<Cfg::BM>(&sA[0][0]);
        loadB.template store<Cfg::BN>(&sB[0][0]);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
#pragma unroll
            for (int r = 0; r < Cfg::TM; r += 4) *reinterpret_cast<float4*>(&rA[r]) = *reinterpret_cast<const float4*>(&sA[p][ti + r]);
#pragma unroll
            for (int c = 0; c < Cfg::TN; c += 4) *reinterpret_cast<float4*>(&rB[c]) = *reinterpret_cast<const float4*>(&sB[p][tj + c]);
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] += rA[r] * rB[c];
        }
        __syncthreads();
    }
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
#pragma unroll
    for (int c = 0; c < Cfg::TN; ++c) {
        const int j = j0 + tj + c;
#pragma unroll
        for (int r = 0; r < Cfg::TM; ++r) {
            const int i = i0 + ti + r;
            if (i < g.m && j < g.n) store_c_biased(g, epi, i, j, acc[r][c]);
        }
    }
    finish_stored(epi, g.C, g.ldc, g.m, g.n, Cfg::TM * Cfg::TN,
                  [&](int v) { return make_int2(i0 + ti + v % Cfg::TM, j0 + tj + v / Cfg::TM); });
}

inline cudaError_t launch_vectorized(const Problem& p, cudaStream_t stream) {
    using Cfg = VectorizedCfg;
    return launch_tiles_vec<float>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return vectorized_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::sgemm
