// The fused epilogue's arithmetic (gemmkit_epilogue, gemmkit.h), shared by every kernel:
// after alpha and beta, C(i, j) gets bias[i] added, its value rounded to C's type is written to
// aux(i, j), and goes through the activation, in the scaling type S (float, or double for FP64
// C). The choices are run-time values: the main loop is the same machine code with or without
// them, and one instantiation serves every activation. Kernels apply it in two parts, the bias
// as they scale a tile and the rest in a loop that is not unrolled (finish_stored), or at once
// where they store one value a thread (epilogue_value): docs/epilogues.md.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "problem.hpp"

namespace gemmkit {

// Conversions through FP32, the accumulation type of every 16-bit kernel.
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ __forceinline__ T from_float(float x) {
    if constexpr (std::is_same_v<T, __half>)
        return __float2half_rn(x);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>)
        return __float2bfloat16_rn(x);
    else
        return x;
}

// x of C's type TC in the scaling type S, and back (FP64 stays FP64).
template <class S, class TC>
__device__ __forceinline__ S widen(TC x) {
    if constexpr (std::is_same_v<TC, double>)
        return x;
    else
        return to_float(x);
}
template <class TC, class S>
__device__ __forceinline__ TC narrow(S v) {
    if constexpr (std::is_same_v<TC, double>)
        return v;
    else
        return from_float<TC>(v);
}

// A launch's epilogue, typed: bias (m values) and aux (m x n, ld_aux) of C's type, moved to the
// block's problem of a batch by select (their strides in elements).
template <class TC>
struct EpilogueArgs {
    int activation;  // gemmkit_activation
    const TC* bias;  // or null
    TC* aux;         // or null
    int64_t ld_aux, bias_stride, aux_stride;

    __host__ __device__ bool active() const {
        return activation != GEMMKIT_ACTIVATION_NONE || bias != nullptr || aux != nullptr;
    }
    __device__ __forceinline__ void select(int64_t z) {
        if (bias != nullptr) bias += z * bias_stride;
        if (aux != nullptr) aux += z * aux_stride;
    }
};

template <class TC>
EpilogueArgs<TC> make_epilogue_args(const Problem& p) {
    const Epilogue& e = p.epilogue;
    return {static_cast<int>(e.activation), static_cast<const TC*>(e.bias), static_cast<TC*>(e.aux), e.ld_aux,
            e.bias_stride, e.aux_stride};
}

