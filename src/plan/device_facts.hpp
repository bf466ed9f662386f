// What a plan knows of the GPU it plans for. The plan reads nothing else about the device: the
// library fills these once from the runtime (current_device_facts, device_state.hpp), and
// `gemmkit plan --device h100|h200` takes them from the built-in table, with no GPU at all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmkit {

struct DeviceFacts {
    std::string name;
    int sm = 0;              // compute capability as 10 * major + minor (90 for H100)
    int sm_count = 0;        // streaming multiprocessors
    int smem_per_sm = 0;     // bytes of shared memory an SM holds
    int smem_per_block = 0;  // bytes of dynamic shared memory a block may opt in to
    int64_t l2_bytes = 0;
    bool clusters = false;     // thread-block clusters (sm_90 and on)
    bool hopper_code = false;  // the library's sm_90a kernels (wgmma, TMA) run on this device
};

// The built-in devices, by name ("h100", "h200"); false for an unknown name.
bool builtin_device_facts(const std::string& name, DeviceFacts* out);
std::vector<std::string> builtin_device_names();

}  // namespace gemmkit
