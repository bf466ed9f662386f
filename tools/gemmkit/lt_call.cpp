#include "lt_call.hpp"

namespace gemmkit::cli {
namespace {

// cuBLASLt's own workspace: what its heuristic may use for the large Hopper kernels.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

}  // namespace

LtCall::LtCall(cudaStream_t stream) : stream_(stream), workspace_(kWorkspaceBytes) {
    if (cublasLtCreate(&handle_) != CUBLAS_STATUS_SUCCESS) handle_ = nullptr;
}

LtCall::~LtCall() {
    release();
    if (handle_ != nullptr) cublasLtDestroy(handle_);
}

void LtCall::release() {
    if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
    for (cublasLtMatrixLayout_t* l : {&a_, &b_, &c_})
        if (*l != nullptr) cublasLtMatrixLayoutDestroy(*l), *l = nullptr;
    desc_ = nullptr;
}

std::string LtCall::failed(const char* what, cublasStatus_t s) {
    return std::string(what) + ": " + cublasGetStatusString(s);
}

std::string LtCall::start(cublasComputeType_t compute, cudaDataType_t scale_type) {
    release();
    if (handle_ == nullptr) return "cublasLtCreate failed";
    if (cublasStatus_t s = cublasLtMatmulDescCreate(&desc_, compute, scale_type); s != CUBLAS_STATUS_SUCCESS)
        return failed("cublasLtMatmulDescCreate", s);
    return "";
}

std::string LtCall::choose(const Layout& a, const Layout& b, const Layout& c) {
    cublasStatus_t s;
    if ((s = cublasLtMatrixLayoutCreate(&a_, a.type, a.rows, a.cols, a.ld)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&b_, b.type, b.rows, b.cols, b.ld)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&c_, c.type, c.rows, c.cols, c.ld)) != CUBLAS_STATUS_SUCCESS)
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

cublasStatus_t LtCall::matmul(const void* alpha, const void* A, const void* B, const void* beta, void* C) const {
    return cublasLtMatmul(handle_, desc_, alpha, A, a_, B, b_, beta, C, c_, C, c_, &algo_,
                          const_cast<unsigned char*>(workspace_.data()), kWorkspaceBytes, stream_);
}

}  // namespace gemmkit::cli
