// Element types of the tensor-core families: FP16/BF16 operands with FP32 accumulation,
// and the run-time -> compile-time mapping of a problem's types (as with_ops does for ops).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/launch_common.cuh"

namespace gemmkit::tensor {

using half = __half;
using bf16 = __nv_bfloat16;

template <class T>
struct TypeTag {
    using type = T;
};

// to_float and from_float<T>, the conversions through FP32: kernels/epilogue_ops.cuh.

// Two FP32 values rounded to a 16-bit T and packed in one word, `lo` in the low half (the
// register layout of mma/ldmatrix/stmatrix fragments).
template <class T>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, bf16>, "16-bit T");
    uint32_t word;
    if constexpr (std::is_same_v<T, half>) {
        const __half2 v = __floats2half2_rn(lo, hi);
        memcpy(&word, &v, sizeof word);
    } else {
        const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
        memcpy(&word, &v, sizeof word);
    }
    return word;
}

// C(i, j) = alpha * acc + beta * C(i, j) + bias, in FP32, rounded once to TC (beta == 0: C is
// not read). The caller checks i < m, j < n.
template <class TC>
__device__ __forceinline__ void store_scaled(TC* C, int64_t ldc, int i, int j, float acc, float alpha, float beta,
                                             float bias) {
    TC* c = C + i + j * ldc;
    const float old = beta == 0.0f ? 0.0f : beta * to_float(*c);
    *c = from_float<TC>(alpha * acc + old + bias);
}

// C(i, j) = alpha * acc + beta * C(i, j), in FP32, then the fused epilogue e of a problem of
// m x n (epilogue_ops.cuh), rounded once to TC. With beta == 0, C is not read (cuBLAS
// semantics: NaN there must not propagate). The caller checks i < m, j < n.
template <class TC>
__device__ __forceinline__ void store_scaled(TC* C, int64_t ldc, int i, int j, float acc, float alpha, float beta,
                                             const EpilogueArgs<TC>& e, int m, int n) {
    TC* c = C + i + j * ldc;
    const float old = beta == 0.0f ? 0.0f : beta * to_float(*c);
    const float v = alpha * acc + old;
    *c = from_float<TC>(e.active() ? epilogue_value(e, i, j, m, n, v) : v);
}

// Calls fn(TypeTag<T>{}, TypeTag<TC>{}) for a problem whose A and B are FP16 or BF16 and
// whose C is FP32 or the operands' type (the combinations cublasGemmEx accepts with
// CUBLAS_COMPUTE_32F). The registry's supports() has already rejected anything else.
template <class Fn>
cudaError_t with_half_types(const Problem& p, Fn&& fn) {
    const bool c_f32 = p.c_type == GEMMKIT_R_32F;
    if (p.a_type == GEMMKIT_R_16F)
        return c_f32 ? fn(TypeTag<half>{}, TypeTag<float>{}) : fn(TypeTag<half>{}, TypeTag<half>{});
    if (p.a_type == GEMMKIT_R_16BF)
        return c_f32 ? fn(TypeTag<bf16>{}, TypeTag<float>{}) : fn(TypeTag<bf16>{}, TypeTag<bf16>{});
    return cudaErrorInvalidValue;
}

}  // namespace gemmkit::tensor
