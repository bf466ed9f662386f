// What the tensor-core families need to describe themselves to the registry (host code).
#pragma once

#include <string>
#include <vector>

#include "registry.hpp"

namespace gemmkit::tensor {

// FP16/BF16 rows: A and B of the row's type, C of FP32 or that same type, FP32 accumulation
// (the type combinations cublasGemmEx accepts with CUBLAS_COMPUTE_32F).
template <gemmkit_dtype kAB>
bool supports_half(const Problem& p, std::string* why) {
    if (p.a_type != kAB || p.b_type != kAB) {
        *why = std::string(dtype_name(kAB)) + " kernel; the problem has A/B of " + dtype_name(p.a_type) + "/" +
               dtype_name(p.b_type);
        return false;
    }
    if (p.c_type != GEMMKIT_R_32F && p.c_type != kAB) {
        *why = std::string("C must be f32 or ") + dtype_name(kAB) + ", not " + dtype_name(p.c_type);
        return false;
    }
    if (p.compute != GEMMKIT_COMPUTE_32F) {
        *why = "FP16/BF16 kernels accumulate in FP32: compute must be GEMMKIT_COMPUTE_32F";
        return false;
    }
    return true;
}

// TF32 rows: FP32 A, B, C with GEMMKIT_COMPUTE_32F_FAST_TF32 (inputs rounded to TF32).
inline bool supports_tf32(const Problem& p, std::string* why) {
    if (p.a_type != GEMMKIT_R_32F || p.b_type != GEMMKIT_R_32F || p.c_type != GEMMKIT_R_32F) {
        *why = std::string("TF32 kernel; the problem has A/B/C of ") + dtype_name(p.a_type) + "/" +
               dtype_name(p.b_type) + "/" + dtype_name(p.c_type);
        return false;
    }
    if (p.compute != GEMMKIT_COMPUTE_32F_FAST_TF32) {
        *why = "TF32 kernel; compute must be GEMMKIT_COMPUTE_32F_FAST_TF32";
        return false;
    }
    return true;
}

// Rows of the table, in ladder order: each adds an "f16." and a "bf16." row per kernel
// (and "tf32." rows), all sharing one launch function that dispatches on the types.
void add_wmma_kernels(std::vector<KernelInfo>* table);
void add_mma_kernels(std::vector<KernelInfo>* table);

}  // namespace gemmkit::tensor
