#include "common/status.hpp"

#include <cuda_runtime_api.h>

namespace gemmkit {
namespace {
thread_local std::string t_last_error;
}

gemmkit_status fail(gemmkit_status status, std::string message) {
    t_last_error = std::move(message);
    return status;
}

void clear_error() { t_last_error.clear(); }

gemmkit_status fail_cuda(cudaError_t err, const char* what) {
    return fail(GEMMKIT_CUDA_ERROR, std::string(what) + ": " + cudaGetErrorString(err));
}

}  // namespace gemmkit

extern "C" int gemmkit_version(void) { return GEMMKIT_VERSION; }

extern "C" const char* gemmkit_last_error(void) { return gemmkit::t_last_error.c_str(); }

extern "C" const char* gemmkit_status_string(gemmkit_status s) {
    switch (s) {
        case GEMMKIT_SUCCESS: return "GEMMKIT_SUCCESS";
        case GEMMKIT_INVALID_VALUE: return "GEMMKIT_INVALID_VALUE";
        case GEMMKIT_NOT_SUPPORTED: return "GEMMKIT_NOT_SUPPORTED";
        case GEMMKIT_CUDA_ERROR: return "GEMMKIT_CUDA_ERROR";
        case GEMMKIT_ALLOC_FAILED: return "GEMMKIT_ALLOC_FAILED";
        case GEMMKIT_UNKNOWN_KERNEL: return "GEMMKIT_UNKNOWN_KERNEL";
    }
    return "GEMMKIT_<unknown status>";
}
