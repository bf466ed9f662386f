#include "rowmean_matvec/cpu_reference.hpp"

#include <cmath>
#include <vector>

namespace gemmkit::rowmean {

void cpu_reference(const Sizes& s, const float* X, const float* W, double* Y, double* scale) {
    // One batch per iteration: N = 1024 batches keep 16 cores busy, and each thread's mean vector
    // (L doubles, 4 KiB at L = 512) stays in its L1.
#pragma omp parallel
    {
        std::vector<double> mean(s.L), mean_abs(scale != nullptr ? s.L : 0);
#pragma omp for schedule(static)
        for (int64_t b = 0; b < s.N; ++b) {
            for (int64_t k = 0; k < s.L; ++k) {
                const float* row = X + x_index(s, b, k, 0);
                double sum = 0;
                for (int64_t j = 0; j < s.M; ++j) sum += row[j];
                mean[k] = sum / static_cast<double>(s.M);
                if (scale == nullptr) continue;
                double sum_abs = 0;
                for (int64_t j = 0; j < s.M; ++j) sum_abs += std::fabs(row[j]);
                mean_abs[k] = sum_abs / static_cast<double>(s.M);
            }
            for (int64_t i = 0; i < s.L; ++i) {
                const float* w = W + w_index(s, i, 0);
                double dot = 0;
                for (int64_t k = 0; k < s.L; ++k) dot += w[k] * mean[k];
                Y[y_index(s, i, b)] = dot;
                if (scale == nullptr) continue;
                double mag = 0;
                for (int64_t k = 0; k < s.L; ++k) mag += std::fabs(w[k]) * mean_abs[k];
                scale[y_index(s, i, b)] = mag;
            }
        }
    }
}

}  // namespace gemmkit::rowmean
