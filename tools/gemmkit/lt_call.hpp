// What each cuBLASLt baseline of the bench (lt_epilogue.hpp, lt_fp8.hpp) holds: a handle, one
// matmul descriptor, the A, B and C layouts and the heuristic's algorithm of a problem, made
// once and run many times, and cuBLASLt's own workspace. A baseline sets the descriptor's
// attributes for its semantics; the rest is here.
#pragma once

#include <cstdint>
#include <string>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.hpp"  // DeviceBuffer

namespace gemmkit::cli {

class LtCall {
public:
    LtCall(const LtCall&) = delete;
    LtCall& operator=(const LtCall&) = delete;

protected:
    explicit LtCall(cudaStream_t stream);
    ~LtCall();

    // Frees the last problem's descriptor and layouts, and makes a descriptor for this one
    // (compute type, scale type): "" when made, else why not.
    std::string start(cublasComputeType_t compute, cudaDataType_t scale_type);
    template <class V>
    cublasStatus_t set(cublasLtMatmulDescAttributes_t attr, const V& value) {
        return cublasLtMatmulDescSetAttribute(desc_, attr, &value, sizeof value);
    }
    // A, B and C as stored (type, rows, columns, leading dimension), then the heuristic's first
    // algorithm for them with the descriptor: "" when ready, else why cuBLASLt cannot run it.
    struct Layout {
        cudaDataType_t type;
        uint64_t rows, cols;
        int64_t ld;
    };
    std::string choose(const Layout& a, const Layout& b, const Layout& c);
    // The prepared call, D written over C.
    cublasStatus_t matmul(const void* alpha, const void* A, const void* B, const void* beta, void* C) const;

    static std::string failed(const char* what, cublasStatus_t s);
    // The stream the calls run on (prepare-time copies go there too, in order with them).
    cudaStream_t stream() const { return stream_; }

private:
    void release();

    cudaStream_t stream_;
    cublasLtHandle_t handle_ = nullptr;
    cublasLtMatmulDesc_t desc_ = nullptr;
    cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
    DeviceBuffer<unsigned char> workspace_;
};

}  // namespace gemmkit::cli
