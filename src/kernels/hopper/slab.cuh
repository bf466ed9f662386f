// One operand's K-slab in shared memory, as TMA writes it with the 128-byte swizzle, and the
// wgmma descriptors that read it back. Every Hopper kernel keeps its operands this way.
//
// The slab holds MN x BK elements of op(X) (MN = BM for A, BN for B) in the direction global
// memory has them contiguous, so any op combination loads with whole boxes:
//  - K-major (op(A) = A^T, op(B) = B): each of the MN rows is BK elements of k, 128 bytes
//    (BK = 64 16-bit or 32 FP32 elements), and one TMA box of BK x MN fills the slab. Eight rows
//    make one 1024-byte swizzle atom; the descriptor's stride-dimension offset steps to the next
//    8 rows (1024 bytes).
//  - MN-major (op(A) = A, op(B) = B^T): blocks of 128 bytes of MN x BK rows of k, one TMA box
//    each, one after another. Within a block the 8 k-rows of an atom are 128 bytes apart; the
//    stride-dimension offset steps 8 k (1024 bytes), the leading-dimension offset steps to the
//    next block (a whole box).
// PTX ISA, "Shared Memory Matrix Layout" (canonical layouts, 128B swizzling).
#pragma once

#include <cstdint>

#include "ptx/arch.cuh"
#include "ptx/cp_async.cuh"  // smem_addr
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"

namespace gemmkit::hopper {

// kKMajorBoxes: how many TMA boxes a K-major slab is loaded in (MN-major slabs always take one
// box per 64 MN elements); 2 lets two CTAs of a cluster each load half (step 5).
template <class T, int MN_, int BK_, bool kKMajor_, int kKMajorBoxes = 1>
struct SwizzledSlab {
    static constexpr int MN = MN_, BK = BK_;
    static constexpr bool kKMajor = kKMajor_;
    static constexpr int kRowElems = 128 / static_cast<int>(sizeof(T));  // one 128-byte swizzled row
    static_assert(!kKMajor || BK == kRowElems, "K-major rows are exactly one 128-byte swizzle span of k");
    // MN-major slabs are whole 128-byte rows of MN; K-major ones whole 8-row atoms (a 16-wide B
    // slab is two: wgmma m64n16, step 10's narrow tiles).
    static_assert((kKMajor ? MN % 8 : MN % 64) == 0 && BK * sizeof(T) % 32 == 0, "whole wgmma tiles (k of 32 bytes)");
    static constexpr int kBytes = MN * BK * static_cast<int>(sizeof(T));
    // TMA boxes: how many fill the slab, the MN extent of each, and its shape (contiguous first).
    static constexpr int kBoxes = kKMajor ? kKMajorBoxes : MN / kRowElems;
    static constexpr int kBoxMN = MN / kBoxes;
    static_assert(kBoxMN * kBoxes == MN && kBoxMN <= 256, "whole boxes of at most 256 rows");
    static constexpr int kBoxRows = kRowElems;
    static constexpr int kBoxCols = kKMajor ? kBoxMN : BK;
    static constexpr int kBoxBytes = kBytes / kBoxes;

    // Asks TMA for box b of the slab whose first element is op(X)(mn0, k0) of matrix z of the
    // map's batch (every map is of rank 3, a batch of one where there is no batch), completing on
    // `bar`; with a cta_mask, the box lands at the same offset in every CTA of the cluster it names.
    __device__ static void load_box(int b, uint32_t dst, const CUtensorMap* map, int mn0, int k0, int z, uint32_t bar,
                                    uint16_t cta_mask = 0) {
        const int mn = mn0 + b * kBoxMN;
        const int c0 = kKMajor ? k0 : mn, c1 = kKMajor ? mn : k0;
        if (cta_mask == 0)
            ptx::tma_load_3d(dst + b * kBoxBytes, map, c0, c1, z, bar);
        else
            ptx::tma_load_3d_multicast(dst + b * kBoxBytes, map, c0, c1, z, bar, cta_mask);
    }

