// A device-to-device copy, y = x, with stream_kernel.cuh's loop: the same float4 grid-stride
// kernel as SAXPY minus the load of y and the FMA, 8 bytes of traffic per float. It is timed
// beside cudaMemcpyAsync to show whether the driver's copy leaves bandwidth on the table.
#pragma once

#include "bandwidth/stream_kernel.cuh"

namespace gemmkit::bandwidth {

struct CopyOp {
    static constexpr bool kReadsY = false;  // y is only written, so the loop never loads it
    __device__ float operator()(float x, float) const { return x; }
};

}  // namespace gemmkit::bandwidth
