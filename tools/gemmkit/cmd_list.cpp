#include <cstdio>

#include "analysis/device_info.hpp"
#include "commands.hpp"
#include "registry.hpp"
#include "verify/verify.hpp"

namespace gemmkit::cli {

bool require_device(const char* command, analysis::DeviceInfo* info) {
    analysis::DeviceInfo d;
    std::string err;
    if (analysis::query_device_info(&d, &err)) {
        if (info != nullptr) *info = d;
        return true;
    }
    std::fprintf(stderr, "%s; gemmkit %s needs an NVIDIA GPU, sm_80 or newer.\n", err.c_str(), command);
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
    }
    return 0;
}

}  // namespace gemmkit::cli
