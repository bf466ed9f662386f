// What the FP32 SIMT families need to describe themselves to the registry (host code).
#pragma once

#include <string>
#include <vector>

#include "registry.hpp"

namespace gemmkit::sgemm {

// The FP32 SIMT ladder serves any FP32 problem with FP32 accumulation.
inline bool supports_f32_simt(const Problem& p, std::string* why) {
    return has_types(p, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, "FP32", "GEMMKIT_COMPUTE_32F", why);
}

inline constexpr const char* kVec4FastPath =
    "all ops; A and B 16-byte aligned with lda, ldb divisible by 4 (else 4-byte loads)";

inline constexpr unsigned kOpsWithAN = op_bit(GEMMKIT_OP_N, GEMMKIT_OP_N) | op_bit(GEMMKIT_OP_N, GEMMKIT_OP_T);

// A row of the tuned steps 11-13: a configuration Cfg that serves every op, at full speed with
// 16-byte alignment, and that `auto` may serve (the tuning table names them). entry: its NN,
// vectorized kernel (entry_of<&kernel<Cfg, false, false, true>>).
template <class Cfg>
KernelInfo tuned_config_row(const char* name, int level, int min_sm, const char* description,
                            cudaError_t (*launch)(const Problem&, const Plan&, cudaStream_t), const void* (*entry)()) {
    return {.name = name, .level = level, .min_sm = min_sm,
            .dtype = GEMMKIT_R_32F, .compute = GEMMKIT_COMPUTE_32F,
            .description = description,
            .fast_path = kVec4FastPath,
            .fast_ops = kAllOps, .fast_alignment = 16, .tile = tile_of<Cfg>(),
            .serves_auto = true,
            .supports = supports_f32_simt, .launch = launch,
            .entry = entry,
            .dynamic_smem_bytes = Cfg::kSmemBytes};
}

// Rows of the table, in ladder order (ladder.cu, tuned.cu, async.cu, split_k.cu).
void add_ladder_kernels(std::vector<KernelInfo>* table);
void add_tuned_kernels(std::vector<KernelInfo>* table);
void add_async_kernels(std::vector<KernelInfo>* table);
void add_split_k_kernels(std::vector<KernelInfo>* table);

}  // namespace gemmkit::sgemm
