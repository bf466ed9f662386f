#include "verify/compare.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace gemmkit::verify {

Tolerance tolerance_for(gemmkit_dtype dtype, gemmkit_compute compute, int64_t k) {
    // Rounding errors of a K-term sum grow like sqrt(K) * u * sum|a b| for random data; the
    // factor 4 leaves room for the order of summation, FMA contraction and alpha/beta.
    // The Frobenius bound is twice that, relative to ||ref||.
    const double sqrt_k = std::sqrt(static_cast<double>(k)) + 1.0;
    auto from_u = [&](double u) { return Tolerance{8.0 * u * sqrt_k, u, 4.0}; };
    if (compute == GEMMKIT_COMPUTE_64F || dtype == GEMMKIT_R_64F) return from_u(std::ldexp(1.0, -53));
    if (compute == GEMMKIT_COMPUTE_32F_FAST_TF32) return from_u(std::ldexp(1.0, -11));
    if (dtype == GEMMKIT_R_16F) return from_u(std::ldexp(1.0, -11));
    if (dtype == GEMMKIT_R_16BF) return from_u(std::ldexp(1.0, -8));
    return from_u(std::ldexp(1.0, -24));
}

template <class T>
CompareResult compare(const T* out, int64_t ldo, const double* ref, const double* scale, int64_t m, int64_t n,
                      int64_t k, const Tolerance& tol) {
    CompareResult r;
    const double bound_per_scale = tol.elem_factor * tol.unit_roundoff * (std::sqrt(static_cast<double>(k)) + 1.0);
    double err2 = 0, ref2 = 0, worst = 0;
    int64_t bad = 0, first_bad = -1;
#pragma omp parallel for reduction(+ : err2, ref2, bad) reduction(max : worst)
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            const double o = static_cast<double>(out[i + j * ldo]);
            const double x = ref[i + j * m];
            const double err = std::fabs(o - x);
            // Tiny floor so that exact zeros (e.g. beta * 0) compare with a zero bound safely.
            const double bound = bound_per_scale * scale[i + j * m] + std::numeric_limits<double>::min();
            const double ratio = std::isfinite(o) ? err / bound : std::numeric_limits<double>::infinity();
            err2 += std::isfinite(o) ? err * err : 0.0;
            ref2 += x * x;
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
    r.pass = bad == 0 && r.rel_frobenius <= tol.rel_frobenius;
    return r;
}

template CompareResult compare<float>(const float*, int64_t, const double*, const double*, int64_t, int64_t,
                                      int64_t, const Tolerance&);
template CompareResult compare<double>(const double*, int64_t, const double*, const double*, int64_t, int64_t,
                                       int64_t, const Tolerance&);

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
