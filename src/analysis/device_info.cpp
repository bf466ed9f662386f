#include "analysis/device_info.hpp"

#include <cstdio>

#include <cuda_runtime_api.h>

namespace gemmkit::analysis {

bool query_device_info(DeviceInfo* out, std::string* err) {
    DeviceInfo d;
    cudaError_t e = cudaGetDevice(&d.ordinal);
    cudaDeviceProp prop{};
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, d.ordinal);
    if (e != cudaSuccess) {
        cudaGetLastError();
        *err = std::string("no CUDA device: ") + cudaGetErrorString(e);
        return false;
    }
    d.name = prop.name;
    d.sm = 10 * prop.major + prop.minor;
    d.sm_count = prop.multiProcessorCount;
    d.l2_bytes = prop.l2CacheSize;
    d.global_mem_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    d.smem_per_sm = static_cast<int64_t>(prop.sharedMemPerMultiprocessor);
    d.bus_width_bits = prop.memoryBusWidth;
    // Clock rates left cudaDeviceProp in CUDA 13; the attributes remain.
    cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, d.ordinal);
    cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, d.ordinal);
    cudaDriverGetVersion(&d.driver_version);
    cudaRuntimeGetVersion(&d.runtime_version);
    *out = d;
    return true;
}

Peaks theoretical_peaks(const DeviceInfo& d) {
    // FLOPs per clock per SM (an FMA counts 2), dense, from NVIDIA's architecture whitepapers.
    struct Row {
        int sm;
        double fp32, fp64, fp64_tensor, tf32_tensor, fp16_tensor;
    };
    static constexpr Row kRows[] = {
        {70, 128, 64, 0, 0, 1024},         // V100
        {80, 128, 64, 128, 1024, 2048},    // A100
        {86, 256, 4, 0, 512, 1024},        // GA10x (professional parts; GeForce halve FP32-accumulate)
        {89, 256, 4, 0, 512, 1024},        // AD10x (likewise)
        {90, 256, 128, 256, 2048, 4096},   // H100 / H200
    };
    Peaks p;
    const double per_sm_clock = static_cast<double>(d.sm_count) * d.clock_khz * 1e3;
    for (const Row& r : kRows) {
        if (r.sm != d.sm) continue;
        p.fp32 = r.fp32 * per_sm_clock;
        p.fp64 = r.fp64 * per_sm_clock;
        p.fp64_tensor = r.fp64_tensor * per_sm_clock;
        p.tf32_tensor = r.tf32_tensor * per_sm_clock;
        p.fp16_tensor = r.fp16_tensor * per_sm_clock;
    }
    // Double data rate: two transfers per memory clock, bus width in bits.
    p.dram_bandwidth = 2.0 * d.mem_clock_khz * 1e3 * d.bus_width_bits / 8.0;
    return p;
}

std::string one_line(const DeviceInfo& d) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s, sm_%d, %d SMs, %d MHz, driver %d.%d, runtime %d.%d", d.name.c_str(), d.sm,
                  d.sm_count, d.clock_khz / 1000, d.driver_version / 1000, d.driver_version % 1000 / 10,
                  d.runtime_version / 1000, d.runtime_version % 1000 / 10);
    return buf;
}

}  // namespace gemmkit::analysis
