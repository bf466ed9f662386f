// The Hopper steps' tensor-core building block: one slab's wgmmas (Hopper step 1 introduces it,
// docs/ladder/hopper.md#step-06). FP32 inputs take TF32 wgmmas (tf32_mma.cuh), FP8 ones FP8
// wgmmas of k = 32 (fp8.cuh).
#pragma once

#include <type_traits>

#include "kernels/hopper/fp8_operands.hpp"
#include "kernels/hopper/slab.cuh"
#include "kernels/hopper/tf32_mma.cuh"

namespace gemmkit::hopper {

// Issues, as one committed group, the wgmmas that multiply the 64-row slice `slice` of the A
// slab at shared address a by the whole B slab at b (BK / 16 steps of m64nNk16), accumulating
// into acc (or, with accumulate false, overwriting it: a tile's first slab). They run
// asynchronously: the slabs are in use until ptx::wgmma_wait says done. (FP32 inputs: TF32
// wgmmas, tf32_mma.cuh.)
template <class T, class SlabA, class SlabB, class Frags = NoFragments>
__device__ __forceinline__ void mma_slab(float (&acc)[SlabB::MN / 2], uint32_t a, uint32_t b, int slice,
                                         bool accumulate = true, Frags* frags = nullptr, int use = 0) {
    if constexpr (std::is_same_v<T, float>) {
        mma_slab_tf32<SlabA, SlabB>(acc, a, b, slice, accumulate, frags, use);
    } else if constexpr (is_fp8_operands<T>) {
        static_assert(SlabA::kKMajor && SlabB::kKMajor, "FP8 wgmma reads A and B K-major");
        ptx::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < SlabA::BK; kk += 32)
            ptx::wgmma_m64k32_fp8<SlabB::MN, T::kE5M2A, T::kE5M2B>(
                acc, SlabA::descriptor(a, 64 * slice, kk), SlabB::descriptor(b, 0, kk), accumulate || kk > 0);
        ptx::wgmma_commit();
    } else {
        ptx::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < SlabA::BK; kk += 16)
            ptx::wgmma_m64k16<SlabB::MN, T, !SlabA::kKMajor, !SlabB::kKMajor>(
                acc, SlabA::descriptor(a, 64 * slice, kk), SlabB::descriptor(b, 0, kk), accumulate || kk > 0);
        ptx::wgmma_commit();
    }
}

// FP8 step 2's wgmmas (fp8.cuh): the 64-row slice `slice` of the A slab at a times columns
// part * N .. part * N + N - 1 of the B slab at b, N = SlabB::MN / kParts, summed afresh into
// `sums` (the first wgmma overwrites it) as one committed group.
template <class T, class SlabA, class SlabB, int kParts>
__device__ __forceinline__ void mma_slab_columns(float (&sums)[SlabB::MN / kParts / 2], uint32_t a, uint32_t b,
                                                 int slice, int part) {
    static_assert(is_fp8_operands<T> && SlabA::kKMajor && SlabB::kKMajor, "FP8, both operands K-major");
    constexpr int N = SlabB::MN / kParts;
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < SlabA::BK; kk += 32)
        ptx::wgmma_m64k32_fp8<N, T::kE5M2A, T::kE5M2B>(sums, SlabA::descriptor(a, 64 * slice, kk),
                                                      SlabB::descriptor(b, part * N, kk), kk > 0);
    ptx::wgmma_commit();
}

}  // namespace gemmkit::hopper
