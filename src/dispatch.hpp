// The library's internal entry point, shared by the C API and the tools.
#pragma once

#include <cuda_runtime_api.h>

#include "problem.hpp"

namespace gemmkit {

// Checks, chooses a kernel (kernel == NULL or "auto") and runs p on `stream`.
gemmkit_status gemm(const Problem& p, bool alpha_null, bool beta_null, cudaStream_t stream, const char* kernel);

// C = beta * C for any C type (the k == 0 / alpha == 0 case).
cudaError_t launch_scale(const Problem& p, cudaStream_t stream);

}  // namespace gemmkit
