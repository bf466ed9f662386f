// Library-side error reporting: a status plus a thread-local message.
// Library code never prints or exits; it returns through fail().
#pragma once

#include <string>

#include "gemmkit/gemmkit.h"

namespace gemmkit {

// Records `message` as this thread's last error and returns `status`.
gemmkit_status fail(gemmkit_status status, std::string message);

// Clears this thread's last error (called when a call succeeds).
void clear_error();

// Turns a CUDA runtime error into GEMMKIT_CUDA_ERROR with "<what>: <cuda message>".
gemmkit_status fail_cuda(cudaError_t err, const char* what);

}  // namespace gemmkit

// Inside a function returning gemmkit_status: returns GEMMKIT_CUDA_ERROR on failure.
#define GEMMKIT_RETURN_IF_CUDA(expr)                                                   \
    do {                                                                               \
        cudaError_t gemmkit_err_ = (expr);                                             \
        if (gemmkit_err_ != cudaSuccess) return ::gemmkit::fail_cuda(gemmkit_err_, #expr); \
    } while (0)
