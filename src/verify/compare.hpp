// Comparing a result with its reference: relative Frobenius error and an elementwise
// bound that scales with sqrt(K) and with the magnitude of the summed terms.
#pragma once

#include <cstdint>
#include <string>

#include "gemmkit/gemmkit.h"

namespace gemmkit::verify {

struct Tolerance {
    double rel_frobenius;  // ||out - ref||_F / ||ref||_F must stay at or below this
    double unit_roundoff;  // u of the arithmetic (2^-24 for FP32)
    double elem_factor;    // |out - ref| <= elem_factor * u * (sqrt(k) + 1) * scale, elementwise
};

// The tolerance for a data type and compute mode: u of the arithmetic (FP32: 2^-24),
// elementwise factor 4, relative Frobenius bound 8 u (sqrt(k) + 1).
Tolerance tolerance_for(gemmkit_dtype dtype, gemmkit_compute compute, int64_t k);

struct CompareResult {
    double rel_frobenius = 0;  // ||out - ref|| / ||ref|| (0 when both are zero)
    double worst_ratio = 0;    // max over elements of |out - ref| / bound (NaN counts as infinite)
    int64_t bad_elements = 0;  // elements over their bound, or not finite where ref is
    int64_t first_bad_row = -1, first_bad_col = -1;
    bool pass = false;
};

// out: m x n with leading dimension ldo; ref and scale: m x n with leading dimension m.
template <class T>
CompareResult compare(const T* out, int64_t ldo, const double* ref, const double* scale, int64_t m, int64_t n,
                      int64_t k, const Tolerance& tol);

// "rel 3.1e-08, worst 0.02 of bound" or "12 bad elements, first at (3, 7), rel ..."
std::string describe(const CompareResult& r);

}  // namespace gemmkit::verify
