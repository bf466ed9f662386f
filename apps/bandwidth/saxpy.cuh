// SAXPY, y = a*x + y, for the bandwidth measurement: 12 bytes of DRAM traffic per 2 FLOPs, so it
// is bound by memory on every GPU; the loop is stream_kernel.cuh's (float4, grid-stride, one wave).
// The seed measured 1300 of 1555 GB/s (83.6%) on an A100; the goal is >= 90% on the H100.
// Measured (H200, commit a4e98fc): 4146 GB/s at 1-4 GiB, 86.1% of the 4814 GB/s theoretical,
// against 88.6% for cudaMemcpy D2D in the same run. Two float4s per thread per trip with
// __ldcs/__stcs measured the same 86.1%: bytes in flight are not what limits it here.
#pragma once

#include "bandwidth/stream_kernel.cuh"

namespace gemmkit::bandwidth {

struct SaxpyOp {
    float a;
    static constexpr bool kReadsY = true;
    // fmaf, not a*x + y: one FFMA with one rounding whatever --fmad says, so the CPU reference
    // (std::fmaf) matches bit for bit.
    __device__ float operator()(float x, float y) const { return fmaf(a, x, y); }
};

}  // namespace gemmkit::bandwidth
