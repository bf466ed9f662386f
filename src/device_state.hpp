// What the library remembers about each device: read once, then shared by all threads.
#pragma once

#include <cstdint>

#include "gemmkit/gemmkit.h"

namespace gemmkit {

struct DeviceState {
    int ordinal = -1;
    int sm = 0;          // compute capability as 10 * major + minor (90 for H100)
    int sm_count = 0;
};

// The calling thread's current device. GEMMKIT_CUDA_ERROR when there is none.
gemmkit_status current_device(DeviceState* out);

// The current device's SM count, or `fallback` where it cannot be read (launchers that size
// their grids by it).
inline int64_t sm_count_or(int64_t fallback) {
    DeviceState dev;
    return current_device(&dev) == GEMMKIT_SUCCESS && dev.sm_count > 0 ? dev.sm_count : fallback;
}

}  // namespace gemmkit
