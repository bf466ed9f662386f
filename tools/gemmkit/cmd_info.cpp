#include <cstdio>

#include "analysis/device_info.hpp"
#include "commands.hpp"

namespace gemmkit::cli {

int cmd_info(const Options&) {
    analysis::DeviceInfo d;
    if (!require_device("info", &d)) return 1;
    const analysis::Peaks p = analysis::theoretical_peaks(d);
    auto tflops = [](double flops) { return flops / 1e12; };
    std::printf("device            %s (device %d)\n", d.name.c_str(), d.ordinal);
    std::printf("architecture      sm_%d, %d SMs\n", d.sm, d.sm_count);
    std::printf("SM clock (peak)   %d MHz\n", d.clock_khz / 1000);
    std::printf("memory            %.1f GiB, %d-bit bus at %d MHz, L2 %.1f MiB\n",
                d.global_mem_bytes / 1073741824.0, d.bus_width_bits, d.mem_clock_khz / 1000, d.l2_bytes / 1048576.0);
    std::printf("shared memory/SM  %lld KiB\n", static_cast<long long>(d.smem_per_sm / 1024));
    std::printf("driver / runtime  %d.%d / %d.%d\n", d.driver_version / 1000, d.driver_version % 1000 / 10,
                d.runtime_version / 1000, d.runtime_version % 1000 / 10);
    std::printf("theoretical peaks at the peak clock (dense):\n");
    std::printf("  FP32 (CUDA cores)      %8.1f TFLOP/s\n", tflops(p.fp32));
    std::printf("  FP64 (CUDA cores)      %8.1f TFLOP/s\n", tflops(p.fp64));
    std::printf("  FP64 tensor (DMMA)     %8.1f TFLOP/s\n", tflops(p.fp64_tensor));
    std::printf("  TF32 tensor            %8.1f TFLOP/s\n", tflops(p.tf32_tensor));
    std::printf("  FP16/BF16 tensor       %8.1f TFLOP/s\n", tflops(p.fp16_tensor));
    std::printf("  DRAM bandwidth         %8.1f GB/s\n", p.dram_bandwidth / 1e9);
    if (p.fp32 == 0) std::printf("  (sm_%d is not in the peak table: FLOP peaks shown as 0)\n", d.sm);
    return 0;
}

}  // namespace gemmkit::cli
