// The C++ type behind each gemmkit_dtype, and the exact conversions the verification needs:
// to double (exact for every type), from double (round to nearest) and FP32 -> TF32 (rounded or
// truncated).
// Host and device code alike (cuda_fp16.h / cuda_bf16.h work in plain C++ files too).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemmkit/gemmkit.h"

namespace gemmkit::verify {

// f(std::type_identity<T>{}) with T the element type of `type`: one switch, so callers
// write their loop once as a template. Throws std::invalid_argument for an unknown value.
template <class F>
decltype(auto) visit_dtype(gemmkit_dtype type, F&& f) {
    switch (type) {
        case GEMMKIT_R_32F: return f(std::type_identity<float>{});
        case GEMMKIT_R_64F: return f(std::type_identity<double>{});
        case GEMMKIT_R_16F: return f(std::type_identity<__half>{});
        case GEMMKIT_R_16BF: return f(std::type_identity<__nv_bfloat16>{});
        case GEMMKIT_R_8F_E4M3:  // FP8 has tests of its own (fp8_gpu_test.cpp), not this loop's
        case GEMMKIT_R_8F_E5M2: break;
    }
    throw std::invalid_argument("unknown gemmkit_dtype " + std::to_string(static_cast<int>(type)));
}

// FP32 rounded to TF32 (10 stored mantissa bits) as PTX cvt.rn.tf32.f32 does: to nearest,
// ties to even. Adding just under half of the 13 dropped bits' weight (0xFFF), plus the last
// kept bit, carries into the kept bits exactly when the dropped part is above half, or is half
// and the kept part odd; Inf and NaN pass unchanged.
__host__ __device__ inline float round_to_tf32(float x) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7F800000u) == 0x7F800000u) return x;
    bits = (bits + 0xFFFu + ((bits >> 13) & 1u)) & ~0x1FFFu;
    std::memcpy(&x, &bits, sizeof bits);
    return x;
}

// FP32 cut to TF32 by dropping the 13 low mantissa bits (toward zero): what wgmma's TF32 tensor
// cores read of an FP32 word in shared memory. Inf and NaN pass unchanged.
__host__ __device__ inline float truncate_to_tf32(float x) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7F800000u) == 0x7F800000u) return x;
    bits &= ~0x1FFFu;
    std::memcpy(&x, &bits, sizeof bits);
    return x;
}

// How a kernel under GEMMKIT_COMPUTE_32F_FAST_TF32 hands FP32 A and B to the tensor cores
// (exact: not TF32 compute).
enum class Tf32Inputs { exact, rounded, truncated };

__host__ __device__ inline float to_tf32(float x, Tf32Inputs how) {
    return how == Tf32Inputs::rounded ? round_to_tf32(x) : how == Tf32Inputs::truncated ? truncate_to_tf32(x) : x;
}

// Exact: every FP16, BF16 and FP32 value is a double.
__host__ __device__ inline double to_double(float x) { return x; }
__host__ __device__ inline double to_double(double x) { return x; }
__host__ __device__ inline double to_double(__half x) { return __half2float(x); }
__host__ __device__ inline double to_double(__nv_bfloat16 x) { return __bfloat162float(x); }

// Round to nearest even, in one step (no double rounding through float).
template <class T>
__host__ __device__ inline T from_double(double x) {
    if constexpr (std::is_same_v<T, __half>) return __double2half(x);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(x);
    else return static_cast<T>(x);
}

}  // namespace gemmkit::verify
