#include "reference/cpu_gemm.hpp"

#include <cmath>
#include <numbers>
#include <vector>

namespace gemmkit::ref {

template <class T>
void cpu_gemm(gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, double alpha, const T* A,
              int64_t lda, const T* B, int64_t ldb, double beta, const T* C, int64_t ldc, double* out,
              double* scale) {
    const bool ta = transa == GEMMKIT_OP_T, tb = transb == GEMMKIT_OP_T;
    // One column of C per iteration: op(B)(:, j) is gathered once, then each row of op(A) meets it.
#pragma omp parallel for schedule(dynamic, 1) if (m * n * k >= kWorthAThreadTeam)
    for (int64_t j = 0; j < n; ++j) {
        std::vector<double> b(k);
        for (int64_t p = 0; p < k; ++p) b[p] = static_cast<double>(tb ? B[j + p * ldb] : B[p + j * ldb]);
        for (int64_t i = 0; i < m; ++i) {
            double sum = 0, sum_abs = 0;
            for (int64_t p = 0; p < k; ++p) {
                const double a = static_cast<double>(ta ? A[p + i * lda] : A[i + p * lda]);
                sum += a * b[p];
                sum_abs += std::fabs(a * b[p]);
            }
            const double c = beta == 0 ? 0.0 : static_cast<double>(C[i + j * ldc]);
            out[i + j * m] = alpha * sum + (beta == 0 ? 0.0 : beta * c);
            if (scale != nullptr) scale[i + j * m] = std::fabs(alpha) * sum_abs + std::fabs(beta) * std::fabs(c);
        }
    }
}

template void cpu_gemm<float>(gemmkit_op, gemmkit_op, int64_t, int64_t, int64_t, double, const float*, int64_t,
                              const float*, int64_t, double, const float*, int64_t, double*, double*);
template void cpu_gemm<double>(gemmkit_op, gemmkit_op, int64_t, int64_t, int64_t, double, const double*, int64_t,
                               const double*, int64_t, double, const double*, int64_t, double*, double*);

double activation_ref(gemmkit_activation act, double v) {
    switch (act) {
        case GEMMKIT_ACTIVATION_RELU:
            return v < 0.0 ? 0.0 : v;
        case GEMMKIT_ACTIVATION_GELU_TANH: {
            const double sqrt_2_over_pi = std::sqrt(2.0 / std::numbers::pi);
            return 0.5 * v * (1.0 + std::tanh(sqrt_2_over_pi * (v + 0.044715 * v * v * v)));
        }
        case GEMMKIT_ACTIVATION_GELU_ERF:
            return 0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2));
        case GEMMKIT_ACTIVATION_SILU:
            return v / (1.0 + std::exp(-v));
        default:
            return v;
    }
}

void cpu_epilogue(gemmkit_activation act, const double* bias, int64_t m, int64_t n, double* out, double* scale,
                  double* pre_activation) {
#pragma omp parallel for if (m * n >= kWorthAThreadTeam)
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            const int64_t e = i + j * m;
            double v = out[e];
            if (bias != nullptr) {
                v += bias[i];
                if (scale != nullptr) scale[e] += std::fabs(bias[i]);
            }
            if (pre_activation != nullptr) pre_activation[e] = v;
            out[e] = activation_ref(act, v);
        }
}

}  // namespace gemmkit::ref
