// Adds the partial sums of this rank's rows that the peers sent into the rows (add_partials.cu).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.h"

namespace gemmkit::dist {

// y[rows, n] (ld ldy) += the sum over slots q != skip of the [rows, n] block at parts + q * slot
// elements (ld n), all of `type` (BF16 or FP16), on `stream`.
cudaError_t add_partials(gemmkit_dtype type, void* y, int64_t ldy, const void* parts, int64_t slot, int slots,
                         int skip, int64_t rows, int64_t n, int sm_count, cudaStream_t stream);

}  // namespace gemmkit::dist
