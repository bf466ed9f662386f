#include "lt_fp8.hpp"

#include <cublas_api.h>

#include "problem.hpp"  // fp8

namespace gemmkit::cli {
namespace {

// The CUDA type of a gemmkit type, or false for one cuBLASLt's FP8 matmul does not take there.
bool cuda_type(gemmkit_dtype t, cudaDataType_t* out) {
    switch (t) {
        case GEMMKIT_R_8F_E4M3: return *out = CUDA_R_8F_E4M3, true;
        case GEMMKIT_R_8F_E5M2: return *out = CUDA_R_8F_E5M2, true;
        case GEMMKIT_R_16BF: return *out = CUDA_R_16BF, true;
        case GEMMKIT_R_16F: return *out = CUDA_R_16F, true;
        case GEMMKIT_R_32F: return *out = CUDA_R_32F, true;
        default: return false;
    }
}

}  // namespace

std::string LtFp8Matmul::prepare(const LtFp8Problem& p) {
    cudaDataType_t a_type, b_type, c_type;
    if (!fp8(p.a_type) || !fp8(p.b_type) || !cuda_type(p.a_type, &a_type) || !cuda_type(p.b_type, &b_type))
        return "A and B must be FP8 (E4M3 or E5M2)";
    if (p.a_type == GEMMKIT_R_8F_E5M2 && p.b_type == GEMMKIT_R_8F_E5M2)
        return "A and B both E5M2 (cuBLASLt takes E5M2 for at most one of them)";
    if (fp8(p.c_type) || !cuda_type(p.c_type, &c_type)) return "C must be BF16, FP16 or FP32";
    // BLOCK would be VEC128_32F on A with BLK128x128_32F on B; gemmkit does not serve it yet.
    if (p.scaling.mode != GEMMKIT_SCALE_TENSOR && p.scaling.mode != GEMMKIT_SCALE_OUTER)
        return "block scaling is not part of this baseline";
    p_ = p;

    if (std::string why = start(CUBLAS_COMPUTE_32F, CUDA_R_32F); !why.empty()) return why;
    // TN: FP8 on Hopper reads both operands K-major. FAST_ACCUM is set either way, for the record.
    cublasStatus_t s = set(CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, static_cast<int8_t>(p.fast_accum));
    // Per-tensor is the default mode (SCALAR_32F), so only outer vectors set one: a header
    // older than OUTER_VEC_32F (cuBLAS 12.9) still builds and runs per-tensor scales.
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.mode == GEMMKIT_SCALE_OUTER) {
#if CUBLAS_VERSION >= 120900
        const int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;  // the attribute is an int32_t
        s = set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode);
        if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode);
#else
        return "outer-vector scaling needs cuBLAS 12.9 or newer (built against " + std::to_string(CUBLAS_VERSION) + ")";
#endif
    }
    // A null pointer is cuBLASLt's "1", as in gemmkit_scaling.
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.scale_a != nullptr)
        s = set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(p.scaling.scale_a));
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.scale_b != nullptr)
        s = set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(p.scaling.scale_b));
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulDescSetAttribute", s);

    const auto u64 = [](int64_t v) { return static_cast<uint64_t>(v); };
    return choose({a_type, u64(p.k), u64(p.m), p.lda}, {b_type, u64(p.k), u64(p.n), p.ldb},
                  {c_type, u64(p.m), u64(p.n), p.ldc});
}

cublasStatus_t LtFp8Matmul::run() const {
    return matmul(&p_.alpha, p_.A, p_.B, &p_.beta, p_.C);
}

}  // namespace gemmkit::cli
