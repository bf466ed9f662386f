// What the FP32 SIMT families need to describe themselves to the registry (host code).
#pragma once

#include <string>
#include <vector>

#include "registry.hpp"

namespace gemmkit::sgemm {

// The FP32 SIMT ladder serves any FP32 problem with FP32 accumulation.
inline bool supports_f32_simt(const Problem& p, std::string* why) {
    if (p.a_type != GEMMKIT_R_32F || p.b_type != GEMMKIT_R_32F || p.c_type != GEMMKIT_R_32F) {
        *why = std::string("FP32 kernel; the problem has A/B/C of ") + dtype_name(p.a_type) + "/" +
               dtype_name(p.b_type) + "/" + dtype_name(p.c_type);
        return false;
    }
    if (p.compute != GEMMKIT_COMPUTE_32F) {
        *why = "FP32 kernel; compute must be GEMMKIT_COMPUTE_32F";
        return false;
    }
    return true;
}

inline constexpr const char* kVec4FastPath =
    "all ops; A and B 16-byte aligned with lda, ldb divisible by 4 (else 4-byte loads)";

inline constexpr unsigned kOpsWithAN = op_bit(GEMMKIT_OP_N, GEMMKIT_OP_N) | op_bit(GEMMKIT_OP_N, GEMMKIT_OP_T);

// Rows of the table, in ladder order (ladder.cu, tuned.cu, async.cu).
void add_ladder_kernels(std::vector<KernelInfo>* table);
void add_tuned_kernels(std::vector<KernelInfo>* table);
void add_async_kernels(std::vector<KernelInfo>* table);

}  // namespace gemmkit::sgemm
