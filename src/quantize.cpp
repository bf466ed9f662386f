// gemmkit_quantize_fp8 and gemmkit_quantize_fp8_blocks: the checks (validate_quantize and
// validate_quantize_blocks, validate.cpp), then the kernels of kernels/fp8/quantize.cu.
#include <utility>

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "device_state.hpp"
#include "kernels/fp8/quantize.hpp"
#include "validate.hpp"

namespace gemmkit {
namespace {

// One call: its argument checks (`validate`), the device's and the pointers', then the kernels;
// CUDA errors come back naming `entry`.
gemmkit_status quantize(const QuantizeArgs& a, gemmkit_status (*validate)(const QuantizeArgs&, bool*),
                        cudaStream_t stream, const char* entry) {
    bool nothing = false;
    if (gemmkit_status s = validate(a, &nothing); s != GEMMKIT_SUCCESS || nothing) {
        if (s == GEMMKIT_SUCCESS) clear_error();
        return s;
    }
    DeviceFacts facts;
    if (gemmkit_status s = current_device_facts(&facts); s != GEMMKIT_SUCCESS) return s;
    if (gemmkit_status s = check_no_pending_error(); s != GEMMKIT_SUCCESS) return s;
    for (const auto& [ptr, name] : {std::pair<const void*, const char*>{a.x, "x"}, {a.q, "q"}, {a.scales, "scales"}})
        if (gemmkit_status s = check_device_pointer(ptr, name); s != GEMMKIT_SUCCESS) return s;
    if (cudaError_t err = launch_quantize_fp8(a, stream); err != cudaSuccess) return fail_cuda(err, entry);
    clear_error();
    return GEMMKIT_SUCCESS;
}

}  // namespace
}  // namespace gemmkit

extern "C" gemmkit_status gemmkit_quantize_fp8(cudaStream_t stream, int64_t k, int64_t mn, const void* x,
                                               gemmkit_dtype x_type, int64_t ldx, void* q, gemmkit_dtype q_type,
                                               int64_t ldq, gemmkit_scale_mode mode, float* scales) {
    const gemmkit::QuantizeArgs a{k, mn, x, x_type, ldx, q, q_type, ldq, mode, scales};
    return gemmkit::quantize(a, gemmkit::validate_quantize, stream, "gemmkit_quantize_fp8");
}

extern "C" gemmkit_status gemmkit_quantize_fp8_blocks(cudaStream_t stream, int64_t k, int64_t mn, const void* x,
                                                      gemmkit_dtype x_type, int64_t ldx, void* q, gemmkit_dtype q_type,
                                                      int64_t ldq, int64_t block_mn, float* scales) {
    const gemmkit::QuantizeArgs a{k, mn, x, x_type, ldx, q, q_type, ldq, GEMMKIT_SCALE_BLOCK, scales, block_mn};
    return gemmkit::quantize(a, gemmkit::validate_quantize_blocks, stream, "gemmkit_quantize_fp8_blocks");
}
