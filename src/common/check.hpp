// Error checks for the tools, tests and examples (not the library, which returns statuses):
// each macro throws std::runtime_error naming the expression, file and line.
#pragma once

#include <stdexcept>
#include <string>

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "gemmkit/gemmkit.h"

namespace gemmkit::detail {
[[noreturn]] inline void throw_error(const char* family, const std::string& what, const char* expr, const char* file,
                                     int line) {
    throw std::runtime_error(std::string(family) + " error: " + what + " in " + expr + " at " + file + ":" +
                             std::to_string(line));
}
}  // namespace gemmkit::detail

#define CUDA_CHECK(expr)                                                                                  \
    do {                                                                                                  \
        cudaError_t e_ = (expr);                                                                          \
        if (e_ != cudaSuccess) ::gemmkit::detail::throw_error("CUDA", cudaGetErrorString(e_), #expr, __FILE__, __LINE__); \
    } while (0)

#define CU_CHECK(expr)                                                                                  \
    do {                                                                                                \
        CUresult e_ = (expr);                                                                           \
        if (e_ != CUDA_SUCCESS) {                                                                       \
            const char* s_ = "unknown";                                                                 \
            cuGetErrorString(e_, &s_);                                                                  \
            ::gemmkit::detail::throw_error("CUDA driver", s_, #expr, __FILE__, __LINE__);               \
        }                                                                                               \
    } while (0)

#define CUBLAS_CHECK(expr)                                                                                      \
    do {                                                                                                        \
        cublasStatus_t e_ = (expr);                                                                             \
        if (e_ != CUBLAS_STATUS_SUCCESS) ::gemmkit::detail::throw_error("cuBLAS", cublasGetStatusString(e_), #expr, __FILE__, __LINE__); \
    } while (0)

#define GEMMKIT_CHECK(expr)                                                                                   \
    do {                                                                                                      \
        gemmkit_status e_ = (expr);                                                                           \
        if (e_ != GEMMKIT_SUCCESS)                                                                            \
            ::gemmkit::detail::throw_error("gemmkit", std::string(gemmkit_status_string(e_)) + ": " + gemmkit_last_error(), #expr, __FILE__, __LINE__); \
    } while (0)
