#include "lt_epilogue.hpp"

#include <cstdint>

namespace gemmkit::cli {
namespace {

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

std::string LtMatmul::prepare(const Problem& p) {
    if (batched(p)) return "a batch (this baseline runs one problem)";
    cublasLtEpilogue_t epilogue;
    if (!lt_epilogue_of(p.epilogue, &epilogue)) return "cuBLASLt has no such epilogue";
    p_ = p;
    alpha32_ = static_cast<float>(p.alpha), beta32_ = static_cast<float>(p.beta);
    const bool f64 = p.compute == GEMMKIT_COMPUTE_64F;
    const cudaDataType_t ab = cuda_type(p.a_type), c = cuda_type(p.c_type);
    if (std::string why = start(compute_type(p.compute), f64 ? CUDA_R_64F : CUDA_R_32F); !why.empty()) return why;
    const cublasOperation_t ta = p.transa == GEMMKIT_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = p.transb == GEMMKIT_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N;
    const Epilogue& e = p.epilogue;
    cublasStatus_t s = set(CUBLASLT_MATMUL_DESC_TRANSA, ta);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_TRANSB, tb);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue);
    if (s == CUBLAS_STATUS_SUCCESS && e.bias != nullptr) s = set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, e.bias);
    if (s == CUBLAS_STATUS_SUCCESS && e.bias != nullptr) s = set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, c);
    if (s == CUBLAS_STATUS_SUCCESS && e.aux != nullptr) s = set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, e.aux);
    if (s == CUBLAS_STATUS_SUCCESS && e.aux != nullptr) s = set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, e.ld_aux);
    if (s == CUBLAS_STATUS_SUCCESS && e.aux != nullptr)
        s = set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, static_cast<int32_t>(c));
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulDescSetAttribute", s);
    const uint64_t rows_a = stored_rows_a(p), rows_b = stored_rows_b(p);
    const uint64_t cols_a = ta == CUBLAS_OP_N ? p.k : p.m, cols_b = tb == CUBLAS_OP_N ? p.n : p.k;
    return choose({ab, rows_a, cols_a, p.lda}, {ab, rows_b, cols_b, p.ldb},
                  {c, static_cast<uint64_t>(p.m), static_cast<uint64_t>(p.n), p.ldc});
}

cublasStatus_t LtMatmul::run() const {
    const double alpha64 = p_.alpha, beta64 = p_.beta;
    const bool f64 = p_.compute == GEMMKIT_COMPUTE_64F;
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32_;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32_;
    return matmul(alpha, p_.A, p_.B, beta, p_.C);
}

}  // namespace gemmkit::cli
