// mbarrier: a shared-memory barrier object that counts thread arrivals and, for the bulk tensor
// copy engine, transferred bytes (sm_90). A phase completes when both counts reach zero; waiters
// name the phase they wait for by its parity.
// PTX ISA, "Parallel Synchronization and Communication Instructions: mbarrier" (mbarrier.init,
// mbarrier.arrive, mbarrier.expect_tx, mbarrier.try_wait), and "membar/fence"
// (fence.mbarrier_init).
#pragma once

#include <cstdint>

namespace gemmkit::ptx {

// Sets the barrier (a shared address of 8 aligned bytes) to expect `arrivals` arrivals a phase.
__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}

// Makes initialized barriers visible to the copy engine; a __syncthreads() follows it.
__device__ __forceinline__ void fence_mbarrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival.
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// One arrival that also adds `bytes` to the bytes this phase waits for (the copies that
// complete on this barrier then count them down).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// Blocks until the phase with this parity has completed. A fresh barrier is in phase 0, so
// waiting for parity 1 (the phase "before" it) returns at once: a producer starts that way
// on barriers that say "slot free".
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

// One arrival on the barrier at shared offset `bar` of the cluster's CTA of rank `cta` (this
// CTA included). Release at CTA scope only: the arrival says "done reading", and what was read
// (by wgmma, already complete) needs no publishing. Cluster scope would put a MEMBAR before
// every arrival, which made step 5 far slower (docs/ladder/hopper.md#lab-steps-06-14).
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t bar, uint32_t cta) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(bar), "r"(cta));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
}

}  // namespace gemmkit::ptx
