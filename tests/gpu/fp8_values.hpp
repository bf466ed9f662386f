// FP8 bit patterns on the host (cuda_fp8.h), for the FP8 GPU tests: x rounded to nearest,
// saturating at the largest finite value, and back, exactly. 0x7F is NaN in both formats
// (E4M3: S.1111.111, E5M2: S.11111.11).
#pragma once

#include <cstdint>

#include <cuda_fp8.h>

#include "gemmkit/gemmkit.h"

namespace gemmkit::test {

inline uint8_t to_fp8(float x, gemmkit_dtype t) {
    return t == GEMMKIT_R_8F_E5M2 ? __nv_fp8_e5m2(x).__x : __nv_fp8_e4m3(x).__x;
}

inline float fp8_value(uint8_t bits, gemmkit_dtype t) {
    if (t == GEMMKIT_R_8F_E5M2) {
        __nv_fp8_e5m2 q;
        q.__x = bits;
        return static_cast<float>(q);
    }
    __nv_fp8_e4m3 q;
    q.__x = bits;
    return static_cast<float>(q);
}

constexpr uint8_t kFp8NaN = 0x7F;

}  // namespace gemmkit::test
