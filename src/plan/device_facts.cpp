#include "plan/device_facts.hpp"

namespace gemmkit {
namespace {

// H100 SXM5 and H200 SXM: 132 SMs of 228 KiB shared memory (227 KiB a block), 50 MiB of L2
// (NVIDIA's Hopper tuning guide and datasheets; `gemmkit info` prints the same for a live device).
DeviceFacts hopper_sxm(const char* name) {
    DeviceFacts d;
    d.name = name;
    d.sm = 90;
    d.sm_count = 132;
    d.smem_per_sm = 228 * 1024;
    d.smem_per_block = 227 * 1024;
    d.l2_bytes = int64_t{50} * 1024 * 1024;
    d.clusters = true;
    d.hopper_code = true;
    return d;
}

}  // namespace

std::vector<std::string> builtin_device_names() { return {"h100", "h200"}; }

bool builtin_device_facts(const std::string& name, DeviceFacts* out) {
    if (name == "h100") {
        *out = hopper_sxm("NVIDIA H100 80GB HBM3 (built-in facts)");
        return true;
    }
    if (name == "h200") {
        *out = hopper_sxm("NVIDIA H200 (built-in facts)");
        return true;
    }
    return false;
}

}  // namespace gemmkit
