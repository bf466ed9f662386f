// SAXPY, y = a*x + y, for the bandwidth measurement: 12 bytes of DRAM traffic per 2 FLOPs, so it
// is bound by memory on every GPU; the loop is stream_kernel.cuh's (float4, grid-stride, one wave).
// The seed measured 1300 of 1555 GB/s (83.6%) on an A100; the goal is >= 90% on the H100.
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
