// cuBLASLt with a fused epilogue: the baseline of `gemmkit bench --suite epilogue`. One matmul
// descriptor, layouts and heuristic algorithm a problem, made once and run many times.
#pragma once

#include <string>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.hpp"
#include "lt_call.hpp"
#include "problem.hpp"

namespace gemmkit::cli {

// The cuBLASLt epilogue with the semantics of p's (problem.hpp, Epilogue), or false where
// cuBLASLt has none: GELU_ERF and SILU have no cuBLASLt form, and its ReLU aux is a bit mask,
// not the pre-activation.
bool lt_epilogue_of(const Epilogue& e, cublasLtEpilogue_t* out);

class LtMatmul : public LtCall {
public:
    explicit LtMatmul(cudaStream_t stream) : LtCall(stream) {}

    // Describes p (types, ops, sizes, epilogue; one problem, alpha and beta taken from p) and
    // asks the heuristic for an algorithm. "" when ready, else why cuBLASLt cannot run it.
    std::string prepare(const Problem& p);
    // The prepared call on the stream.
    cublasStatus_t run() const;

private:
    Problem p_;
    float alpha32_ = 1, beta32_ = 0;
};

}  // namespace gemmkit::cli