    // The whole slab, into this CTA alone.
    __device__ static void load(uint32_t dst, const CUtensorMap* map, int mn0, int k0, int z, uint32_t bar) {
#pragma unroll
        for (int b = 0; b < kBoxes; ++b) load_box(b, dst, map, mn0, k0, z, bar);
    }

    // Part `part` of `parts` (consecutive boxes) into every CTA of cta_mask. Where the parts
    // cannot be equal (an MN-major slab of 192: three boxes for two CTAs), part p takes boxes
    // p * kBoxes / kParts up to the next part's first.
    template <int kParts>
    __device__ static void load_part_multicast(int part, uint32_t dst, const CUtensorMap* map, int mn0, int k0, int z,
                                               uint32_t bar, uint16_t cta_mask) {
        static_assert(kParts <= kBoxes, "a box at least per part");
        if constexpr (kBoxes % kParts == 0) {
#pragma unroll
            for (int i = 0; i < kBoxes / kParts; ++i)
                load_box(part * (kBoxes / kParts) + i, dst, map, mn0, k0, z, bar, cta_mask);
        } else {
            for (int b = part * kBoxes / kParts; b < (part + 1) * kBoxes / kParts; ++b)
                load_box(b, dst, map, mn0, k0, z, bar, cta_mask);
        }
    }

    // Byte offset of element (mn, k) in an MN-major slab: its box, its 128-byte row k, and its
    // 16-byte chunk, XORed with k % 8 by the swizzle (rows of a box are its k; a box is a whole
    // number of 1024-byte atoms, so k % 8 is the row's place in its atom). For reading A into
    // registers (TF32, step 7).
    __device__ static uint32_t mn_major_offset(int mn, int k) {
        static_assert(!kKMajor, "MN-major slabs");
        constexpr int kElem = static_cast<int>(sizeof(T));
        const int in_row = mn % kRowElems * kElem;  // byte within the 128-byte row
        return mn / kRowElems * kBoxBytes + k * 128 + ((in_row / 16) ^ (k % 8)) * 16 + in_row % 16;
    }

    // Descriptor of the sub-tile starting at MN offset `mn` (a multiple of 64) and k offset `k`
    // (a multiple of one wgmma's k: 32 bytes) of the slab at shared address `base` (1024-byte
    // aligned).
    __device__ static uint64_t descriptor(uint32_t base, int mn, int k) {
        constexpr int kElem = static_cast<int>(sizeof(T));
        if constexpr (kKMajor)
            return ptx::smem_descriptor_sw128(base + mn * 128 + k * kElem, 16, 1024);  // lead offset unused
        else
            return ptx::smem_descriptor_sw128(base + mn / kRowElems * kBoxBytes + k * 128, kBoxBytes, 1024);
    }
};

// op N: A stored m x k with m contiguous (MN-major); op T: k contiguous (K-major). B the other
// way round: op N is k contiguous.
template <class T, class Cfg, bool kTransA>
using SlabOfA = SwizzledSlab<T, Cfg::BM, Cfg::BK, kTransA>;
template <class T, class Cfg, bool kTransB>
using SlabOfB = SwizzledSlab<T, Cfg::BN, Cfg::BK, !kTransB>;

// Shared addresses of TMA slabs must be 1024-byte aligned (the swizzle atom): the dynamic
// shared window is rounded up, and launches ask for this much slack.
inline constexpr int kSlabAlignment = 1024;

__device__ __forceinline__ uint32_t align_slabs(uint32_t smem_base) {
    return (smem_base + kSlabAlignment - 1) & ~uint32_t{kSlabAlignment - 1};
}

// Dynamic shared bytes of a ring of kStages A and B slabs with up to two mbarriers a stage.
template <class SlabA, class SlabB, int kStages>
constexpr int ring_smem_bytes() {
    return kSlabAlignment + kStages * (SlabA::kBytes + SlabB::kBytes) + kStages * 2 * 8;
}

}  // namespace gemmkit::hopper
