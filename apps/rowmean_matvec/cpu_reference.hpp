// The CPU reference, and the `cpu` row of the case study: OpenMP over batches, double accumulation.
#pragma once

#include "rowmean_matvec/problem.hpp"

namespace gemmkit::rowmean {

// Y(i, b) = sum_k W(i, k) * mean_j X_b(k, j) in the layouts of problem.hpp (Y column-major L x N),
// every sum in double. With `scale` (may be null) also the magnitude each element's rounding
// error is relative to, scale(i, b) = sum_k |W(i, k)| * mean_j |X_b(k, j)|, same layout.
// Double accumulation makes the reference exact for {1, 2} inputs whenever exact_in_float(s)
// holds (its values are then floats, so rounding Y to float loses nothing), and 2^29 times more
// precise than the float versions for random inputs.
void cpu_reference(const Sizes& s, const float* X, const float* W, double* Y, double* scale = nullptr);

}  // namespace gemmkit::rowmean
