// TMA, the bulk tensor copy engine (sm_90): one thread asks for a whole 2-D box of one matrix of
// a tensor described by a CUtensorMap of rank 3 (a batch of matrices); the engine writes it to
// shared memory (swizzled as the map says, out-of-bounds elements zero-filled) and counts the
// bytes down on an mbarrier.
// The engine also stores boxes from shared memory back to global memory (TMA store).
// PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk.tensor",
// "cp.async.bulk.commit_group", "cp.async.bulk.wait_group", "prefetch.tensormap"; "membar/fence"
// for fence.proxy.async; the maps are encoded on the host (kernels/hopper/tensor_map.hpp).
#pragma once

#include <cstdint>

#include <cuda.h>

namespace gemmkit::ptx {

// Copies the box whose first element is at coordinates (c0, c1) of matrix c2 (c0 the contiguous
// dimension; every map is of rank 3, a batch of one where there is no batch) into shared memory
// at `dst`, completing `bytes` of `bar`'s transaction count.
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap* map, int c0, int c1, int c2,
                                           uint32_t bar) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5];\n" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
        : "memory");
}

// The same box, written at offset `dst` of every CTA of the cluster named in cta_mask (bit r:
// the CTA of rank r), completing on the mbarrier at offset `bar` of each.
__device__ __forceinline__ void tma_load_3d_multicast(uint32_t dst, const CUtensorMap* map, int c0, int c1, int c2,
                                                      uint32_t bar, uint16_t cta_mask) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], "
        "[%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(cta_mask)
        : "memory");
}

// Writes the box at shared address `src` (laid out as the map's swizzle says) to the tensor at
// (c0, c1, c2) of a map of rank 3; elements outside the tensor are not written. Joins this
// thread's bulk group.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, int c0, int c1, int c2, uint32_t src) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(c2), "r"(src)
                 : "memory");
}

// Closes this thread's group of bulk stores.
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

// Waits until at most kPending of this thread's bulk groups still read their shared source
// (the buffer may then be rewritten; the global writes may still be under way).
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}

// Waits until at most kPending of this thread's bulk groups are unfinished (writes done).
template <int kPending>
__device__ __forceinline__ void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Makes this thread's ordinary shared-memory writes visible to the copy engine (the async
// proxy), before a barrier after which one thread starts a TMA store of them.
__device__ __forceinline__ void fence_proxy_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Brings the map (a __grid_constant__ parameter) into the descriptor cache before first use.
__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap* map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

}  // namespace gemmkit::ptx
