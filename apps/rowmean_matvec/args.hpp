// The arguments every rowmean-matvec version takes (host code may include this; no device code).
#pragma once

#include "rowmean_matvec/problem.hpp"

namespace gemmkit::rowmean {

// One launch's arguments, layouts as in problem.hpp. Sizes are ints (validate() checks them);
// kernels form element offsets in int64: N*L*M is 2^30 at 1024^3 and may pass 2^31.
struct Args {
    const float* X;    // [N][L][M]
    const float* W;    // [L][L]
    float* Y;          // L x N column-major: batch b's vector at Y + b*L
    float* workspace;  // the version's workspace_floats (v5: the averages, L x N column-major)
    int L, M, N;
};

inline Args make_args(const Sizes& s, const float* X, const float* W, float* Y, float* workspace) {
    return Args{X, W, Y, workspace, static_cast<int>(s.L), static_cast<int>(s.M), static_cast<int>(s.N)};
}

}  // namespace gemmkit::rowmean
