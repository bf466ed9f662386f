// What the library remembers about each device: read once, then shared by all threads.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.h"
#include "plan/device_facts.hpp"

namespace gemmkit {

struct DeviceState {
    int ordinal = -1;
    int sm = 0;          // compute capability as 10 * major + minor (90 for H100)
    int sm_count = 0;
    DeviceFacts facts;   // what a plan needs of it
};

// The calling thread's current device. GEMMKIT_CUDA_ERROR when there is none.
gemmkit_status current_device(DeviceState* out);

// The calling thread's current device's facts (plan/device_facts.hpp), read once a device: the
// only place the library asks the runtime what the plan needs to know.
gemmkit_status current_device_facts(DeviceFacts* out);

// Opts `kernel` in to `smem_bytes` of dynamic shared memory where that is above the default 48
// KiB (cudaFuncAttributeMaxDynamicSharedMemorySize); below it there is nothing to do. Every
// launcher and occupancy query goes through here, so the rule is written once.
cudaError_t opt_in_smem(const void* kernel, int smem_bytes);

// *per_sm = blocks of `kernel` (launched with `threads` threads and `smem_bytes` of dynamic shared
// memory) that one SM of the current device holds at once. Above 48 KiB the kernel is first opted
// in to that much dynamic shared memory (the calculator counts 0 blocks otherwise). The answer
// depends only on the device, the kernel and its launch resources, so the driver is asked once
// for each: the query costs microseconds, the order of a small kernel's own time. On failure no
// CUDA error is left pending for the next launch.
cudaError_t resident_blocks_per_sm(const void* kernel, int threads, int smem_bytes, int* per_sm);

// GEMMKIT_SUCCESS, or GEMMKIT_INVALID_VALUE naming `name` where ptr is not memory the device can
// dereference (ordinary host memory, or unknown to the runtime): it would fault in the kernel.
gemmkit_status check_device_pointer(const void* ptr, const char* name);

// GEMMKIT_SUCCESS, or GEMMKIT_CUDA_ERROR where a CUDA error the caller left is pending: launch
// errors are read with cudaGetLastError() after a launch, which would also return (and clear)
// that one. The entry points refuse to run instead, leaving it pending.
gemmkit_status check_no_pending_error();

}  // namespace gemmkit
