// gemmkit_quantize_fp8: the checks, each naming its argument before any device work, then the
// kernels of kernels/fp8/quantize.cu.
#include <cstdint>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "device_state.hpp"
#include "kernels/fp8/quantize.hpp"
#include "problem.hpp"

namespace gemmkit {
namespace {

gemmkit_status invalid(const std::string& what) { return fail(GEMMKIT_INVALID_VALUE, what); }

std::string num(int64_t v) { return std::to_string(v); }

// Bytes from `base` to the end of a k x mn matrix of `elem`-byte values with leading dimension
// ld (k, mn > 0), or -1 where that passes int64.
int64_t extent_bytes(int64_t k, int64_t mn, int64_t ld, int64_t elem) {
    int64_t elems = 0, bytes = 0;
    if (__builtin_mul_overflow(mn - 1, ld, &elems) || __builtin_add_overflow(elems, k, &elems) ||
        __builtin_mul_overflow(elems, elem, &bytes))
        return -1;
    return bytes;
}

bool overlap(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
    const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return x < y + static_cast<uintptr_t>(b_bytes) && y < x + static_cast<uintptr_t>(a_bytes);
}

// Everything a call's arguments decide alone (no device): INVALID_VALUE or NOT_SUPPORTED naming
// the argument; *nothing where there is nothing to do (k or mn of 0).
gemmkit_status check(const QuantizeArgs& a, bool* nothing) {
    if (a.k < 0) return invalid("k = " + num(a.k) + " is negative");
    if (a.mn < 0) return invalid("mn = " + num(a.mn) + " is negative");
    if (dtype_size(a.x_type) == 0) return invalid("x_type = " + num(a.x_type) + " is not a gemmkit_dtype");
    if (a.x_type != GEMMKIT_R_32F && a.x_type != GEMMKIT_R_16F && a.x_type != GEMMKIT_R_16BF)
        return fail(GEMMKIT_NOT_SUPPORTED, std::string("x_type = ") + dtype_name(a.x_type) +
                                               ": gemmkit_quantize_fp8 takes BF16, FP16 or FP32 values");
    if (!fp8(a.q_type))
        return invalid("q_type = " + num(a.q_type) + ": must be GEMMKIT_R_8F_E4M3 or GEMMKIT_R_8F_E5M2");
    if (a.mode == GEMMKIT_SCALE_BLOCK)
        return fail(GEMMKIT_NOT_SUPPORTED, "mode = GEMMKIT_SCALE_BLOCK: block scales are not served yet (nor by "
                                           "gemmkit_gemm_scaled_ex); use GEMMKIT_SCALE_TENSOR or GEMMKIT_SCALE_OUTER");
    if (a.mode != GEMMKIT_SCALE_TENSOR && a.mode != GEMMKIT_SCALE_OUTER)
        return invalid("mode = " + num(a.mode) + " is not a gemmkit_scale_mode");
    const int64_t least = a.k > 1 ? a.k : 1;
    if (a.ldx < least) return invalid("ldx = " + num(a.ldx) + " is less than max(1, k) = " + num(least));
    if (a.ldq < least) return invalid("ldq = " + num(a.ldq) + " is less than max(1, k) = " + num(least));
    *nothing = a.k == 0 || a.mn == 0;
    if (*nothing) return GEMMKIT_SUCCESS;  // as cuBLAS: no pointer is read
    if (a.x == nullptr) return invalid("x is NULL");
    if (a.q == nullptr) return invalid("q is NULL");
    if (a.scales == nullptr) return invalid("scales is NULL");
    const int64_t x_size = static_cast<int64_t>(dtype_size(a.x_type));
    if (reinterpret_cast<uintptr_t>(a.x) % x_size != 0)
        return invalid("x is not aligned to its element size (" + num(x_size) + " bytes)");
    if (reinterpret_cast<uintptr_t>(a.scales) % sizeof(float) != 0) return invalid("scales is not 4-byte aligned");
    const int64_t x_bytes = extent_bytes(a.k, a.mn, a.ldx, x_size), q_bytes = extent_bytes(a.k, a.mn, a.ldq, 1);
    if (x_bytes < 0) return invalid("ldx = " + num(a.ldx) + ": x's extent passes a 64-bit offset");
    if (q_bytes < 0) return invalid("ldq = " + num(a.ldq) + ": q's extent passes a 64-bit offset");
    const int64_t scale_bytes = (a.mode == GEMMKIT_SCALE_OUTER ? a.mn : 1) * static_cast<int64_t>(sizeof(float));
    if (overlap(a.q, q_bytes, a.x, x_bytes)) return invalid("q overlaps x");
    if (overlap(a.scales, scale_bytes, a.x, x_bytes)) return invalid("scales overlaps x");
    if (overlap(a.scales, scale_bytes, a.q, q_bytes)) return invalid("scales overlaps q");
    return GEMMKIT_SUCCESS;
}

}  // namespace
}  // namespace gemmkit

extern "C" gemmkit_status gemmkit_quantize_fp8(cudaStream_t stream, int64_t k, int64_t mn, const void* x,
                                               gemmkit_dtype x_type, int64_t ldx, void* q, gemmkit_dtype q_type,
                                               int64_t ldq, gemmkit_scale_mode mode, float* scales) {
    using namespace gemmkit;
    const QuantizeArgs a{k, mn, x, x_type, ldx, q, q_type, ldq, mode, scales};
    bool nothing = false;
    if (gemmkit_status s = check(a, &nothing); s != GEMMKIT_SUCCESS || nothing) {
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
