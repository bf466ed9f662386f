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
    return has_types(p, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, "TF32", "GEMMKIT_COMPUTE_32F_FAST_TF32", why);
}

// The "f16." and "bf16." rows of one kernel: `f16` is the f16 row (types and `supports` are filled
// in here), the bf16 row the same with bf16_name and bf16_entry. Both serve all ops.
inline void add_half_pair(std::vector<KernelInfo>* table, KernelInfo f16, const char* bf16_name,
                          const void* (*bf16_entry)()) {
    f16.dtype = GEMMKIT_R_16F;
    f16.compute = GEMMKIT_COMPUTE_32F;
    f16.supports = supports_half<GEMMKIT_R_16F>;
    KernelInfo bf16 = f16;
    bf16.name = bf16_name;
    bf16.dtype = GEMMKIT_R_16BF;
    bf16.supports = supports_half<GEMMKIT_R_16BF>;
    bf16.entry = bf16_entry;
    table->push_back(f16);
    table->push_back(bf16);
}

inline constexpr const char* kChunkFastPath =
    "all ops; A and B 16-byte aligned with lda, ldb multiples of 16 bytes (else element loads)";
inline constexpr const char* kAsyncFastPath =
    "all ops; A and B 16-byte aligned with lda, ldb multiples of 16 bytes (cp.async; else step 03 runs)";

// Rows of the table, in ladder order (wmma.cu, mma_ldmatrix.cu, pipeline.cu, tf32.cu, and the
// Hopper steps in kernels/hopper/registry*.cu).
void add_wmma_kernels(std::vector<KernelInfo>* table);
void add_mma_ldmatrix_kernels(std::vector<KernelInfo>* table);
void add_pipeline_kernels(std::vector<KernelInfo>* table);
void add_tf32_kernels(std::vector<KernelInfo>* table);
void add_hopper_kernels(std::vector<KernelInfo>* table);
// The grouped GEMM's rows (level 16, after the few-vectors step): registry_grouped.cu.
void add_hopper_grouped(std::vector<KernelInfo>* table);
// The FP8 family's rows (gemmkit_gemm_scaled_ex): registry_fp8.cu.
void add_hopper_fp8(std::vector<KernelInfo>* table);

}  // namespace gemmkit::tensor
