// f16.01_wmma_global, bf16.01_wmma_global — the first Tensor Core kernel: WMMA fragments
// loaded straight from global memory.
//
// Changed from the FP32 SIMT ladder: the multiply-adds run on the Tensor Cores. Through
// nvcuda::wmma a warp multiplies a 16x16 tile of op(A) by a 16x16 tile of op(B) (FP16 or BF16)
// into a 16x16 FP32 accumulator in one mma_sync: 4096 multiply-adds per instruction instead
// of 32. Each warp owns a 32x32 block of C (2x2 accumulator tiles) and, per 16-wide step of k,
// loads 2 op(A) and 2 op(B) tiles with load_matrix_sync directly from global memory, so every
// tile it loads feeds two mma_syncs. The layout of each fragment follows the op: op(A) with
// op N is a column-major m x k matrix (col_major, ldm = lda), with op T a row-major one
// (row_major, ldm = lda); likewise op(B) k x n. No shared-memory staging of the operands.
// Bottleneck it removes: FMA issue rate, the ceiling of every SIMT kernel (the Tensor Cores
// of an H100 do ~15x the FP32 FMA rate on FP16/BF16).
// What remains: a warp loads 4 tiles (2 KiB) per 4 mma_syncs (32K FLOP), 16 FLOP per byte,
// all through L1 from L2/DRAM, and the two warps of a block that need the same tile each load
// it: memory-bound far below the Tensor Cores' rate. Step 02 stages 128x128 tiles in shared
// memory, loaded once per block with coalesced 16-byte copies.
// Preconditions: none for correctness. Direct (fast) fragment loads need the operand's base
// pointer 32-byte aligned and its leading dimension a multiple of 8 elements (WMMA's rules:
// 256-bit aligned tile pointer, ldm a multiple of 16 bytes), and the 16x16 tile inside the
// matrix; any other tile (the m, n, k edges, misaligned operands) is first copied, with zero
// fill, into a warp-private 16x16 shared buffer: correct and slower. C needs only its element
// alignment: the epilogue goes through shared memory and scalar stores.
// Measured: docs/ladder/tensor-cores.md#step-01.
#pragma once

#include <cstdint>
#include <type_traits>

#include <mma.h>

#include "kernels/tensor/types.cuh"

