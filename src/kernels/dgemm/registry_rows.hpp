// What the FP64 CUDA-core family needs to describe itself to the registry (host code).
#pragma once

#include <string>
#include <vector>

#include "registry.hpp"

namespace gemmkit::dgemm {

// The FP64 ladder serves any FP64 problem with FP64 accumulation.
inline bool supports_f64(const Problem& p, std::string* why) {
    if (p.a_type != GEMMKIT_R_64F || p.b_type != GEMMKIT_R_64F || p.c_type != GEMMKIT_R_64F) {
        *why = std::string("FP64 kernel; the problem has A/B/C of ") + dtype_name(p.a_type) + "/" +
               dtype_name(p.b_type) + "/" + dtype_name(p.c_type);
        return false;
    }
    if (p.compute != GEMMKIT_COMPUTE_64F) {
        *why = "FP64 kernel; compute must be GEMMKIT_COMPUTE_64F";
        return false;
    }
    return true;
}

// Rows of the table, in ladder order (ladder.cu).
void add_dgemm_kernels(std::vector<KernelInfo>* table);

}  // namespace gemmkit::dgemm
