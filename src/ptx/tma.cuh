// TMA, the bulk tensor copy engine (sm_90): one thread asks for a whole 2-D box of a tensor
// described by a CUtensorMap; the engine writes it to shared memory (swizzled as the map says,
// out-of-bounds elements zero-filled) and counts the bytes down on an mbarrier.
// PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk.tensor" and
// "prefetch.tensormap"; the maps are encoded on the host (kernels/hopper/tensor_map.hpp).
#pragma once

#include <cstdint>

#include <cuda.h>

namespace gemmkit::ptx {

// Copies the box whose first element is at coordinates (c0, c1) (c0 the contiguous dimension)
// into shared memory at `dst`, completing `bytes` of `bar`'s transaction count.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int c0, int c1, uint32_t bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
        "[%4];\n" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
        : "memory");
}

// Brings the map (a __grid_constant__ parameter) into the descriptor cache before first use.
__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap* map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

}  // namespace gemmkit::ptx
