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

// A cluster barrier in two halves. Every thread of the cluster arrives once; cluster_wait
// returns once all have. The arrival is relaxed: it orders nothing by itself, but barriers
// initialized before it and fenced with fence_mbarrier_init (mbarrier.cuh) are ready for any
// thread of the cluster after its cluster_wait. Not .aligned: a thread may call them on its
// own, apart from the rest of its warp.
__device__ __forceinline__ void cluster_arrive_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
    asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}

}  // namespace gemmkit::ptx
