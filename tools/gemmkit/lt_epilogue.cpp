#include "lt_epilogue.hpp"

#include <cstdint>

namespace gemmkit::cli {
namespace {

// cuBLASLt's own workspace: what its heuristic may use for the large Hopper kernels.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

cudaDataType_t cuda_type(gemmkit_dtype t) {
    switch (t) {
        case GEMMKIT_R_64F: return CUDA_R_64F;
        case GEMMKIT_R_16F: return CUDA_R_16F;
        case GEMMKIT_R_16BF: return CUDA_R_16BF;
        default: return CUDA_R_32F;
    }
}

cublasComputeType_t compute_type(gemmkit_compute c) {
    switch (c) {
        case GEMMKIT_COMPUTE_64F: return CUBLAS_COMPUTE_64F;
        case GEMMKIT_COMPUTE_32F_FAST_TF32: return CUBLAS_COMPUTE_32F_FAST_TF32;
        default: return CUBLAS_COMPUTE_32F;
    }
}

template <class V>
cublasStatus_t set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const V& value) {
    return cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value);
}

std::string failed(const char* what, cublasStatus_t s) { return std::string(what) + ": " + cublasGetStatusString(s); }

}  // namespace

bool lt_epilogue_of(const Epilogue& e, cublasLtEpilogue_t* out) {
    const bool bias = e.bias != nullptr, aux = e.aux != nullptr;
    switch (e.activation) {
        case GEMMKIT_ACTIVATION_NONE:
            if (aux) return false;
            *out = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
            return true;
        case GEMMKIT_ACTIVATION_RELU:
            if (aux) return false;  // cuBLASLt's RELU_AUX is a bit mask
            *out = bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
            return true;
        case GEMMKIT_ACTIVATION_GELU_TANH:
            *out = aux ? (bias ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS : CUBLASLT_EPILOGUE_GELU_AUX)
                       : (bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU);
            return true;
        default:
            return false;
    }
}

LtMatmul::LtMatmul(cudaStream_t stream) : stream_(stream), workspace_(kWorkspaceBytes) {
    if (cublasLtCreate(&handle_) != CUBLAS_STATUS_SUCCESS) handle_ = nullptr;
}

LtMatmul::~LtMatmul() {
    release();
    if (handle_ != nullptr) cublasLtDestroy(handle_);
}

void LtMatmul::release() {
    if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
    for (cublasLtMatrixLayout_t* l : {&a_, &b_, &c_})
        if (*l != nullptr) cublasLtMatrixLayoutDestroy(*l), *l = nullptr;
    desc_ = nullptr;
}

std::string LtMatmul::prepare(const Problem& p) {
    release();
    if (handle_ == nullptr) return "cublasLtCreate failed";
    if (batched(p)) return "a batch (this baseline runs one problem)";
    cublasLtEpilogue_t epilogue;
    if (!lt_epilogue_of(p.epilogue, &epilogue)) return "cuBLASLt has no such epilogue";
    p_ = p;
    alpha32_ = static_cast<float>(p.alpha), beta32_ = static_cast<float>(p.beta);
    const bool f64 = p.compute == GEMMKIT_COMPUTE_64F;
    const cudaDataType_t ab = cuda_type(p.a_type), c = cuda_type(p.c_type);
    if (cublasStatus_t s = cublasLtMatmulDescCreate(&desc_, compute_type(p.compute), f64 ? CUDA_R_64F : CUDA_R_32F);
        s != CUBLAS_STATUS_SUCCESS)
        return failed("cublasLtMatmulDescCreate", s);
    const cublasOperation_t ta = p.transa == GEMMKIT_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = p.transb == GEMMKIT_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
    const Epilogue& e = p.epilogue;
    cublasStatus_t s = set(desc_, CUBLASLT_MATMUL_DESC_TRANSA, ta);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(desc_, CUBLASLT_MATMUL_DESC_TRANSB, tb);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue);
    if (s == CUBLAS_STATUS_SUCCESS && e.bias != nullptr) s = set(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, e.bias);
    if (s == CUBLAS_STATUS_SUCCESS && e.bias != nullptr) s = set(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, c);
    if (s == CUBLAS_STATUS_SUCCESS && e.aux != nullptr) s = set(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, e.aux);
    if (s == CUBLAS_STATUS_SUCCESS && e.aux != nullptr) s = set(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, e.ld_aux);
    if (s == CUBLAS_STATUS_SUCCESS && e.aux != nullptr)
        s = set(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, static_cast<int32_t>(c));
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulDescSetAttribute", s);
    const uint64_t rows_a = stored_rows_a(p), rows_b = stored_rows_b(p);
    const uint64_t cols_a = ta == CUBLAS_OP_N ? p.k : p.m, cols_b = tb == CUBLAS_OP_N ? p.n : p.k;
    if ((s = cublasLtMatrixLayoutCreate(&a_, ab, rows_a, cols_a, p.lda)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&b_, ab, rows_b, cols_b, p.ldb)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&c_, c, p.m, p.n, p.ldc)) != CUBLAS_STATUS_SUCCESS)
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
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulAlgoGetHeuristic", s);
    if (found == 0) return "cuBLASLt's heuristic found no algorithm";
    algo_ = result.algo;
    return "";
}

cublasStatus_t LtMatmul::run() const {
    const double alpha64 = p_.alpha, beta64 = p_.beta;
    const bool f64 = p_.compute == GEMMKIT_COMPUTE_64F;
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32_;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32_;
    return cublasLtMatmul(handle_, desc_, alpha, p_.A, a_, p_.B, b_, beta, p_.C, c_, p_.C, c_, &algo_,
                          const_cast<unsigned char*>(workspace_.data()), kWorkspaceBytes, stream_);
}

}  // namespace gemmkit::cli
