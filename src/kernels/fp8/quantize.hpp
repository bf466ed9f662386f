// FP8 quantization (gemmkit_quantize_fp8 and gemmkit_quantize_fp8_blocks, src/quantize.cpp): the
// launcher and the arithmetic the kernels and the tests share.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.h"

namespace gemmkit {

// The k of a block scale (GEMMKIT_SCALE_BLOCK): one scale per 128 of k.
constexpr int64_t kScaleBlockK = 128;

// A checked gemmkit_quantize_fp8 call: x (k x mn, ld ldx, of x_type) into q (ld ldq, of
// q_type), and its scales by mode (TENSOR or OUTER), or, from gemmkit_quantize_fp8_blocks, one
// per block of kScaleBlockK of k and block_mn (1 or 128) of the columns.
struct QuantizeArgs {
    int64_t k = 0, mn = 0;
    const void* x = nullptr;
    gemmkit_dtype x_type = GEMMKIT_R_32F;
    int64_t ldx = 1;
    void* q = nullptr;
    gemmkit_dtype q_type = GEMMKIT_R_8F_E4M3;
    int64_t ldq = 1;
    gemmkit_scale_mode mode = GEMMKIT_SCALE_TENSOR;
    float* scales = nullptr;
    int64_t block_mn = 0;  // 0: not blocks, the mode decides
};

// The scales a call writes (k, mn > 0): 1 (TENSOR), mn (OUTER), or one a block,
// ceil(k / kScaleBlockK) * ceil(mn / block_mn).
inline int64_t quantize_scale_count(const QuantizeArgs& a) {
    if (a.block_mn != 0) return (a.k + kScaleBlockK - 1) / kScaleBlockK * ((a.mn + a.block_mn - 1) / a.block_mn);
    return a.mode == GEMMKIT_SCALE_OUTER ? a.mn : 1;
}

cudaError_t launch_quantize_fp8(const QuantizeArgs& a, cudaStream_t stream);

// The largest finite value of an FP8 format: 448 (E4M3), 57344 (E5M2).
__host__ __device__ constexpr float fp8_max(gemmkit_dtype q_type) {
    return q_type == GEMMKIT_R_8F_E4M3 ? 448.0f : 57344.0f;
}

// The scale of values whose largest magnitude is amax: amax / F, so that the largest lands on F;
// 1 where amax is 0 (all zeros: any scale serves, and 1 divides nothing by 0). NaN and infinity
// stay what they are.
__host__ __device__ inline float fp8_scale_of(float amax, gemmkit_dtype q_type) {
    return amax == 0.0f ? 1.0f : amax / fp8_max(q_type);
}

// The larger of two magnitudes, NaN if either is (fmaxf would drop it).
__host__ __device__ inline float nan_max(float a, float b) { return (a != a || a > b) ? a : b; }

}  // namespace gemmkit
