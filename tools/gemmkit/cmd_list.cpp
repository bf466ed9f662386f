#include <cstdio>

#include <cuda_runtime_api.h>

#include "analysis/device_info.hpp"
#include "commands.hpp"
#include "registry.hpp"
#include "verify/verify.hpp"

namespace gemmkit::cli {

bool find_device(analysis::DeviceInfo* info, std::string* why) {
    std::string query_err;
    if (analysis::query_device_info(info, &query_err)) return true;
    // query_device_info passes on cudart's words, which for a machine without a driver are "CUDA
    // driver version is insufficient for CUDA runtime version": ask what is missing.
    int count = 0, driver = 0, runtime = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count == 0) e = cudaErrorNoDevice;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaGetLastError();
    *why = e == cudaSuccess ? query_err  // a device is there; the query failed for its own reason
                            : no_device_reason(e, cudaGetErrorString(e), driver, runtime);
    return false;
}

bool require_device(const char* command, analysis::DeviceInfo* info) {
    analysis::DeviceInfo d;
    std::string why;
    if (find_device(&d, &why)) {
        if (info != nullptr) *info = d;
        return true;
    }
    std::fprintf(stderr, "gemmkit %s needs an NVIDIA GPU (sm_80 or newer); none is usable here: %s.\n", command,
                 why.c_str());
    return false;
}

std::vector<const KernelInfo*> selected_kernels(const Options& o) {
    std::vector<const KernelInfo*> out;
    for (const KernelInfo& info : registry())
        if (matches_any(o.kernels, info.name)) out.push_back(&info);
    return out;
}

int cmd_list(const Options& o) {
    const auto kernels = selected_kernels(o);
    if (kernels.empty()) {
        std::fprintf(stderr, "gemmkit list: no kernel matches '%s'\n", o.kernels.c_str());
        return 1;
    }
    std::printf("%-32s %-5s %-6s %-6s  %s\n", "kernel", "step", "types", "min_sm", "technique / full speed for");
    for (const KernelInfo* k : kernels) {
        // The types a call needs (C of the operands' type; FP16/BF16 also take FP32 C): "tf32", not "f32".
        const std::string types = verify::types_name(verify::types_of(*k, false));
        std::printf("%-32s %-5d %-6s sm_%-3d  %s\n", k->name, k->level, types.c_str(), k->min_sm, k->description);
        std::printf("%-32s %-5s %-6s %-6s  full speed: %s\n", "", "", "", "", k->fast_path);
        if (k->batches) std::printf("%-32s %-5s %-6s %-6s  batches: one launch a batch\n", "", "", "", "");
        if (k->groups) std::printf("%-32s %-5s %-6s %-6s  groups: grouped calls only (gemmkit_gemm_grouped_ex)\n", "", "", "", "");
    }
    return 0;
}

}  // namespace gemmkit::cli
