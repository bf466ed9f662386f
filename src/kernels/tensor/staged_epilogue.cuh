// The block tile's 16-bit C written through shared memory, for step 05: 16-byte stores of
// whole column pieces instead of one 2-byte store per accumulator.
//
// A lane's mma accumulators lie in two columns of C (2t, 2t + 1) and two rows 8 apart, so no
// two of them are neighbours in column-major memory; store_accumulators writes each alone.
// Here neighbouring lanes (rows g and g + 1, lane ^ 4) swap one value each so that every lane
// holds two vertically adjacent elements (a 4-byte word), the words are written to a
// column-major copy of the tile in shared memory, and the block then copies that to C in
// 16-byte chunks, 32 lanes a column.
#pragma once

#include <cstdint>

#include "kernels/launch_common.cuh"
#include "kernels/tensor/mma_warp.cuh"

namespace gemmkit::tensor {

template <class Cfg, class TC>
struct StagedEpilogue {
    static constexpr bool kApplies = sizeof(TC) == 2;  // FP32 C would need twice the staging
    // One column of the tile, padded by a 16-byte chunk: the 8 columns a warp's word stores
    // touch then start in 8 different bank groups.
    static constexpr int kColBytes = Cfg::BM * static_cast<int>(sizeof(TC)) + 16;
    static constexpr int kBytes = Cfg::BN * kColBytes;
    static constexpr int kChunksPerCol = Cfg::BM * static_cast<int>(sizeof(TC)) / 16;

    // Whether this block's tile can take the staged path: wholly inside C, C's columns 16-byte
    // aligned, and C not read (beta 0: with beta the sum must be rounded once, as the register
    // path does).
    __device__ static bool serves(const TC* C, int64_t ldc, int m_left, int n_left, float beta) {
        return kApplies && beta == 0.0f && m_left >= Cfg::BM && n_left >= Cfg::BN && aligned16<TC>(C, ldc);
    }
    // Whether it serves args's fused epilogue: a bias, but no aux or activation, which
    // store_accumulators applies in its rolled pass (finish_stored).
    template <class T>
    __device__ static bool serves_epilogue(const GemmArgs<T, TC>& args) {
        return !finishes(args.epi);
    }

    // C(m0.., n0..) = alpha * acc + bias for the whole block tile; `staging` (kBytes, shared) must
    // be free, and every thread of the block calls this.
    template <class T>
    __device__ static void store(const float (&acc)[Cfg::MI][Cfg::NI][4], unsigned char* staging,
                                 const GemmArgs<T, TC>& args, int m0, int n0, int wm0, int wn0) {
        TC* const C = args.C;
        const int64_t ldc = args.ldc;
        const float alpha = args.alpha;
        const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, odd = g & 1;
        const EpilogueArgs<TC> epi = args.epilogue();  // once, not a value (docs/epilogues.md#select-late)
        with_reads(0.0f, epi, [&](auto reads) {  // serves() left beta 0: a bias is all it may read
#pragma unroll
            for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                    for (int half = 0; half < 2; ++half) {  // rows g (acc 0, 1) and g + 8 (acc 2, 3)
                        float c0 = alpha * acc[mi][ni][2 * half], c1 = alpha * acc[mi][ni][2 * half + 1];
                        if constexpr (decltype(reads)::value) {  // this lane's row g (+ 8); no aux or activation
                            const float b = bias_of<float>(epi, m0 + wm0 + mi * 16 + 8 * half + g, args.m);
                            c0 += b, c1 += b;
                        }
                        // Even rows keep column 2t and take the odd row's; odd rows keep column 2t + 1.
                        const float other = __shfl_xor_sync(0xffffffffu, odd ? c0 : c1, 4);
                        const uint32_t word = odd ? pack_pair<TC>(other, c1) : pack_pair<TC>(c0, other);
                        const int row = wm0 + mi * 16 + 8 * half + (g & ~1), col = wn0 + ni * 8 + 2 * t + odd;
                        *reinterpret_cast<uint32_t*>(staging + col * kColBytes + row * static_cast<int>(sizeof(TC))) =
                            word;
                    }
        });
        __syncthreads();
        constexpr int kChunks = Cfg::BN * kChunksPerCol;
        static_assert(kChunks % Cfg::kThreads == 0, "every thread copies the same number of chunks");
#pragma unroll 4
        for (int q = threadIdx.x; q < kChunks; q += Cfg::kThreads) {
            const int col = q / kChunksPerCol, chunk = q % kChunksPerCol;
            const uint4 v = *reinterpret_cast<const uint4*>(staging + col * kColBytes + chunk * 16);
            *reinterpret_cast<uint4*>(C + (m0 + chunk * (16 / static_cast<int>(sizeof(TC)))) + (n0 + col) * ldc) = v;
        }
    }
};

}  // namespace gemmkit::tensor
