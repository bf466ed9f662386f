#include "lt_fp8.hpp"

#include <cublas_api.h>

namespace gemmkit::cli {
namespace {

// cuBLASLt's own workspace: what its heuristic may use for the large Hopper kernels.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

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

bool is_fp8(gemmkit_dtype t) { return t == GEMMKIT_R_8F_E4M3 || t == GEMMKIT_R_8F_E5M2; }

template <class V>
cublasStatus_t set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const V& value) {
    return cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value);
}

std::string failed(const char* what, cublasStatus_t s) { return std::string(what) + ": " + cublasGetStatusString(s); }

}  // namespace

LtFp8Matmul::LtFp8Matmul(cudaStream_t stream) : stream_(stream), workspace_(kWorkspaceBytes) {
    if (cublasLtCreate(&handle_) != CUBLAS_STATUS_SUCCESS) handle_ = nullptr;
}

LtFp8Matmul::~LtFp8Matmul() {
    release();
    if (handle_ != nullptr) cublasLtDestroy(handle_);
}

void LtFp8Matmul::release() {
    if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
    for (cublasLtMatrixLayout_t* l : {&a_, &b_, &c_})
        if (*l != nullptr) cublasLtMatrixLayoutDestroy(*l), *l = nullptr;
    desc_ = nullptr;
}

std::string LtFp8Matmul::prepare(const LtFp8Problem& p) {
    release();
    if (handle_ == nullptr) return "cublasLtCreate failed";
    cudaDataType_t a_type, b_type, c_type;
    if (!is_fp8(p.a_type) || !is_fp8(p.b_type) || !cuda_type(p.a_type, &a_type) || !cuda_type(p.b_type, &b_type))
        return "A and B must be FP8 (E4M3 or E5M2)";
    if (p.a_type == GEMMKIT_R_8F_E5M2 && p.b_type == GEMMKIT_R_8F_E5M2)
        return "A and B both E5M2 (cuBLASLt takes E5M2 for at most one of them)";
    if (is_fp8(p.c_type) || !cuda_type(p.c_type, &c_type)) return "C must be BF16, FP16 or FP32";
    // BLOCK would be VEC128_32F on A with BLK128x128_32F on B; gemmkit does not serve it yet.
    if (p.scaling.mode != GEMMKIT_SCALE_TENSOR && p.scaling.mode != GEMMKIT_SCALE_OUTER)
        return "block scaling is not part of this baseline";
    p_ = p;

    cublasStatus_t s = cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulDescCreate", s);
    // TN: FP8 on Hopper reads both operands K-major. FAST_ACCUM is set either way, for the record.
    s = set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, static_cast<int8_t>(p.fast_accum));
    // Per-tensor is the default mode (SCALAR_32F), so only outer vectors set one: a header
    // older than OUTER_VEC_32F (cuBLAS 12.9) still builds and runs per-tensor scales.
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.mode == GEMMKIT_SCALE_OUTER) {
#if CUBLAS_VERSION >= 120900
        const int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;  // the attribute is an int32_t
        s = set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode);
        if (s == CUBLAS_STATUS_SUCCESS) s = set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode);
#else
        return "outer-vector scaling needs cuBLAS 12.9 or newer (built against " + std::to_string(CUBLAS_VERSION) + ")";
#endif
    }
    // A null pointer is cuBLASLt's "1", as in gemmkit_scaling.
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.scale_a != nullptr)
        s = set(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(p.scaling.scale_a));
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.scale_b != nullptr)
        s = set(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(p.scaling.scale_b));
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulDescSetAttribute", s);

    const auto u64 = [](int64_t v) { return static_cast<uint64_t>(v); };
    if ((s = cublasLtMatrixLayoutCreate(&a_, a_type, u64(p.k), u64(p.m), p.lda)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&b_, b_type, u64(p.k), u64(p.n), p.ldb)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&c_, c_type, u64(p.m), u64(p.n), p.ldc)) != CUBLAS_STATUS_SUCCESS)
        return failed("cublasLtMatrixLayoutCreate", s);

    cublasLtMatmulPreference_t pref;
    if ((s = cublasLtMatmulPreferenceCreate(&pref)) != CUBLAS_STATUS_SUCCESS)
        return failed("cublasLtMatmulPreferenceCreate", s);
    const size_t workspace = kWorkspaceBytes;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    s = cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, c_, pref, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    // cuBLASLt answers NOT_SUPPORTED here (not at the call) for a combination it has no kernel of.
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulAlgoGetHeuristic", s);
    if (found == 0) return "cuBLASLt's heuristic found no algorithm";
    algo_ = result.algo;
    return "";
}

cublasStatus_t LtFp8Matmul::run() const {
    return cublasLtMatmul(handle_, desc_, &p_.alpha, p_.A, a_, p_.B, b_, &p_.beta, p_.C, c_, p_.C, c_, &algo_,
                          const_cast<unsigned char*>(workspace_.data()), kWorkspaceBytes, stream_);
}

}  // namespace gemmkit::cli
