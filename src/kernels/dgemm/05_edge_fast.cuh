// dgemm.05_edge_fast — bounds checks only where a tile crosses an edge.
//
// Changed from 04: steps 01-04 check every element of every slab in every block (a compare pair
// and a select per loaded double, a compare per stored one), though for a large problem nearly
// all blocks lie wholly inside it. Here a block decides once, uniformly for all its threads,
// whether its 128x128 tile of C is inside m x n ("interior"). An interior block loads every full
// K-slab with PairLoader::load_interior (no predicates) and writes C without checks; only the
// last, partial K-slab (k % 8 != 0) and the edge blocks take the checked path of step 04. The
// branch is block-uniform, so no warp diverges; for a slab inside the matrix both paths load
// the same values, so results are identical bit for bit.
// Why not pad instead: padding m, n, k up to multiples of 128 and 8 would copy all of A and B
// (and C) into a zeroed workspace before the GEMM and C back after it: an extra pass over
// memory that, for a skinny or small problem, costs as much as the GEMM, plus a workspace
// allocation the API does not otherwise need. Checking only in edge blocks keeps sizes that
// are not multiples of 128 within a few edge tiles' worth of the aligned speed, with no copy.
// Bottleneck it removes: integer and predicate instructions in the slab loads and the
// epilogue, issued from the same warp schedulers as the DFMAs.
// Preconditions: none for correctness; full speed with 16-byte alignment and even ld.
// Measured: docs/ladder/fp64.md#step-05.
#pragma once

#include "kernels/dgemm/common.cuh"
#include "kernels/launch_tiles.cuh"

