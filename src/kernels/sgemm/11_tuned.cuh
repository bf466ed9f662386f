// sgemm.11_tuned_* — step 10's design, parameterized, with the per-slab overheads trimmed.
//
// Changed from 10: (1) block, warp and thread tiles, BK and blocks per SM are a config
// (TunedCfg), and several configs are registered; `gemmkit tune` measures them per shape
// class and `auto` uses its table (src/tuning/). (2) Launch bounds ask for kMinBlocks blocks
// per SM, so the compiler keeps registers in budget (steps 09/10 ran one block per SM).
// (3) Each thread's global addresses are computed once and advanced by a constant per slab,
// and blocks fully inside the matrix load without bounds checks; only edge blocks and the
// last partial slab pay for them. (4) Shared memory is dynamic, so tiles may exceed 48 KiB.
// Preconditions: none for correctness; full speed with 16-byte alignment.
// Measured: docs/ladder/fp32.md#step-11.
#pragma once

#include "kernels/sgemm/common.cuh"

namespace gemmkit::sgemm {

// A thread tile is QM x QN quadrants of 4x4 (TM = 4 QM rows, TN = 4 QN columns); a warp is
// a kLanesM x (32 / kLanesM) grid of threads whose quadrants repeat 4*kLanesM rows and
// 4*kLanesN columns apart, so each quarter-warp's LDS.128 reads 128 contiguous bytes or one
// broadcast float4.
template <int BM_, int BN_, int BK_, int QM_, int QN_, int kLanesM_, int kMinBlocks_>
struct TunedCfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, QM = QM_, QN = QN_;
    static constexpr int kLanesM = kLanesM_, kLanesN = 32 / kLanesM_;
    static constexpr int TM = 4 * QM, TN = 4 * QN;
    static constexpr int WM = TM * kLanesM, WN = TN * kLanesN;
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int kMinBlocks = kMinBlocks_;
    static constexpr int kPad = 4;  // floats: keeps rows 16-byte aligned and shifts banks
    static constexpr int SA = BM + kPad, SB = BN + kPad;
    static constexpr int kSmemBytes = 2 * BK * (SA + SB) * 4;  // two buffers of each operand
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles cover the block tile");
    static_assert(kLanesM * kLanesN == 32, "one warp");
    static_assert(BK % 4 == 0 && BK % 2 == 0, "slabs move in groups of 4; fragments alternate");
};

// Global -> register half of the slab copy, with each thread's addresses computed once.
// Same element mapping as SlabLoader (store() is shared with it).
template <int BK, int BMN, int kThreads, bool kMnContiguous, bool kVec>
struct SlabStream : SlabLoader<BK, BMN, kThreads, kMnContiguous, kVec> {
    using Base = SlabLoader<BK, BMN, kThreads, kMnContiguous, kVec>;
    using Base::kGroups;
    using Base::kLine;
    using Base::r;
    static_assert(kThreads % (kLine / 4) == 0, "a thread's groups share their contiguous offset");
    static constexpr int kLineStep = kThreads / (kLine / 4);  // lines between a thread's groups

    const float* base;  // this thread's first group at the current slab
    int64_t group_stride;  // elements between consecutive groups of this thread
    int c0, o0;            // contiguous offset and first line of this thread's groups

    __device__ __forceinline__ SlabStream(const float* x, int64_t ld) {
        Base::place(threadIdx.x, &c0, &o0);
        base = x + c0 + o0 * ld;
        group_stride = kLineStep * ld;
    }

    // Next slab: BK further along k (k is the line index when kMnContiguous).
    __device__ __forceinline__ void advance(int64_t ld) { base += kMnContiguous ? BK * ld : BK; }

    // The whole slab lies inside the matrix: no checks.
    __device__ __forceinline__ void load_inside() {
#pragma unroll
        for (int it = 0; it < kGroups; ++it) {
            const float* src = base + it * group_stride;
            if (kVec)
                r[it] = *reinterpret_cast<const float4*>(src);
            else
                r[it] = make_float4(src[0], src[1], src[2], src[3]);
        }
    }

    // Edge slab: counts are the valid extents from the slab origin.
    __device__ __forceinline__ void load_checked(int mn_count, int k_count) {
        const int line_count = (kMnContiguous ? mn_count : k_count) - c0;
        const int other_count = kMnContiguous ? k_count : mn_count;
#pragma unroll
        for (int it = 0; it < kGroups; ++it) {
            const float* src = base + it * group_stride;
            const bool row_ok = o0 + it * kLineStep < other_count;
            if (kVec && row_ok && line_count >= 4) {
                r[it] = *reinterpret_cast<const float4*>(src);
            } else {
                r[it].x = row_ok && 0 < line_count ? src[0] : 0.0f;
                r[it].y = row_ok && 1 < line_count ? src[1] : 0.0f;
                r[it].z = row_ok && 2 < line_count ? src[2] : 0.0f;
                r[it].w = row_ok && 3 < line_count ? src[3] : 0.0f;
            }
        }
    }
};

