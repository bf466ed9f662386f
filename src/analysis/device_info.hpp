// What `gemmkit info` and the bench header print, and the theoretical peaks they compare to.
#pragma once

#include <cstdint>
#include <string>

namespace gemmkit::analysis {

struct DeviceInfo {
    std::string name;
    int ordinal = 0;
    int sm = 0;               // 10 * major + minor
    int sm_count = 0;
    int clock_khz = 0;        // peak SM clock
    int mem_clock_khz = 0;    // peak memory clock
    int bus_width_bits = 0;
    int64_t l2_bytes = 0;
    int64_t global_mem_bytes = 0;
    int64_t smem_per_sm = 0;
    int driver_version = 0;   // 13000 = 13.0
    int runtime_version = 0;
};

// Reads the current device. False (and *err) when there is none.
bool query_device_info(DeviceInfo* out, std::string* err);

// Theoretical peaks at the peak clock, in FLOP/s and bytes/s. Zero where the
// architecture has no such unit or is not tabulated.
struct Peaks {
    double fp32 = 0;         // CUDA cores, FMA = 2 FLOPs
    double fp64 = 0;         // CUDA cores
    double fp64_tensor = 0;  // DMMA
    double tf32_tensor = 0;  // dense
    double fp16_tensor = 0;  // dense, FP32 accumulate (BF16 the same)
    double dram_bandwidth = 0;  // 2 transfers per memory clock x bus width
};
Peaks theoretical_peaks(const DeviceInfo& d);

// "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 1980 MHz, driver 13.0, runtime 13.0"
std::string one_line(const DeviceInfo& d);

}  // namespace gemmkit::analysis
