#include "analysis/kernel_report.hpp"

#include <cuda_runtime_api.h>

namespace gemmkit::analysis {

bool kernel_resources(const KernelInfo& info, KernelResources* out, std::string* err) {
    cudaFuncAttributes attr{};
    cudaError_t e = cudaFuncGetAttributes(&attr, info.entry());
    if (e != cudaSuccess) {
        cudaGetLastError();
        *err = std::string("cannot read ") + info.name + "'s attributes: " + cudaGetErrorString(e);
        return false;
    }
    out->regs_per_thread = attr.numRegs;
    out->static_smem = attr.sharedSizeBytes;
    out->dynamic_smem = static_cast<size_t>(info.dynamic_smem_bytes);
    out->local_bytes = attr.localSizeBytes;
    out->max_threads = attr.maxThreadsPerBlock;
    return true;
}

}  // namespace gemmkit::analysis
