// cp.async: asynchronous global -> shared copies that bypass registers (sm_80+).
// PTX ISA, "Data Movement and Conversion Instructions: cp.async", cp.async.commit_group,
// cp.async.wait_group, cp.async.mbarrier.arrive.
#pragma once

#include <cstdint>

namespace gemmkit::ptx {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Copies 16 bytes, or zero-fills all 16 when !valid (src-size 0: nothing is read).
// .cg caches in L2 only: each element is used once per block, from shared memory.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(valid ? 16 : 0));
}

// Copies the first src_bytes (0..16) of a 16-byte chunk and zero-fills the rest: a chunk that
// straddles the matrix edge reads only its inside part. dst is a shared address (smem_addr).
__device__ __forceinline__ void cp_async_16_partial_at(uint32_t dst, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

// Copies the first src_bytes (0 or 8) of an 8-byte element and zero-fills the rest: the copy for
// operands only 8-byte aligned. (.ca: the 8-byte form has no L2-only variant; the neighbouring
// 8-byte copy of the same line then hits L1.)
__device__ __forceinline__ void cp_async_8_partial_at(uint32_t dst, const void* src, int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

// Copies 4 bytes, or writes a zero when !valid. Lets a copy land anywhere in shared
// memory, e.g. transposed. (.ca: the 4-byte form has no L2-only variant.)
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, bool valid) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(valid ? 4 : 0));
}

// Closes the group of copies this thread issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Arrives on the mbarrier at shared address `bar` once all of this thread's earlier cp.async
// copies have landed: a ring of cp.async stages without commit/wait groups. .noinc: the arrival
// is one of those the barrier was initialized to expect (mbarrier_init's count).
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc(uint32_t bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

}  // namespace gemmkit::ptx
