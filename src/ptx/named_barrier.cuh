// Named barriers: __syncthreads() for a subset of the block (here, one warpgroup), so that
// warpgroups doing different work do not wait for each other. Barrier 0 is __syncthreads()'s.
// PTX ISA, "Parallel Synchronization and Communication Instructions: bar.sync".
#pragma once

namespace gemmkit::ptx {

// Waits until kThreads threads (whole warps) have arrived at barrier `id` (1..15).
template <int kThreads>
__device__ __forceinline__ void named_barrier_sync(int id) {
    static_assert(kThreads % 32 == 0, "whole warps");
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(kThreads) : "memory");
}

}  // namespace gemmkit::ptx
