#include "verify/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "reference/cpu_gemm.hpp"
#include "verify/dtypes.hpp"

namespace gemmkit::verify {

Tolerance tolerance_for(gemmkit_dtype ab_type, gemmkit_dtype c_type, gemmkit_compute compute, int64_t k) {
    // Rounding errors of a K-term sum grow like sqrt(K) * u * sum|a b| for random data; the
    // factor 4 leaves room for the order of summation, FMA contraction and alpha/beta.
    // The Frobenius bound is twice that, relative to ||ref||, plus the output's rounding.
    double u = std::ldexp(1.0, -24);
    if (compute == GEMMKIT_COMPUTE_64F || ab_type == GEMMKIT_R_64F)
        u = std::ldexp(1.0, -52);
    else if (compute == GEMMKIT_COMPUTE_32F_FAST_TF32 || ab_type == GEMMKIT_R_16F || ab_type == GEMMKIT_R_16BF)
        u = std::ldexp(1.0, -22);  // tensor-core FP32 accumulation: products exact, adds may truncate
    double u_out = 0, min_normal = 0;  // FP32 and FP64 outputs: the accumulation's rounding is all
    if (c_type == GEMMKIT_R_16F) {
        u_out = std::ldexp(1.0, -11);  // 10 stored mantissa bits
        min_normal = std::ldexp(1.0, -14);
    } else if (c_type == GEMMKIT_R_16BF) {
        u_out = std::ldexp(1.0, -8);  // 7 stored mantissa bits, FP32's exponent range
        min_normal = std::ldexp(1.0, -126);
    }
    const double sqrt_k = std::sqrt(static_cast<double>(k)) + 1.0;
    return Tolerance{8.0 * u * sqrt_k + u_out, u, 4.0, u_out, min_normal};
}

template <class T>
CompareResult compare(const T* out, int64_t ldo, const double* ref, const double* scale, int64_t m, int64_t n,
                      int64_t k, const Tolerance& tol) {
    CompareResult r;
    const double bound_per_scale = tol.elem_factor * tol.unit_roundoff * (std::sqrt(static_cast<double>(k)) + 1.0);
    double err2 = 0, ref2 = 0, scale2 = 0, worst = 0;
    int64_t bad = 0, first_bad = -1;
    // A thread team only where there is work for it (ref::kWorthAThreadTeam).
#pragma omp parallel for reduction(+ : err2, ref2, scale2, bad) reduction(max : worst) \
    if (m * n >= ref::kWorthAThreadTeam)
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            const double o = to_double(out[i + j * ldo]);
            const double x = ref[i + j * m];
            const double err = std::fabs(o - x);
            // The accumulation's error, then the rounding of the (so perturbed) result to C's
            // type; a tiny floor so that exact zeros (e.g. beta * 0) compare with a zero bound safely.
            const double e = bound_per_scale * scale[i + j * m];
            const double rounded_magnitude = std::max(std::fabs(x) + e, tol.output_min_normal);
            const double bound = e + tol.output_roundoff * rounded_magnitude + std::numeric_limits<double>::min();
            const double ratio = std::isfinite(o) ? err / bound : std::numeric_limits<double>::infinity();
            err2 += std::isfinite(o) ? err * err : 0.0;
            ref2 += x * x;
            scale2 += scale[i + j * m] * scale[i + j * m];
            worst = std::max(worst, ratio);
            if (!(ratio <= 1.0)) {
                ++bad;
#pragma omp critical
                if (first_bad < 0 || i + j * m < first_bad) first_bad = i + j * m;
            }
        }
    }
    r.rel_frobenius = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    r.worst_ratio = worst;
    r.bad_elements = bad;
    if (first_bad >= 0) {
        r.first_bad_row = first_bad % m;
        r.first_bad_col = first_bad / m;
    }
    // The Frobenius bound is relative to ||ref||, or, where the terms cancel (||ref|| far below
    // the terms' magnitudes), to ||scale|| / (sqrt(k) + 1), which for random data of any k is
    // about ||ref||: a 1 x 1 x 1 case with 0.5 a b = 0.2266 and beta c = -0.2274 failed with an
    // error of 0.01 of its elementwise bound. Plus the absolute rounding of outputs below the
    // smallest normal of C's type (half the subnormal spacing each, as in the elementwise
    // bound): a 1 x 1 FP16 product of -4.64e-5 rounded to its nearest FP16 value failed.
    const double norm = std::max(std::sqrt(ref2), std::sqrt(scale2) / (std::sqrt(static_cast<double>(k)) + 1.0));
    const double subnormal_floor =
        tol.output_roundoff * tol.output_min_normal * std::sqrt(static_cast<double>(m) * static_cast<double>(n));
    r.pass = bad == 0 && std::sqrt(err2) <= tol.rel_frobenius * norm + subnormal_floor;
    return r;
}

#define GEMMKIT_INSTANTIATE_COMPARE(T)                                                                        \
    template CompareResult compare<T>(const T*, int64_t, const double*, const double*, int64_t, int64_t, int64_t, \
                                      const Tolerance&);
GEMMKIT_INSTANTIATE_COMPARE(float)
GEMMKIT_INSTANTIATE_COMPARE(double)
GEMMKIT_INSTANTIATE_COMPARE(__half)
GEMMKIT_INSTANTIATE_COMPARE(__nv_bfloat16)
#undef GEMMKIT_INSTANTIATE_COMPARE

std::string describe(const CompareResult& r) {
    char buf[200];
    if (r.bad_elements == 0)
        std::snprintf(buf, sizeof buf, "rel %.2e, worst %.3f of bound", r.rel_frobenius, r.worst_ratio);
    else
        std::snprintf(buf, sizeof buf, "%lld bad elements, first at (%lld, %lld), rel %.2e, worst %.3g of bound",
                      static_cast<long long>(r.bad_elements), static_cast<long long>(r.first_bad_row),
                      static_cast<long long>(r.first_bad_col), r.rel_frobenius, r.worst_ratio);
    return buf;
}

}  // namespace gemmkit::verify