namespace gemmkit::dgemm {

struct EdgeFastCfg {
    static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    static constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
    static constexpr int kPad = 2;  // doubles: rows of 130 stay 16-byte aligned, transposing stores conflict-free
    static constexpr int kPairStride = 32;  // rows (columns) between a thread's pairs: 16 threads x 2
    static_assert(BM % TM == 0 && BN % TN == 0 && TM % 2 == 0 && TN % 2 == 0, "thread tiles are whole pairs");
    static_assert(BM / TM * 2 == kPairStride && BM == kPairStride * TM / 2, "16 thread rows x 4 pairs cover BM");
    static_assert(BN == kPairStride * TN / 2, "16 thread columns x 4 pairs cover BN");
    static_assert(BK % 2 == 0, "fragment buffers alternate; each slab must start on fragment buffer 0");
};

// A thread's fragments at one k: rows (or columns) t + kPairStride*q + {0, 1} of the k-major
// shared row a (b), one LDS.128 a pair. Equivalent to rA[2q + h] = a[kPairStride*q + h].
template <class Cfg>
__device__ __forceinline__ void load_pair_fragments(double (&rA)[Cfg::TM], double (&rB)[Cfg::TN], const double* a,
                                                    const double* b) {
#pragma unroll
    for (int q = 0; q < Cfg::TM / 2; ++q)
        *reinterpret_cast<double2*>(&rA[2 * q]) = *reinterpret_cast<const double2*>(a + q * Cfg::kPairStride);
#pragma unroll
    for (int q = 0; q < Cfg::TN / 2; ++q)
        *reinterpret_cast<double2*>(&rB[2 * q]) = *reinterpret_cast<const double2*>(b + q * Cfg::kPairStride);
}

// C = alpha*acc + beta*C for a thread's tile in pairs: acc[r][c] is C(i + kPairStride*(r/2) + r%2,
// j + kPairStride*(c/2) + c%2). `interior` (block-uniform): the block's whole tile lies inside C,
// so no element needs a check. For each (q, c) a half-warp writes 16 consecutive double2s of one
// column: 256 bytes.
template <class Cfg>
__device__ __forceinline__ void store_pair_tile(const GemmArgs<double>& g, const double (&acc)[Cfg::TM][Cfg::TN], int i,
                                                int j, bool interior) {
    constexpr int kPS = Cfg::kPairStride;
    const bool vec_c = aligned16<double>(g.C, g.ldc);
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
    if (interior) {
#pragma unroll
        for (int c = 0; c < Cfg::TN; ++c)
#pragma unroll
            for (int q = 0; q < Cfg::TM / 2; ++q)
                store_c2(g, epi, i + q * kPS, j + c / 2 * kPS + c % 2, acc[2 * q][c], acc[2 * q + 1][c], vec_c);
        return finish_pair_tile<Cfg::TM, Cfg::TN, kPS>(g, i, j);
    }
#pragma unroll
    for (int c = 0; c < Cfg::TN; ++c) {
        const int jc = j + c / 2 * kPS + c % 2;
        if (jc >= g.n) continue;
#pragma unroll
        for (int q = 0; q < Cfg::TM / 2; ++q) {
            const int iq = i + q * kPS;
            if (iq < g.m)
                store_c2(g, epi, iq, jc, acc[2 * q][c], acc[2 * q + 1][c], vec_c);
        }
    }
    finish_pair_tile<Cfg::TM, Cfg::TN, kPS>(g, i, j);
}

template <bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(EdgeFastCfg::kThreads) edge_fast_kernel(GemmArgs<double> g) {
    using Cfg = EdgeFastCfg;
    constexpr int SA = Cfg::BM + Cfg::kPad, SB = Cfg::BN + Cfg::kPad;
    __shared__ __align__(16) double sA[2][Cfg::BK][SA];  // [buffer][p][i], padded
    __shared__ __align__(16) double sB[2][Cfg::BK][SB];  // [buffer][p][j], padded
    PairLoader<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec> loadA;
    PairLoader<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec> loadB;

    select_batch<!kVec>(g);
    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    const bool interior = i0 + Cfg::BM <= g.m && j0 + Cfg::BN <= g.n;  // the same for the whole block
    constexpr int kThreadRows = Cfg::BM / Cfg::TM;  // 16
    const int ti = threadIdx.x % kThreadRows * 2;   // rows ti + 32q + {0, 1}
    const int tj = threadIdx.x / kThreadRows * 2;   // cols tj + 32q + {0, 1}
    auto load_slab_to_registers = [&](int p0) {
        const double* xA = g.A + op_offset<kTransA>(i0, p0, g.lda);
        const double* xB = g.B + op_offset<kTransB>(p0, j0, g.ldb);
        if (interior && p0 + Cfg::BK <= g.k) {  // block-uniform: the whole slab is inside
            loadA.load_interior(xA, g.lda);
            loadB.load_interior(xB, g.ldb);
        } else {
            loadA.load(xA, g.lda, g.m - i0, g.k - p0);
            loadB.load(xB, g.ldb, g.n - j0, g.k - p0);
        }
    };
    auto store_slab = [&](int buf) {
        loadA.template store<SA>(&sA[buf][0][0]);
        loadB.template store<SB>(&sB[buf][0][0]);
    };
    double rA[2][Cfg::TM], rB[2][Cfg::TN];  // [fragment buffer][value]
    auto load_fragments = [&](int frag, int buf, int p) {
        load_pair_fragments<Cfg>(rA[frag], rB[frag], &sA[buf][p][ti], &sB[buf][p][tj]);
    };

    double acc[Cfg::TM][Cfg::TN] = {};  // acc[r][c] is C(i0 + ti + 32(r/2) + r%2, j0 + tj + 32(c/2) + c%2)
    load_slab_to_registers(0);
    store_slab(0);
    __syncthreads();
    load_fragments(0, 0, 0);
    int buf = 0;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        const bool has_next = p0 + Cfg::BK < g.k;
        if (has_next) load_slab_to_registers(p0 + Cfg::BK);  // in flight during the DFMAs below
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            // p is a compile-time constant here, so fragment indices stay in registers.
            if (p + 1 < Cfg::BK) load_fragments((p + 1) % 2, buf, p + 1);
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] = fma(rA[p % 2][r], rB[p % 2][c], acc[r][c]);
        }
        if (has_next) {
            store_slab(buf ^ 1);  // the other buffer: nobody reads it this slab
            __syncthreads();
            buf ^= 1;
            load_fragments(0, buf, 0);  // step 0 of the next slab
        }
    }
    store_pair_tile<Cfg>(g, acc, i0 + ti, j0 + tj, interior);
}

inline cudaError_t launch_edge_fast(const Problem& p, cudaStream_t stream) {
    using Cfg = EdgeFastCfg;
    return launch_tiles_vec<double>(p, Cfg::BM, Cfg::BN, Cfg::kThreads, stream, [](auto ta, auto tb, auto vec) {
        return edge_fast_kernel<decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>;
    });
}

}  // namespace gemmkit::dgemm
