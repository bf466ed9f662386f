// One slab's wgmmas with TF32 inputs (step 7). TF32 wgmma has no transpose bits: it reads B,
// and A when A comes from shared memory, K-major only.
//  - A K-major (op T): both operands by descriptor, as the 16-bit steps do.
//  - A MN-major (op N, the common case): each thread loads its A fragments from the swizzled
//    slab into registers (LDS.32), and wgmma takes A from there. A warp's 32 loads of one
//    fragment register touch 16 distinct banks (2-way conflicts); per slab that is 16 loads a
//    thread against four m64n256k8 wgmmas. Alternate slabs use two sets of fragment registers
//    (Tf32FragmentSets), so a slab's loads do not wait for the last slab's wgmmas.
// B MN-major (op T) is not read here: the launcher copies B K-major first (launch.cuh).
#pragma once

#include <type_traits>

#include "ptx/wgmma.cuh"

namespace gemmkit::hopper {

// Thread's A fragment (ptx::wgmma_m64k8_tf32) of k step kk of rows 64 * slice .. + 63 of
// the MN-major A slab at shared address a.
template <class SlabA>
__device__ __forceinline__ void load_a_fragment_tf32(uint32_t (&frag)[4], uint32_t a, int slice, int kk) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
    const int row = 64 * slice + 16 * warp + lane / 4, k = kk + lane % 4;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t addr = a + SlabA::mn_major_offset(row + 8 * (i % 2), k + 4 * (i / 2));
        asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(frag[i]) : "r"(addr));
    }
}

// A's fragments (op N) in two sets, for alternate uses of the ring. A wgmma reads its register
// fragments asynchronously, until a wgmma_wait covers it, and ptxas does not know that: left to
// itself it loads the next slab's fragments into the registers the last slab's wgmmas may still
// be reading (seen in the SASS). With two sets, a slab loads into the set of the slab before
// last, whose wgmmas are done (the consumer loop waits down to one group in flight after each
// slab), and keeps the other set alive past its own wgmmas so that the two never share registers.
struct NoFragments {};
template <class SlabA>
struct Tf32FragmentSets {
    uint32_t set[2][SlabA::BK / 8][4];
};
// What the consumer keeps across slabs: the two sets for TF32 with A of op N, else nothing.
template <class T, class SlabA>
using SlabFragments =
    std::conditional_t<std::is_same_v<T, float> && !SlabA::kKMajor, Tf32FragmentSets<SlabA>, NoFragments>;

// Tells the compiler the registers are read and rewritten here (no instruction): they stay live,
// in registers of their own, up to this point.
template <int kN>
__device__ __forceinline__ void keep_in_registers(uint32_t (&regs)[kN]) {
#pragma unroll
    for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(regs[i]));
}

// One slab's wgmmas with A from fragment set kSet, committed as one group.
template <int kSet, class SlabA, class SlabB>
__device__ __forceinline__ void mma_slab_tf32_from_set(float (&acc)[SlabB::MN / 2], Tf32FragmentSets<SlabA>& frags,
                                                       uint32_t a, uint32_t b, int slice, bool accumulate) {
    constexpr int kSteps = SlabA::BK / 8;
    auto& frag = frags.set[kSet];
#pragma unroll
    for (int s = 0; s < kSteps; ++s) load_a_fragment_tf32<SlabA>(frag[s], a, slice, 8 * s);
    ptx::wgmma_fence();  // the fragments are written before the wgmmas read them
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
        ptx::wgmma_m64k8_tf32<SlabB::MN>(acc, frag[s], SlabB::descriptor(b, 0, 8 * s), accumulate || s > 0);
    // Committed here, not after the caller's branch on the set: ptxas closes a group that ends
    // at a join with an extra wgmma, whose wait then covered this slab's
    // (docs/ladder/hopper.md#lab-tf32-fragment-sets).
    ptx::wgmma_commit();
#pragma unroll
    for (int s = 0; s < kSteps; ++s) keep_in_registers(frags.set[kSet ^ 1][s]);  // the last slab's, in flight
}

// The TF32 counterpart of mma_slab (01_wgmma_tma.cuh): one committed group of BK / 8 wgmmas.
// `use` counts the ring's uses; with A of op N, `frags` holds the fragment sets.
template <class SlabA, class SlabB, class Frags>
__device__ __forceinline__ void mma_slab_tf32(float (&acc)[SlabB::MN / 2], uint32_t a, uint32_t b, int slice,
                                              bool accumulate, Frags* frags, int use) {
    static_assert(SlabB::kKMajor, "TF32 wgmma reads B K-major");
    constexpr int kSteps = SlabA::BK / 8;
    if constexpr (SlabA::kKMajor) {
        ptx::wgmma_fence();
#pragma unroll
        for (int s = 0; s < kSteps; ++s)
            ptx::wgmma_m64k8_tf32<SlabB::MN>(acc, SlabA::descriptor(a, 64 * slice, 8 * s), SlabB::descriptor(b, 0, 8 * s),
                                      accumulate || s > 0);
        ptx::wgmma_commit();
    } else {
        static_assert(std::is_same_v<Frags, Tf32FragmentSets<SlabA>>, "A of op N needs the two fragment sets");
        if (use % 2 == 0)
            mma_slab_tf32_from_set<0, SlabA, SlabB>(acc, *frags, a, b, slice, accumulate);
        else
            mma_slab_tf32_from_set<1, SlabA, SlabB>(acc, *frags, a, b, slice, accumulate);
    }
}

}  // namespace gemmkit::hopper
