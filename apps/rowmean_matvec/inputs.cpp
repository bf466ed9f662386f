#include "rowmean_matvec/inputs.hpp"

#include "verify/matrix_init.hpp"

namespace gemmkit::rowmean {
namespace {

// verify::uniform_value is the host twin of the GPU generator: counter-based, so the parallel
// loop gives the same values as a serial one. 1 G elements (X at 1024^3) take ~1 s on 16 cores.
void fill(InputKind kind, uint64_t seed, float* x, int64_t count) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i) {
        const double u = verify::uniform_value(seed, i);
        x[i] = kind == InputKind::kOneTwo ? (u < 0 ? 1.0f : 2.0f) : static_cast<float>(u);
    }
}

}  // namespace

const char* input_name(InputKind kind) { return kind == InputKind::kOneTwo ? "{1,2}" : "uniform"; }

void fill_inputs(InputKind kind, uint64_t seed, const Sizes& s, float* X, float* W) {
    fill(kind, seed, X, x_elements(s));
    fill(kind, seed + 1, W, w_elements(s));
}

}  // namespace gemmkit::rowmean
