// The bandwidth ops as host code calls them (the kernels live in saxpy.cu and copy.cu): one
// argument block, a launch per op, and the grid cap each kernel wants on this device.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "bandwidth/bandwidth.hpp"

namespace gemmkit::bandwidth {

struct StreamArgs {
    int64_t n = 0;            // floats
    float a = kSaxpyAlpha;    // SAXPY only
    const float* x = nullptr;  // device, n floats
    float* y = nullptr;        // device, n floats, not overlapping x
    int max_blocks = 1;        // kernels only: the grid cap, from full_wave_blocks
};

// y = a*x + y. Returns the launch error.
cudaError_t launch_saxpy(const StreamArgs& args, cudaStream_t stream);
cudaError_t saxpy_full_wave(int* blocks);

// y = x by the float4 copy kernel. Returns the launch error.
cudaError_t launch_copy(const StreamArgs& args, cudaStream_t stream);
cudaError_t copy_full_wave(int* blocks);

// y = x by cudaMemcpyAsync, device to device: on one GPU the driver runs its own copy kernel.
cudaError_t memcpy_copy(const StreamArgs& args, cudaStream_t stream);

inline cudaError_t launch_op(Op op, const StreamArgs& args, cudaStream_t stream) {
    switch (op) {
        case Op::kSaxpy: return launch_saxpy(args, stream);
        case Op::kCopyKernel: return launch_copy(args, stream);
        case Op::kCopyMemcpy: return memcpy_copy(args, stream);
    }
    return cudaErrorInvalidValue;
}

// The max_blocks for op on the current device: one full wave of its kernel (1 for memcpy,
// which ignores it).
inline cudaError_t full_wave_blocks(Op op, int* blocks) {
    switch (op) {
        case Op::kSaxpy: return saxpy_full_wave(blocks);
        case Op::kCopyKernel: return copy_full_wave(blocks);
        case Op::kCopyMemcpy: return *blocks = 1, cudaSuccess;
    }
    return cudaErrorInvalidValue;
}

}  // namespace gemmkit::bandwidth
