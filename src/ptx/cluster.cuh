// Thread-block clusters (sm_90): CTAs launched together on one GPC that can read, write and
// signal each other's shared memory. PTX ISA, "Special Registers: %cluster_ctarank" and
// "Parallel Synchronization and Communication Instructions: barrier.cluster".
#pragma once

#include <cstdint>

namespace gemmkit::ptx {

// This CTA's rank in its cluster.
__device__ __forceinline__ uint32_t cluster_rank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

// Every thread of every CTA of the cluster meets here: writes before it (initialized
// mbarriers, say) are visible to all after it, and no CTA leaves before the others are done
// with its shared memory.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

}  // namespace gemmkit::ptx