// tanh(x) with one MUFU instruction (max relative error ~2^-10.7): where C is 16-bit, whose
// rounding (2^-8 for BF16, 2^-11 for FP16) the error then hardly shows in; FP32 and FP64 C take
// the accurate functions.
__device__ __forceinline__ float tanh_approx(float x) {
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// An activation as a compile-time value: with_activation(a, fn) calls fn(ActivationIs<a>{}),
// the run-time activation's dispatch to activate<kA>. (Used in the unrolled loops of a tile,
// whether per value or hoisted around them, it made ptxas slow and spill:
// docs/epilogues.md#build-time; the kernels call it from rolled loops only.)
template <int kActivation>
using ActivationIs = std::integral_constant<int, kActivation>;

template <class Fn>
__device__ __forceinline__ void with_activation(int activation, Fn&& fn) {
    switch (activation) {
        case GEMMKIT_ACTIVATION_RELU: return fn(ActivationIs<GEMMKIT_ACTIVATION_RELU>{});
        case GEMMKIT_ACTIVATION_GELU_TANH: return fn(ActivationIs<GEMMKIT_ACTIVATION_GELU_TANH>{});
        case GEMMKIT_ACTIVATION_GELU_ERF: return fn(ActivationIs<GEMMKIT_ACTIVATION_GELU_ERF>{});
        case GEMMKIT_ACTIVATION_SILU: return fn(ActivationIs<GEMMKIT_ACTIVATION_SILU>{});
        default: return fn(ActivationIs<GEMMKIT_ACTIVATION_NONE>{});
    }
}

// The activation kA of v, in the scaling type S; kFast (16-bit C): tanh.approx and __expf for
// the tanh GELU and SiLU. ReLU keeps NaN (v < 0 is false for it), as PyTorch's does.
template <int kA, bool kFast, class S>
__device__ __forceinline__ S activate(S v) {
    constexpr bool kF64 = std::is_same_v<S, double>;
    if constexpr (kA == GEMMKIT_ACTIVATION_RELU) {
        return v < S(0) ? S(0) : v;
    } else if constexpr (kA == GEMMKIT_ACTIVATION_GELU_TANH) {
        const S u = S(0.7978845608028654) * (v + S(0.044715) * v * v * v);  // sqrt(2 / pi) (v + 0.044715 v^3)
        if constexpr (kF64)
            return 0.5 * v * (1.0 + tanh(u));
        else
            return 0.5f * v * (1.0f + (kFast ? tanh_approx(u) : tanhf(u)));
    } else if constexpr (kA == GEMMKIT_ACTIVATION_GELU_ERF) {
        if constexpr (kF64)
            return 0.5 * v * (1.0 + erf(v * 0.7071067811865476));
        else
            return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
    } else if constexpr (kA == GEMMKIT_ACTIVATION_SILU) {
        if constexpr (kF64)
            return v / (1.0 + exp(-v));
        else
            return v / (1.0f + (kFast ? __expf(-v) : expf(-v)));
    } else {
        return v;
    }
}

// The same with the activation a run-time value: for paths that store one value at a time
// outside a tile's unrolled loops.
template <bool kFast, class S>
__device__ __forceinline__ S activate(int activation, S v) {
    S out = v;
    with_activation(activation, [&](auto a) { out = activate<decltype(a)::value, kFast>(v); });
    return out;
}

// bias[i] of the epilogue's problem in the scaling type S; 0 without a bias, and for rows past
// m (a TMA store stages them, then clips them).
template <class S, class TC>
__device__ __forceinline__ S bias_of(const EpilogueArgs<TC>& e, int i, int m) {
    return e.bias != nullptr && i < m ? widen<S>(e.bias[i]) : S(0);
}

// The second part of the epilogue of C(i, j) for paths that add the bias as they scale a
// tile and finish it afterwards, in a loop that is not unrolled (finish_stored; Hopper's staged
// pieces): x, C(i, j)'s value with the bias as rounded to TC, written to aux, then through the
// activation. Unrolled over a tile's values, the activation's code tripled ptxas's time on a
// Hopper kernel and made ptxas spill in others (docs/epilogues.md#build-time).
template <class TC>
__device__ __forceinline__ TC finish_value(const EpilogueArgs<TC>& e, int i, int j, int m, int n, TC x,
                                           bool write_aux = true) {
    using S = std::conditional_t<std::is_same_v<TC, double>, double, float>;
    if (write_aux && e.aux != nullptr && i < m && j < n) e.aux[i + static_cast<int64_t>(j) * e.ld_aux] = x;
    return narrow<TC>(activate<sizeof(TC) == 2>(e.activation, widen<S>(x)));
}

// Calls fn(std::false_type{}) where a tile's stores read nothing but the accumulators (beta 0,
// no bias: a plain GEMM), fn(std::true_type{}) otherwise, so that kernels compile their unrolled
// store loops once for each case. With both cases behind run-time tests in one loop, every store
// of a plain GEMM carried two predicated-off loads (C's, the bias's) that it still waited on
// (docs/epilogues.md#plain-stores).
template <class S, class TC, class Fn>
__device__ __forceinline__ void with_reads(S beta, const EpilogueArgs<TC>& e, Fn&& fn) {
    if (beta == S(0) && e.bias == nullptr)
        fn(std::false_type{});
    else
        fn(std::true_type{});
}

// Whether the epilogue has a second part (aux or an activation).
template <class TC>
__host__ __device__ __forceinline__ bool finishes(const EpilogueArgs<TC>& e) {
    return e.aux != nullptr || e.activation != GEMMKIT_ACTIVATION_NONE;
}

// finish_value on the `count` elements of C (ld ldc, m x n) this thread has just stored:
// element v is C(at(v).x, at(v).y); those outside m x n are skipped.
template <class TC, class At>
__device__ __forceinline__ void finish_stored(const EpilogueArgs<TC>& e, TC* C, int64_t ldc, int m, int n, int count,
                                              At at) {
    if (!finishes(e)) return;
#pragma unroll 1
    for (int v = 0; v < count; ++v) {
        const int2 ij = at(v);
        if (ij.x < m && ij.y < n) {
            TC* const p = C + ij.x + static_cast<int64_t>(ij.y) * ldc;
            *p = finish_value(e, ij.x, ij.y, m, n, *p);
        }
    }
}

// The whole epilogue of C(i, j), v being alpha * acc + beta * C(i, j): both parts at once, for
// paths that store one value a thread, with the same values as the two parts give (the
// activation reads the pre-activation as rounded to TC, as aux holds it).
template <class TC, class S>
__device__ __forceinline__ S epilogue_value(const EpilogueArgs<TC>& e, int i, int j, int m, int n, S v) {
    return widen<S>(finish_value(e, i, j, m, n, narrow<TC>(v + bias_of<S>(e, i, m))));
}

}  // namespace gemmkit
