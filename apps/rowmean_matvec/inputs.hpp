// The case study's two input sets, generated on the host (the CPU reference needs them there).
#pragma once

#include <cstdint>

#include "rowmean_matvec/problem.hpp"

namespace gemmkit::rowmean {

enum class InputKind {
    kOneTwo,   // every element 1 or 2: exact in float (problem.hpp, exact_in_float), compared bit for bit
    kUniform,  // uniform in [-1, 1): compared within a rounding-error bound
};

// "{1,2}" or "uniform".
const char* input_name(InputKind kind);

// Fills X (x_elements(s)) and W (w_elements(s)). Element i of X is a pure function of (seed, i),
// of W of (seed + 1, i): the same values on every run, machine and thread count. kOneTwo is the
// sign of the kUniform value: 1 below zero, 2 otherwise, so both values are equally likely.
void fill_inputs(InputKind kind, uint64_t seed, const Sizes& s, float* X, float* W);

}  // namespace gemmkit::rowmean