// Writes a thread's TM x TN results, held as QM x QN quadrants of 4x4 spaced 4*kLanesM rows
// and 4*kLanesN columns apart: acc[4 qm + r][4 qn + c] is C(i + qm*rows + r, j + qn*cols + c).
// Each quadrant column is one float4 when C allows it (store_c4).
template <class Cfg>
__device__ __forceinline__ void store_thread_tile(const GemmArgs<float>& g, const float (&acc)[Cfg::TM][Cfg::TN], int i,
                                                  int j) {
    constexpr int kRowStep = 4 * Cfg::kLanesM, kColStep = 4 * Cfg::kLanesN;
    const bool vec_c = aligned16<float>(g.C, g.ldc);
    const auto epi = g.epilogue();  // once, not a value (docs/epilogues.md#select-late)
    with_reads(g.beta, epi, [&](auto reads) {  // a plain GEMM's stores load nothing
#pragma unroll
        for (int c = 0; c < Cfg::TN; ++c) {
            const int col = j + c / 4 * kColStep + c % 4;
            if (col >= g.n) continue;
#pragma unroll
            for (int q = 0; q < Cfg::QM; ++q) {
                const int row = i + q * kRowStep;
                if (row < g.m)
                    store_c4<decltype(reads)::value>(
                        g, epi, row, col,
                        make_float4(acc[4 * q][c], acc[4 * q + 1][c], acc[4 * q + 2][c], acc[4 * q + 3][c]), vec_c);
            }
        }
    });
    finish_stored(epi, g.C, g.ldc, g.m, g.n, Cfg::TM * Cfg::TN, [&](int v) {  // acc[v % TM][v / TM]
        const int r = v % Cfg::TM, c = v / Cfg::TM;
        return make_int2(i + r / 4 * kRowStep + r % 4, j + c / 4 * kColStep + c % 4);
    });
}

template <class Cfg, bool kTransA, bool kTransB, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) tuned_kernel(GemmArgs<float> g) {
    extern __shared__ float4 smem[];
    float* sA = reinterpret_cast<float*>(smem);  // [2][BK][SA]: [buffer][p][i]
    float* sB = sA + 2 * Cfg::BK * Cfg::SA;      // [2][BK][SB]: [buffer][p][j]
    constexpr int kSlabA = Cfg::BK * Cfg::SA, kSlabB = Cfg::BK * Cfg::SB;

    const int i0 = blockIdx.x * Cfg::BM, j0 = blockIdx.y * Cfg::BN;
    SlabStream<Cfg::BK, Cfg::BM, Cfg::kThreads, !kTransA, kVec> loadA(g.A + op_offset<kTransA>(i0, 0, g.lda), g.lda);
    SlabStream<Cfg::BK, Cfg::BN, Cfg::kThreads, kTransB, kVec> loadB(g.B + op_offset<kTransB>(0, j0, g.ldb), g.ldb);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    constexpr int kRowStep = 4 * Cfg::kLanesM, kColStep = 4 * Cfg::kLanesN;  // quadrant spacing
    const int ti = warp % Cfg::kWarpsM * Cfg::WM + lane % Cfg::kLanesM * 4;
    const int tj = warp / Cfg::kWarpsM * Cfg::WN + lane / Cfg::kLanesM * 4;

    // Edge blocks check every slab; inside blocks only a trailing partial slab.
    const bool inside_mn = i0 + Cfg::BM <= g.m && j0 + Cfg::BN <= g.n;
    auto load_slab_to_registers = [&](int p0) {
        if (inside_mn && p0 + Cfg::BK <= g.k) {
            loadA.load_inside();
            loadB.load_inside();
        } else {
            loadA.load_checked(g.m - i0, g.k - p0);
            loadB.load_checked(g.n - j0, g.k - p0);
        }
    };
    auto store_slab = [&](int buf) {
        loadA.template store<Cfg::SA>(sA + buf * kSlabA);
        loadB.template store<Cfg::SB>(sB + buf * kSlabB);
    };
    float rA[2][Cfg::TM], rB[2][Cfg::TN];  // [fragment buffer][value]
    auto load_fragments = [&](int frag, int buf, int p) {
#pragma unroll
        for (int q = 0; q < Cfg::QM; ++q)
            *reinterpret_cast<float4*>(&rA[frag][4 * q]) =
                *reinterpret_cast<const float4*>(sA + buf * kSlabA + p * Cfg::SA + ti + q * kRowStep);
#pragma unroll
        for (int q = 0; q < Cfg::QN; ++q)
            *reinterpret_cast<float4*>(&rB[frag][4 * q]) =
                *reinterpret_cast<const float4*>(sB + buf * kSlabB + p * Cfg::SB + tj + q * kColStep);
    };

    float acc[Cfg::TM][Cfg::TN] = {};
    load_slab_to_registers(0);
    store_slab(0);
    __syncthreads();
    load_fragments(0, 0, 0);
    int buf = 0;
    for (int p0 = 0; p0 < g.k; p0 += Cfg::BK) {
        const bool has_next = p0 + Cfg::BK < g.k;
        if (has_next) {
            loadA.advance(g.lda);
            loadB.advance(g.ldb);
            load_slab_to_registers(p0 + Cfg::BK);  // in flight during this slab's FMAs
        }
#pragma unroll
        for (int p = 0; p < Cfg::BK; ++p) {
            if (p + 1 < Cfg::BK) load_fragments((p + 1) % 2, buf, p + 1);
#pragma unroll
            for (int r = 0; r < Cfg::TM; ++r)
#pragma unroll
                for (int c = 0; c < Cfg::TN; ++c) acc[r][c] += rA[p % 2][r] * rB[p % 2][c];
        }
        if (has_next) {
            store_slab(buf ^ 1);
            __syncthreads();
            buf ^= 1;
            load_fragments(0, buf, 0);
        }
    }

    store_thread_tile<Cfg>(g, acc, i0 + ti, j0 + tj);
}

template <class Cfg>
cudaError_t launch_tuned(const Problem& p, cudaStream_t stream) {
    const dim3 grid(ceil_div(p.m, Cfg::BM), ceil_div(p.n, Cfg::BN));
    return with_ops_and_vec<float>(p, [&](auto ta, auto tb, auto vec) {
        return launch_with_smem(tuned_kernel<Cfg, decltype(ta)::value, decltype(tb)::value, decltype(vec)::value>, grid,
                                Cfg::kThreads, Cfg::kSmemBytes, stream, make_args<float>(p));
    });
}

}  // namespace gemmkit::sgemm
