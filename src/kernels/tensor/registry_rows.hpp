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

// The "f16." and "bf16." rows of one kernel: one launch function (it dispatches on the types),
// an NN entry point per type for the resource reports, full speed for all ops when aligned.
// min_sm: 80 for mma.sync and cp.async, 90 for wgmma and TMA.
inline void add_half_pair(std::vector<KernelInfo>* table, const char* f16_name, const char* bf16_name, int level,
                          const char* description, const char* fast_path, int fast_alignment, TileShape tile,
                          cudaError_t (*launch)(const Problem&, cudaStream_t), const void* (*f16_entry)(),
                          const void* (*bf16_entry)(), int dynamic_smem_bytes, int min_sm = 80,
                          bool copies_unaligned = false) {
    table->push_back({f16_name, level, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, min_sm, description, fast_path, kAllOps,
                      fast_alignment, tile, supports_half<GEMMKIT_R_16F>, launch, f16_entry, dynamic_smem_bytes,
                      nullptr, copies_unaligned});
    table->push_back({bf16_name, level, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, min_sm, description, fast_path,
                      kAllOps, fast_alignment, tile, supports_half<GEMMKIT_R_16BF>, launch, bf16_entry,
                      dynamic_smem_bytes, nullptr, copies_unaligned});
}

inline constexpr const char* kChunkFastPath =
    "all ops; A and B 16-byte aligned with lda, ldb multiples of 16 bytes (else element loads)";
inline constexpr const char* kAsyncFastPath =
    "all ops; A and B 16-byte aligned with lda, ldb multiples of 16 bytes (cp.async; else step 03 runs)";

// Rows of the table, in ladder order (wmma.cu, mma_ldmatrix.cu, pipeline.cu, tf32.cu, and the
// Hopper steps in kernels/hopper/registry.cu).
void add_wmma_kernels(std::vector<KernelInfo>* table);
void add_mma_ldmatrix_kernels(std::vector<KernelInfo>* table);
void add_pipeline_kernels(std::vector<KernelInfo>* table);
void add_tf32_kernels(std::vector<KernelInfo>* table);
void add_hopper_kernels(std::vector<KernelInfo>* table);

}  // namespace gemmkit::tensor
