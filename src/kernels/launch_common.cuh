// What every kernel's launch function shares: the argument block passed by value,
// and the mapping from run-time ops to compile-time template parameters.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "problem.hpp"

namespace gemmkit {

// One launch's arguments. Sizes fit int: chunking.hpp splits larger problems.
template <class T>
struct GemmArgs {
    int m, n, k;
    const T* A;
    int64_t lda;
    const T* B;
    int64_t ldb;
    T* C;
    int64_t ldc;
    T alpha, beta;
};

template <class T>
GemmArgs<T> make_args(const Problem& p) {
    return GemmArgs<T>{static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k),
                       static_cast<const T*>(p.A), p.lda, static_cast<const T*>(p.B), p.ldb,
                       static_cast<T*>(p.C), p.ldc, static_cast<T>(p.alpha), static_cast<T>(p.beta)};
}

template <bool V>
using Bool = std::integral_constant<bool, V>;

// Calls fn(Bool<transA>{}, Bool<transB>{}) for the problem's op combination, so a
// kernel template is instantiated once per combination and branches on none at run time.
template <class Fn>
cudaError_t with_ops(const Problem& p, Fn&& fn) {
    const bool ta = p.transa == GEMMKIT_OP_T, tb = p.transb == GEMMKIT_OP_T;
    if (!ta && !tb) return fn(Bool<false>{}, Bool<false>{});
    if (!ta && tb) return fn(Bool<false>{}, Bool<true>{});
    if (ta && !tb) return fn(Bool<true>{}, Bool<false>{});
    return fn(Bool<true>{}, Bool<true>{});
}

// Launches kernel<<<grid, threads, smem_bytes, stream>>>(args...), first opting in to dynamic
// shared memory above the default 48 KiB (cudaFuncAttributeMaxDynamicSharedMemorySize).
template <class... Params, class... Args>
cudaError_t launch_with_smem(void (*kernel)(Params...), dim3 grid, int threads, int smem_bytes, cudaStream_t stream,
                             Args... args) {
    if (smem_bytes > 48 * 1024) {
        cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
        if (err != cudaSuccess) return err;
    }
    kernel<<<grid, threads, smem_bytes, stream>>>(args...);
    return cudaGetLastError();
}

inline unsigned ceil_div(int64_t a, int b) { return static_cast<unsigned>((a + b - 1) / b); }

}  // namespace gemmkit