namespace gemmkit::tensor {

namespace wmma = nvcuda::wmma;

constexpr int kFrag = 16;  // WMMA m16n16k16: every fragment here is a 16x16 tile

// An operand stored column-major (op N) is read as col_major; a transposed one is, seen
// through op, row-major with the same ld.
template <bool kTrans>
using LayoutOf = std::conditional_t<kTrans, wmma::row_major, wmma::col_major>;

template <class T, bool kTransA>
using FragA = wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, T, LayoutOf<kTransA>>;
template <class T, bool kTransB>
using FragB = wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, T, LayoutOf<kTransB>>;
using FragAcc = wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float>;

// Whether load_matrix_sync may read tiles of X straight from global memory: every tile then
// starts at X + 16a + 16b*ld elements = 32*(a + b*ld) bytes past a 32-byte aligned base, and
// ld fits ldm (an unsigned int; < 2^31 keeps it clear of any signed arithmetic too).
template <class T>
__device__ __forceinline__ bool wmma_direct_ok(const T* x, int64_t ld) {
    static_assert(sizeof(T) == 2, "ld % 8 == 0 is WMMA's 16-byte ldm rule for 2-byte elements");
    return reinterpret_cast<uintptr_t>(x) % 32 == 0 && ld % 8 == 0 && ld < (int64_t{1} << 31);
}

// Copies the 16x16 tile of op(X) whose first element is (r0, c0) into the warp's buffer
// s ([16*16], 32-byte aligned), laid out as WMMA reads it with ldm 16:
// s[op_offset<kTrans>(r, c, 16)] = op(X)(r0 + r, c0 + c), or 0 outside rows x cols.
// Lanes walk along the stored matrix's contiguous dimension: two 32-byte runs per step.
// Equivalent to: for each (r, c) of the tile: s(r, c) = inside ? op(X)(r0 + r, c0 + c) : 0.
template <bool kTrans, class T>
__device__ __forceinline__ void stage_tile(T* s, const T* x, int64_t ld, int r0, int c0, int rows, int cols) {
    const int lane = threadIdx.x % 32;
    const T zero = from_float<T>(0.0f);
    __syncwarp();  // every lane's previous load_matrix_sync from s is done before s is overwritten
    // 4 loads in flight, not 8: fully unrolled, the compiler hoists the 8 element addresses of
    // all 4 tiles out of the k loop, ~200 registers instead of ~70 (ptxas -v, sm_90a).
#pragma unroll 4
    for (int it = 0; it < kFrag * kFrag / 32; ++it) {
        const int e = lane + 32 * it;                              // offset in s
        const int along = e % kFrag, across = e / kFrag;           // along / across the contiguous dimension
        const int r = r0 + (kTrans ? across : along), c = c0 + (kTrans ? along : across);
        s[e] = r < rows && c < cols ? x[op_offset<kTrans>(r, c, ld)] : zero;
    }
    __syncwarp();  // all 256 elements are written before any lane's load_matrix_sync reads them
}

// Writes one 16x16 accumulator tile to C(i0.., j0..): store_matrix_sync into the warp's
// buffer sC ([16][16] floats, column-major, 32-byte aligned), then each lane scales and
// stores 8 elements that lie inside m x n. 16 consecutive lanes cover 16 rows of one
// column: contiguous in C. C is read only when beta != 0 (store_scaled).
template <class T, class TC>
__device__ __forceinline__ void store_acc_tile(const GemmArgs<T, TC>& g, const FragAcc& acc, float* sC, int i0,
                                               int j0) {
    const int lane = threadIdx.x % 32;
    __syncwarp();  // the previous tile's reads of sC are done in every lane
    wmma::store_matrix_sync(sC, acc, kFrag, wmma::mem_col_major);
    __syncwarp();  // the whole tile is in sC
#pragma unroll
    for (int it = 0; it < kFrag * kFrag / 32; ++it) {
        const int e = lane + 32 * it;  // sC[e] is C(i0 + e % 16, j0 + e / 16)
        const int i = i0 + e % kFrag, j = j0 + e / kFrag;
        if (i < g.m && j < g.n) store_scaled(g.C, g.ldc, i, j, sC[e], g.alpha, g.beta, g.epilogue(), g.m, g.n);
    }
}

struct WmmaGlobalCfg {
    static constexpr int kFragsM = 2, kFragsN = 2;  // accumulator tiles per warp: a 32x32 warp tile
    static constexpr int kWarpsM = 2, kWarpsN = 2;  // warps per block: a 64x64 block tile
    static constexpr int WM = kFragsM * kFrag, WN = kFragsN * kFrag;
    static constexpr int BM = kWarpsM * WM, BN = kWarpsN * WN, BK = kFrag;
    static constexpr int kWarps = kWarpsM * kWarpsN;
    static constexpr int kThreads = 32 * kWarps;  // 128
    static_assert(kFrag * kFrag % 32 == 0, "staging and epilogue split a tile evenly over 32 lanes");
    static_assert(BN >= 16, "chunking.hpp bounds the column tiles (gridDim.y) assuming BN >= 16");
};

template <class T, class TC, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(WmmaGlobalCfg::kThreads) wmma_global_kernel(GemmArgs<T, TC> g) {
    using Cfg = WmmaGlobalCfg;
    __shared__ __align__(32) T sStage[Cfg::kWarps][kFrag * kFrag];  // per warp: one operand tile, as WMMA reads it
    __shared__ __align__(32) float sC[Cfg::kWarps][kFrag * kFrag];  // per warp: one accumulator tile, column-major

    const int warp = threadIdx.x / 32;
    const int wi = blockIdx.x * Cfg::BM + warp % Cfg::kWarpsM * Cfg::WM;  // first row of this warp's 32x32 tile
    const int wj = blockIdx.y * Cfg::BN + warp / Cfg::kWarpsM * Cfg::WN;  // first column
    if (wi >= g.m || wj >= g.n) return;  // no C here; the kernel has no block-wide barrier

    const bool a_direct = wmma_direct_ok(g.A, g.lda), b_direct = wmma_direct_ok(g.B, g.ldb);
    T* stage = sStage[warp];

    FragAcc acc[Cfg::kFragsM][Cfg::kFragsN];
#pragma unroll
    for (int fm = 0; fm < Cfg::kFragsM; ++fm)
#pragma unroll
        for (int fn = 0; fn < Cfg::kFragsN; ++fn) wmma::fill_fragment(acc[fm][fn], 0.0f);

    FragA<T, kTransA> a[Cfg::kFragsM];
    FragB<T, kTransB> b[Cfg::kFragsN];
    for (int p = 0; p < g.k; p += kFrag) {
        const bool k_inside = p + kFrag <= g.k;
#pragma unroll
        for (int fm = 0; fm < Cfg::kFragsM; ++fm) {
            const int i = wi + fm * kFrag;  // op(A) tile (i.., p..)
            if (a_direct && k_inside && i + kFrag <= g.m) {
                wmma::load_matrix_sync(a[fm], g.A + op_offset<kTransA>(i, p, g.lda), static_cast<unsigned>(g.lda));
            } else {
                stage_tile<kTransA>(stage, g.A, g.lda, i, p, g.m, g.k);
                wmma::load_matrix_sync(a[fm], stage, kFrag);
            }
        }
#pragma unroll
        for (int fn = 0; fn < Cfg::kFragsN; ++fn) {
            const int j = wj + fn * kFrag;  // op(B) tile (p.., j..)
            if (b_direct && k_inside && j + kFrag <= g.n) {
                wmma::load_matrix_sync(b[fn], g.B + op_offset<kTransB>(p, j, g.ldb), static_cast<unsigned>(g.ldb));
            } else {
                stage_tile<kTransB>(stage, g.B, g.ldb, p, j, g.k, g.n);
                wmma::load_matrix_sync(b[fn], stage, kFrag);
            }
        }
#pragma unroll
        for (int fm = 0; fm < Cfg::kFragsM; ++fm)
#pragma unroll
            for (int fn = 0; fn < Cfg::kFragsN; ++fn) wmma::mma_sync(acc[fm][fn], a[fm], b[fn], acc[fm][fn]);
    }

#pragma unroll
    for (int fm = 0; fm < Cfg::kFragsM; ++fm)
#pragma unroll
        for (int fn = 0; fn < Cfg::kFragsN; ++fn)
            store_acc_tile(g, acc[fm][fn], sC[warp], wi + fm * kFrag, wj + fn * kFrag);
}

// One launch function for f16 and bf16: the problem's types pick T (A, B) and TC (C).
inline cudaError_t launch_wmma_global(const Problem& p, cudaStream_t stream) {
    using Cfg = WmmaGlobalCfg;
    const dim3 grid(ceil_div(p.m, Cfg::BM), ceil_div(p.n, Cfg::BN));
    return with_half_types(p, [&](auto t, auto tc) {
        using T = typename decltype(t)::type;
        using TC = typename decltype(tc)::type;
        return with_ops(p, [&](auto ta, auto tb) {
            wmma_global_kernel<T, TC, decltype(ta)::value, decltype(tb)::value>
                <<<grid, Cfg::kThreads, 0, stream>>>(make_args<T, TC>(p));
            return cudaGetLastError();
        });
    });
}

}  // namespace gemmkit::tensor
