// What every mma.sync step (03-06) does per warp: the MMA of one element type, the warp
// tile's pass over one shared K-slab, and the epilogue that writes the accumulators to C.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/tensor/mma_slab.cuh"
#include "kernels/tensor/pipeline_configs.hpp"  // MmaTileCfg
#include "ptx/mma.cuh"

namespace gemmkit::tensor {

// d += a * b on the tensor cores: m16n8k16 for FP16/BF16, m16n8k8 TF32 for float data.
// Either consumes two 16-byte chunks of k per operand row.
template <class T>
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    if constexpr (std::is_same_v<T, float>)
        ptx::mma_m16n8k8_tf32(d, a, b0, b1);
    else
        ptx::mma_m16n8k16<T>(d, a, b0, b1);
}

// TF32 operands are rounded to nearest, ties to even (as the reference does); 16-bit types pass through.
template <class T>
__device__ __forceinline__ void round_for_mma(uint32_t (&r)[4]) {
    if constexpr (std::is_same_v<T, float>) {
#pragma unroll
        for (int i = 0; i < 4; ++i) r[i] = ptx::cvt_rn_tf32(r[i]);
    }
}

// One k step's fragments of a warp tile: A's MI blocks of 16 rows and B's NI / 2 pairs of n8
// blocks, as ldmatrix.x4 (or the TF32 pair reads) leave them.
template <class Cfg>
struct WarpFragments {
    uint32_t a[Cfg::MI][4], b[Cfg::NI / 2][4];
};

// Loads k step `step` of the A and B stages (shared addresses) into f. The readers
// (MmaSlab::Reader) hold the lane's fragment addresses.
template <class Cfg, class T, class ReaderA, class ReaderB>
__device__ __forceinline__ void load_fragments(WarpFragments<Cfg>& f, const ReaderA& fa, const ReaderB& fb,
                                               uint32_t stage_a, uint32_t stage_b, int step) {
    fa.load_step(f.a, stage_a, step);
    fb.load_step(f.b, stage_b, step);
#pragma unroll
    for (int mi = 0; mi < Cfg::MI; ++mi) round_for_mma<T>(f.a[mi]);
#pragma unroll
    for (int nj = 0; nj < Cfg::NI / 2; ++nj) round_for_mma<T>(f.b[nj]);
}

// acc[i][j] += A block i x B block j over one k step: MI x NI mma.sync.
template <class Cfg, class T>
__device__ __forceinline__ void mma_fragments(float (&acc)[Cfg::MI][Cfg::NI][4], const WarpFragments<Cfg>& f) {
#pragma unroll
    for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
            mma<T>(acc[mi][ni], f.a[mi], f.b[ni / 2][2 * (ni % 2)], f.b[ni / 2][2 * (ni % 2) + 1]);
}

// k steps (one mma's depth: two 16-byte chunks of k) in a K-slab of Cfg::BK elements of T.
template <class Cfg, class T>
inline constexpr int kStepsPerSlab = Cfg::BK * static_cast<int>(sizeof(T)) / 32;

// acc += (warp's WM rows of the A stage) x (warp's WN columns of the B stage) over one slab.
// Equivalent to: for each k in the slab, acc[i][j] += A(wm0 + i, k) * B(k, wn0 + j).
template <class Cfg, class T, class ReaderA, class ReaderB>
__device__ __forceinline__ void warp_mma_stage(float (&acc)[Cfg::MI][Cfg::NI][4], const ReaderA& fa,
                                               const ReaderB& fb, uint32_t stage_a, uint32_t stage_b) {
#pragma unroll
    for (int step = 0; step < kStepsPerSlab<Cfg, T>; ++step) {
        WarpFragments<Cfg> f;
        load_fragments<Cfg, T>(f, fa, fb, stage_a, stage_b, step);
        mma_fragments<Cfg, T>(acc, f);
    }
}

// Where element x (0..7) of the warp tile's 8-wide unit u lies along m (n): unit after unit, or
// in PairWordFragments' permuted order where the slab of A (B) is read that way (kPermuted).
template <bool kPermuted>
__device__ __forceinline__ constexpr int unit_mn(int u, int x) {
    return kPermuted ? 16 * (u / 2) + 2 * x + u % 2 : 8 * u + x;
}

// C = alpha * acc + beta * C + bias, then the rest of the fused epilogue (finish_stored), for the
// warp tile at (m0, n0) of args's problem, inside m x n only.
// Lane (g, t) holds elements g and g + 8 (units 2 mi and 2 mi + 1) of each 16 x 8 tile's rows
// and elements 2t and 2t + 1 of its columns (unit ni); kPermRows / kPermCols: the slab of A / B
// was read in permuted units (unit_mn). kPlainCopy: a second copy of the stores for a plain
// GEMM, which loads nothing (with_reads); step 05's cross-slab kernels, whose registers are the
// fullest, keep one copy (a second made ptxas spill: docs/epilogues.md#plain-stores).
template <class Cfg, class TC, bool kPermRows = false, bool kPermCols = false, bool kPlainCopy = true, class T>
__device__ __forceinline__ void store_accumulators(const float (&acc)[Cfg::MI][Cfg::NI][4], const GemmArgs<T, TC>& args,
                                                   int m0, int n0) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const EpilogueArgs<TC> epi = args.epilogue();  // once: asked a value, it cost ~16 instructions each
    auto stores = [&](auto reads) {
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    const int i = m0 + unit_mn<kPermRows>(2 * mi + r / 2, g);
                    const int j = n0 + unit_mn<kPermCols>(ni, 2 * t + r % 2);
                    if (i >= args.m || j >= args.n) continue;
                    if constexpr (decltype(reads)::value)
                        store_scaled(args.C, args.ldc, i, j, acc[mi][ni][r], args.alpha, args.beta,
                                     bias_of<float>(epi, i, args.m));
                    else
                        args.C[i + static_cast<int64_t>(j) * args.ldc] = from_float<TC>(args.alpha * acc[mi][ni][r]);
                }
    };
    if constexpr (kPlainCopy)
        with_reads(args.beta, epi, stores);  // a plain GEMM's stores load nothing
    else
        stores(std::true_type{});
    finish_stored(epi, args.C, args.ldc, args.m, args.n, Cfg::MI * Cfg::NI * 4, [&](int v) {
        const int mi = v / (Cfg::NI * 4), ni = v / 4 % Cfg::NI, r = v % 4;  // acc[mi][ni][r]
        return make_int2(m0 + unit_mn<kPermRows>(2 * mi + r / 2, g), n0 + unit_mn<kPermCols>(ni, 2 * t + r % 2));
    });
}

// Whether A and B allow 16-byte chunk copies (C is written element by element and needs nothing).
template <class T>
bool operands_chunk_aligned(const Problem& p) {
    return aligned16<T>(p.A, p.lda) && aligned16<T>(p.B, p.ldb) && batch_keeps_alignment(p, 16);
}

}  // namespace gemmkit::tensor
