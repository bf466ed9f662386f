// The hand-over of a kStages-deep cp.async ring of K-slabs between the warps of a block, through
// mbarriers instead of a __syncthreads() a slab (FP64 steps 06 and 07).
//
//   full[stage]  completes a phase when every thread's copies of the stage's slab have landed
//                (each thread arrives through cp.async.mbarrier.arrive.noinc);
//   empty[stage] completes a phase when every thread has read the slab (each arrives, with
//                release semantics, after its last read of the stage).
// Slab s is the (s / kStages)-th use of stage s % kStages, so its phases have parity
// (s / kStages) % 2. A warp waits only for the slab it reads next and, before refilling a
// stage, for the slab that stage held kStages slabs earlier: warps drift up to a slab apart, and
// one warp's wait is covered by the other warps on its scheduler instead of idling the SM.
// Equivalent, in what it orders, to a cp.async.wait_group + __syncthreads() before each slab.
// Why every thread arrives on empty[], not lane 0 of each warp after a __syncwarp (8 arrivals
// instead of 256): that chain orders the reads just as well, but compute-sanitizer's racecheck
// does not follow it and reported every refill as a race (with every thread arriving, none),
// and the extra arrivals cost nothing measurable (docs/ladder/fp64.md#lab-racecheck).
#pragma once

#include <cstdint>

#include "kernels/dgemm/dmma_configs.hpp"  // warp_ring_barrier_bytes
#include "ptx/cp_async.cuh"
#include "ptx/mbarrier.cuh"

namespace gemmkit::dgemm {

template <int kStages, int kThreads>
struct WarpRing {
    static constexpr int kBarrierBytes = warp_ring_barrier_bytes(kStages);  // full[kStages], then empty[kStages]
    static_assert(kStages >= 3, "a slab to compute, one in flight, and one that a lagging warp may still read");

    uint32_t full, empty;  // shared addresses of full[0] and empty[0]

    // Every thread of the block constructs it (it ends with a __syncthreads()). `barriers`: the
    // shared address of kBarrierBytes, 8-byte aligned.
    __device__ explicit WarpRing(uint32_t barriers) : full(barriers), empty(barriers + kStages * 8) {
        if (threadIdx.x == 0)
            for (int st = 0; st < kStages; ++st) {
                ptx::mbarrier_init(full + 8 * st, kThreads);
                ptx::mbarrier_init(empty + 8 * st, kThreads);
            }
        ptx::fence_mbarrier_init();
        __syncthreads();
    }

    __device__ static int stage_of(int s) { return s % kStages; }

    // Called by every thread after issuing its copies of slab s (none, past the last slab, is
    // fine): full[] completes once they have landed.
    __device__ void copies_issued(int s) const { ptx::cp_async_mbarrier_arrive_noinc(full + 8 * stage_of(s)); }

    // Until every thread's copies of slab s have landed.
    __device__ void wait_full(int s) const { ptx::mbarrier_wait(full + 8 * stage_of(s), s / kStages % 2); }

    // The calling thread is done reading slab s (its shared loads' values are consumed).
    __device__ void release(int s) const { ptx::mbarrier_arrive(empty + 8 * stage_of(s)); }

    // Before copying slab s into its stage: until every thread has released the slab that stage
    // held before, s - kStages (at once for the first kStages slabs).
    __device__ void wait_empty(int s) const {
        if (s >= kStages) ptx::mbarrier_wait(empty + 8 * stage_of(s), (s / kStages - 1) % 2);
    }
};

}  // namespace gemmkit::dgemm
