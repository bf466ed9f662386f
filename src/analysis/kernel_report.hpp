// What the compiler gave a kernel, read back from the runtime (needs a device).
#pragma once

#include <cstddef>
#include <string>

#include "registry.hpp"

namespace gemmkit::analysis {

struct KernelResources {
    int regs_per_thread = 0;
    size_t static_smem = 0;
    size_t dynamic_smem = 0;
    size_t local_bytes = 0;  // per thread; non-zero means spills or a stack array
    int max_threads = 0;     // the most threads per block it can launch with
};

// False (and *err) when no device is present or the query fails.
bool kernel_resources(const KernelInfo& info, KernelResources* out, std::string* err);

}  // namespace gemmkit::analysis
