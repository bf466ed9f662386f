// gemmkit_quantize_fp8: the checks (validate_quantize, validate.cpp), then the kernels of
// kernels/fp8/quantize.cu.
#include <utility>

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "device_state.hpp"
#include "kernels/fp8/quantize.hpp"
#include "validate.hpp"

extern "C" gemmkit_status gemmkit_quantize_fp8(cudaStream_t stream, int64_t k, int64_t mn, const void* x,
                                               gemmkit_dtype x_type, int64_t ldx, void* q, gemmkit_dtype q_type,
                                               int64_t ldq, gemmkit_scale_mode mode, float* scales) {
    using namespace gemmkit;
    const QuantizeArgs a{k, mn, x, x_type, ldx, q, q_type, ldq, mode, scales};
    bool nothing = false;
    if (gemmkit_status s = validate_quantize(a, &nothing); s != GEMMKIT_SUCCESS || nothing) {
        if (s == GEMMKIT_SUCCESS) clear_error();
        return s;
    }
    DeviceFacts facts;
    if (gemmkit_status s = current_device_facts(&facts); s != GEMMKIT_SUCCESS) return s;
    if (gemmkit_status s = check_no_pending_error(); s != GEMMKIT_SUCCESS) return s;
    for (const auto& [ptr, name] : {std::pair<const void*, const char*>{x, "x"}, {q, "q"}, {scales, "scales"}})
        if (gemmkit_status s = check_device_pointer(ptr, name); s != GEMMKIT_SUCCESS) return s;
    if (cudaError_t err = launch_quantize_fp8(a, stream); err != cudaSuccess)
        return fail_cuda(err, "gemmkit_quantize_fp8");
    clear_error();
    return GEMMKIT_SUCCESS;
}
