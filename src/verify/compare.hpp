// Comparing a result with its reference: relative Frobenius error and an elementwise
// bound that scales with sqrt(K) and with the magnitude of the summed terms, plus the
// rounding of the result to its output type.
#pragma once

#include <cstdint>
#include <string>

#include "gemmkit/gemmkit.h"

namespace gemmkit::verify {

struct Tolerance {
    double rel_frobenius;  // ||out - ref||_F / ||ref||_F must stay at or below this
    double unit_roundoff;  // u of the accumulation (2^-24 for FP32)
    double elem_factor;    // E = elem_factor * u * (sqrt(k) + 1) * scale: the accumulation's error
    double output_roundoff = 0;  // u_out: rounding the result to C's type (2^-11 FP16, 2^-8 BF16, else 0)
    double output_min_normal = 0;  // smallest normal of C's type where u_out applies (2^-14 FP16, 2^-126 BF16)
    // Elementwise: |out - ref| <= E + u_out * max(|ref| + E, output_min_normal). Below the
    // smallest normal the rounding error is absolute (half the subnormal spacing), not relative.
};

// The tolerance for A/B of `ab_type`, C of `c_type` and a compute mode. The reference sees
// the same (rounded) inputs as the kernel, so u is the accumulation's: 2^-24 for FP32 on
// CUDA cores, 2^-22 on tensor cores (FP16/BF16 A/B or TF32 compute: their FP32 adders may
// truncate), 2^-52 for FP64. Elementwise factor 4; relative Frobenius 8 u (sqrt(k) + 1) + u_out.
Tolerance tolerance_for(gemmkit_dtype ab_type, gemmkit_dtype c_type, gemmkit_compute compute, int64_t k);

// A, B and C all of `dtype`.
inline Tolerance tolerance_for(gemmkit_dtype dtype, gemmkit_compute compute, int64_t k) {
    return tolerance_for(dtype, dtype, compute, k);
}

struct CompareResult {
    double rel_frobenius = 0;  // ||out - ref|| / ||ref|| (0 when both are zero)
    double worst_ratio = 0;    // max over elements of |out - ref| / bound (NaN counts as infinite)
    int64_t bad_elements = 0;  // elements over their bound, or not finite where ref is
    int64_t first_bad_row = -1, first_bad_col = -1;
    bool pass = false;
};

// out: m x n with leading dimension ldo; ref and scale: m x n with leading dimension m.
// T is float, double, __half or __nv_bfloat16.
template <class T>
CompareResult compare(const T* out, int64_t ldo, const double* ref, const double* scale, int64_t m, int64_t n,
                      int64_t k, const Tolerance& tol);

// "rel 3.1e-08, worst 0.02 of bound" or "12 bad elements, first at (3, 7), rel ..."
std::string describe(const CompareResult& r);

}  // namespace gemmkit::verify
