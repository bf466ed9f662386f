// What the FP64 CUDA-core family needs to describe itself to the registry (host code).
#pragma once

#include <string>
#include <vector>

#include "registry.hpp"

namespace gemmkit::dgemm {

// The FP64 ladder serves any FP64 problem with FP64 accumulation.
inline bool supports_f64(const Problem& p, std::string* why) {
    return has_types(p, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F, "FP64", "GEMMKIT_COMPUTE_64F", why);
}

// Rows of the table, in ladder order (ladder.cu).
void add_dgemm_kernels(std::vector<KernelInfo>* table);

}  // namespace gemmkit::dgemm
