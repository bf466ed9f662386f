// FP8 step 1 (fp8.01_wgmma_scaled; docs/ladder/fp8.md#step-01): the f16 ladder's step 11
// (06_tma_store.cuh: persistent clusters of two sharing B's slabs by multicast, warp-specialized,
// TMA-store epilogue) on FP8 operands, with the scales of gemmkit_gemm_scaled_ex applied to the
// accumulators before the epilogue.
//
// What changes from the 16-bit kernel, and why so little does:
//  - An FP8 wgmma multiplies 32 of k at a time (k = 32 bytes, as 16 of k in 16 bits), and reads
//    both operands K-major only: no transpose bits (PTX ISA, wgmma.mma_async, .e4m3/.e5m2). So
//    A is op T and B op N, the layout cuBLASLt's FP8 path takes too.
//  - A 128-byte swizzled row holds 128 FP8 elements of k: the slab's BK is 128, and a slab is
//    four wgmmas deep. 48 KiB a stage (A 128 x 128, B 256 x 128), four stages, as TF32's.
//  - The scales: per tensor, one factor a(0) b(0); outer, a(i) for row i of C and b(j) for column
//    j. Either multiplies the FP32 accumulators once a tile, after its last slab: the product of
//    scaled operands is the scaled product, since the scales do not vary along k.
//  - Each tile's sums stay in the wgmma accumulators over the whole of k, whose FP8 additions
//    keep fewer bits than FP32 (as cuBLASLt's FAST_ACCUM; the lesson has the error this costs).
// Preconditions: A and B as TMA reads them (tma_addressable); op(A) = T, op(B) = N.
#pragma once

#include "kernels/hopper/06_tma_store.cuh"
#include "kernels/hopper/fp8_operands.hpp"

namespace gemmkit::hopper {

struct Fp8Cfg : TmaStoreCfg {
    static constexpr int BK = 128;  // 128 bytes of FP8 k a row; 48 KiB a stage, 4 stages
};

// The scales on the device (problem.hpp, Scaling): a(i) = a[outer ? i : 0], b(j) likewise (the
// mode is one for both); a null pointer is 1.
struct Fp8Scales {
    const float* a;
    const float* b;
    bool outer;

    __device__ float of_a(int row) const { return a == nullptr ? 1.0f : a[outer ? row : 0]; }
    __device__ float of_b(int col) const { return b == nullptr ? 1.0f : b[outer ? col : 0]; }
};

// Block scales (GEMMKIT_SCALE_BLOCK; docs/ladder/fp8.md#block-scales): a(i, kb) = a[kb m + i]
// for row i and the 128 of k of block kb, b(jb, kb) = b[kb n_blocks + jb] for the 128 columns of
// block jb. They vary along k, so they cannot wait for the epilogue: step 2 multiplies each
// slab's sums by them as it adds the sums into the tile (a slab is one block of k, BK = 128).
struct Fp8BlockScales {
    const float* a;  // null: 1
    const float* b;  // null: 1
    int m, n, n_blocks;
    bool on;  // else every factor is 1 (per-tensor and outer scales wait for the epilogue)

    // Slab ks's factors: of A for rows row and row + 8 (fa), of B for the kParts parts of
    // kPartCols columns from col0 (fb), each part inside one block of B. Past C's edge (sums of
    // TMA's zero fill) 0, and nothing is read there.
    template <int kParts, int kPartCols>
    __device__ void load(int ks, int row, int col0, float (&fa)[2], float (&fb)[kParts]) const {
        static_assert(kPartCols == 128, "a part of the tile's columns is one block of B's scales");
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = row + 8 * h;
            fa[h] = !on || a == nullptr ? 1.0f : r < m ? __ldg(a + int64_t{ks} * m + r) : 0.0f;
        }
#pragma unroll
        for (int p = 0; p < kParts; ++p) {
            const int c = col0 + p * kPartCols;
            fb[p] = !on || b == nullptr ? 1.0f : c < n ? __ldg(b + int64_t{ks} * n_blocks + c / 128) : 0.0f;
        }
    }
};

// Step 6's epilogue on accumulators scaled first. A thread's accumulators of a warpgroup tile
// lie on rows row0 + 16 w + l / 4 + 8 h and columns col0 + 8 j + 2 (l % 4) + c for
// acc[4 j + 2 h + c] (ptx/wgmma.cuh): two rows and N / 4 columns of C.
template <class TC>
struct ScaledEpilogue {
    TmaStoreEpilogue<TC> inner;
    Fp8Scales scales;
    Fp8BlockScales blocks;  // step 2's, applied as the sums are promoted (cluster_pipeline.cuh)

    template <int kAccs>
    __device__ void store(const float (&acc)[kAccs], uint32_t staging, int slice, int z, int row0, int col0) const {
        // The accumulators are dead once stored (the next tile's first wgmma overwrites them,
        // scale-d = 0), so they are scaled in place rather than copied: a copy would hold
        // another kAccs registers across the store.
        float(&scaled)[kAccs] = const_cast<float(&)[kAccs]>(acc);
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
        const int row = row0 + 16 * warp + lane / 4, col = col0 + 2 * (lane % 4);
        const OutputArgs<TC>& out = inner.out;
        // Rows and columns past C's edge hold sums of TMA's zero fill, never stored: scale 0.
        const float a[2] = {row < out.m ? scales.of_a(row) : 0.0f, row + 8 < out.m ? scales.of_a(row + 8) : 0.0f};
#pragma unroll
        for (int j = 0; j < kAccs / 4; ++j) {
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int cj = col + 8 * j + c;
                const float b = cj < out.n ? scales.of_b(cj) : 0.0f;
                scaled[4 * j + c] *= a[0] * b;
                scaled[4 * j + 2 + c] *= a[1] * b;
            }
        }
        inner.store(acc, staging, slice, z, row0, col0);
    }
    __device__ void finish(uint32_t staging, int slice) const { inner.finish(staging, slice); }
};

// FP8 step 2 (fp8.02_promoted; docs/ladder/fp8.md#step-02): step 1 with each slab's sums moved
// into FP32 registers, 128 of k at a time (promotes_sums, cluster_pipeline.cuh), as cuBLASLt
// does by default. The same 128 x 256 tiles, their slab's wgmmas in two parts of 128 columns:
// 128 accumulators a thread for the tile and 64 for a part's sums. (128 x 128 tiles with a whole
// second set ran at 0.65x cuBLASLt, their operands' bytes from L2 the limit.)
struct Fp8PromotedCfg : Fp8Cfg {
    static constexpr bool kPromote = true;
    static constexpr int kPromoteParts = 2;
};

// T: Fp8Operands<A is E5M2, B is E5M2>; TC: C's type (float, half, bf16); Cfg: Fp8Cfg (step 1)
// or Fp8PromotedCfg (step 2).
template <class T, class TC, class Cfg>
__global__ void GEMMKIT_CLUSTER_DIMS(Cfg::kCluster, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    fp8_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               const __grid_constant__ CUtensorMap map_c, OutputArgs<TC> out, Fp8Scales scales, Fp8BlockScales blocks) {
#if GEMMKIT_HOPPER_CODE
    cluster_multicast_body<Cfg, T, TC, true, false>(
        &map_a, &map_b, out, ScaledEpilogue<TC>{TmaStoreEpilogue<TC>{out, &map_c}, scales, blocks},
        whole_tiles<Cfg>(out));
#else
    __trap();  // an image without sm_90a code (ptx/arch.cuh): never launched
#endif
}

}  // namespace gemmkit::hopper
