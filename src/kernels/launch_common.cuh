// What every kernel's launch function shares: the argument block passed by value,
// and the mapping from run-time ops to compile-time template parameters.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "device_state.hpp"
#include "kernels/epilogue_ops.cuh"
#include "problem.hpp"

namespace gemmkit {

// The type alpha and beta have for an output type: double for FP64, float otherwise
// (FP16/BF16 results are scaled in FP32, as cuBLAS does with CUBLAS_COMPUTE_32F).
template <class TC>
using ScalarOf = std::conditional_t<std::is_same_v<TC, double>, double, float>;

// One launch's arguments: A and B of type T, C of type TC. Sizes fit int: chunking.hpp
// splits larger problems.
template <class T, class TC = T>
struct GemmArgs {
    int m, n, k;
    const T* A;
    int64_t lda;
    const T* B;
    int64_t ldb;
    TC* C;
    int64_t ldc;
    ScalarOf<TC> alpha, beta;
    // A batched launch's problem z (blockIdx.z): A, B and C moved z strides (elements), or the
    // z-th pointers of device arrays where a_array is set (problem.hpp, Batch). select_batch.
    int64_t stride_a, stride_b, stride_c;
    const T* const* a_array;
    const T* const* b_array;
    TC* const* c_array;
    EpilogueArgs<TC> epi;  // the fused epilogue (inactive: none), for the rows that run one

    // epi of the block's problem (blockIdx.z, as select_batch), chosen where the epilogue runs:
    // moved at the kernel's start, bias and aux stayed in registers through the main loop and
    // spilled a pipeline kernel (docs/epilogues.md#select-late).
    __device__ EpilogueArgs<TC> epilogue() const {
        EpilogueArgs<TC> e = epi;
        e.select(blockIdx.z);
        return e;
    }
};

template <class T, class TC = T>
GemmArgs<T, TC> make_args(const Problem& p) {
    using S = ScalarOf<TC>;
    const Batch& b = p.batch;
    return GemmArgs<T, TC>{static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k),
                           static_cast<const T*>(p.A), p.lda, static_cast<const T*>(p.B), p.ldb,
                           static_cast<TC*>(p.C), p.ldc, static_cast<S>(p.alpha), static_cast<S>(p.beta),
                           b.stride_a, b.stride_b, b.stride_c,
                           reinterpret_cast<const T* const*>(b.a_array), reinterpret_cast<const T* const*>(b.b_array),
                           reinterpret_cast<TC* const*>(b.c_array), make_epilogue_args<TC>(p)};
}

// Points args at the matrices of the block's problem in a batched launch (blockIdx.z), as a
// kernel that takes batches (KernelInfo::batches) must first. In a launch of one problem
// (gridDim.z 1, strides 0, no arrays) it changes nothing.
// kArrays: whether this kernel may be given pointer arrays. Only a kernel's variant for any
// alignment is (the host cannot see the entries' alignment: batch_keeps_alignment), so only
// those read them; in the 16-byte variants, near their register limit, the branch for the
// arrays cost registers (FP32 step 12's 128 x 128 tiles of op TT spilled 16 bytes).
template <bool kArrays, class T, class TC>
__device__ __forceinline__ void select_batch(GemmArgs<T, TC>& args) {
    const int64_t z = blockIdx.z;  // the epilogue's pointers move later: GemmArgs::epilogue
    if (kArrays && args.c_array != nullptr) {
        // A and B arrays are NULL where A and B are not read (k == 0 or alpha == 0).
        args.A = args.a_array != nullptr ? args.a_array[z] : nullptr;
        args.B = args.b_array != nullptr ? args.b_array[z] : nullptr;
        args.C = args.c_array[z];
        return;
    }
    args.A += z * args.stride_a;
    args.B += z * args.stride_b;
    args.C += z * args.stride_c;
}

// p as a value neither compiler can trace back to the kernel's parameters (an empty asm), so it
// is computed once where this is called and kept, not rebuilt where it is used: after
// select_batch_c, ptxas rebuilt the mma.sync pipeline kernels' C (a parameter load and two
// multiplies) at each of a tile's stores (docs/epilogues.md#c-once). p must point to global
// memory.
template <class P>
__device__ __forceinline__ P* computed_once(P* p) {
    asm("" : "+l"(p));
    __builtin_assume(__isGlobal(p));  // so that its stores stay STG, not generic ST
    return p;
}
// The same for an offset: kept in registers from where it is worked out (the FP64 DMMA copy
// plans' per-thread offsets, which ptxas rebuilt from the thread index and ld at every slab:
// docs/ladder/fp64.md#lab-copy-plan-kept).
__device__ __forceinline__ int64_t computed_once(int64_t x) {
    asm("" : "+l"(x));
    return x;
}
__device__ __forceinline__ uint32_t computed_once(uint32_t x) {
    asm("" : "+r"(x));
    return x;
}

// C of the block's problem in a strided batch (blockIdx.z), moved after the main loop: for the
// mma.sync pipeline kernels, which read A and B of their problem through TileOperands(batch)
// and leave args as it came. Moved at the kernel's start (select_batch), args lived in
// registers, and with a chunk step derived from the slab step (since reverted) the main loops
// lost their uniform registers: 4-14% more instructions a k step, and f16.05 ran 12-26% slower
// than before batches (docs/epilogues.md#select-late).
template <class T, class TC>
__device__ __forceinline__ void select_batch_c(GemmArgs<T, TC>& args) {
    args.C += static_cast<int64_t>(blockIdx.z) * args.stride_c;
}

// A launch's grid with one layer (gridDim.z) a problem of p's batch. The API launches at most
// ChunkLimits::max_batch problems at once (chunking.hpp).
inline dim3 batch_grid(dim3 grid, const Problem& p) {
    grid.z = static_cast<unsigned>(p.batch.count);
    return grid;
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

// Launches kernel<<<grid, threads, smem_bytes, stream>>>(args...), first opting in to its
// dynamic shared memory (opt_in_smem, device_state.hpp).
template <class... Params, class... Args>
cudaError_t launch_with_smem(void (*kernel)(Params...), dim3 grid, int threads, int smem_bytes, cudaStream_t stream,
                             Args... args) {
    if (cudaError_t err = opt_in_smem(reinterpret_cast<const void*>(kernel), smem_bytes); err != cudaSuccess) return err;
    kernel<<<grid, threads, smem_bytes, stream>>>(args...);
    return cudaGetLastError();
}

// Offset of op(X)(row, col) in a column-major X: op N reads X[row + col*ld], op T reads X[col + row*ld].
template <bool kTrans>
__host__ __device__ __forceinline__ int64_t op_offset(int row, int col, int64_t ld) {
    return kTrans ? col + row * ld : row + col * ld;
}

// Where a block's tile of C at (m0, n0) reads its operands, one K-slab of BK at a time:
// op(A)(m0, 0) and op(B)(0, n0) and how far a slab moves each, how many rows and columns of C
// lie from the tile's origin on (the copies clip to them), and how many slabs cover k.
// `batch`: the problem of a strided batch the block computes (blockIdx.z), for kernels that
// leave args as it came (SlabRing, with select_batch_c); 0 where select_batch has moved A and B.
template <class T, int BK, bool kTransA, bool kTransB>
struct TileOperands {
    const T* a;
    const T* b;
    int64_t a_slab, b_slab;  // elements between consecutive slabs
    int m_left, n_left, slabs;

    template <class Args>
    __device__ __forceinline__ TileOperands(const Args& args, int m0, int n0, int64_t batch = 0)
        : a(args.A + batch * args.stride_a + op_offset<kTransA>(m0, 0, args.lda)),
          b(args.B + batch * args.stride_b + op_offset<kTransB>(0, n0, args.ldb)),
          a_slab(op_offset<kTransA>(0, BK, args.lda)),
          b_slab(op_offset<kTransB>(BK, 0, args.ldb)),
          m_left(args.m - m0),
          n_left(args.n - n0),
          slabs((args.k + BK - 1) / BK) {}

    __device__ __forceinline__ const T* a_of(int s) const { return a + s * a_slab; }  // slab s of op(A)
    __device__ __forceinline__ const T* b_of(int s) const { return b + s * b_slab; }  // slab s of op(B)
};

// Whether X (elements of T, leading dimension ld) allows 16-byte accesses: its base 16-byte
// aligned and every column (op N) or row (op T) starting 16-byte aligned too.
template <class T>
__host__ __device__ __forceinline__ bool aligned16(const void* x, int64_t ld) {
    return reinterpret_cast<uintptr_t>(x) % 16 == 0 && ld * static_cast<int64_t>(sizeof(T)) % 16 == 0;
}

// with_ops, plus a third compile-time flag: whether A and B (elements of T) both allow
// 16-byte loads, in every problem of a batch. Calls fn(Bool<transA>{}, Bool<transB>{}, Bool<vec>{}).
template <class T, class Fn>
cudaError_t with_ops_and_vec(const Problem& p, Fn&& fn) {
    const bool vec = aligned16<T>(p.A, p.lda) && aligned16<T>(p.B, p.ldb) && batch_keeps_alignment(p, 16);
    return with_ops(p, [&](auto ta, auto tb) { return vec ? fn(ta, tb, Bool<true>{}) : fn(ta, tb, Bool<false>{}); });
}

// alpha*acc + beta*C (FP32 or FP64), without reading C when beta == 0 (NaN in C must not leak).
template <class T>
__device__ __forceinline__ T scaled_c(const T* c, T acc, T alpha, T beta) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "scaled in the type of C");
    if constexpr (std::is_same_v<T, float>)
        return beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * *c);
    else
        return beta == 0.0 ? alpha * acc : fma(alpha, acc, beta * *c);
}

// C(i, j) = alpha*acc + beta*C(i, j) + bias[i] (FP32 or FP64 C), for i < m, j < n: the fused
// epilogue's first part, for kernels that store a tile of values a thread from unrolled loops
// and then finish them (finish_stored, epilogue_ops.cuh). epi: g.epilogue(), asked once before
// the loops (asked a value, it cost ~16 instructions each: docs/epilogues.md#select-late).
template <class T, class TC>
__device__ __forceinline__ void store_c_biased(const GemmArgs<T, TC>& g, const EpilogueArgs<TC>& epi, int i, int j,
                                               TC acc) {
    TC* const c = g.C + i + static_cast<int64_t>(j) * g.ldc;
    const TC v = scaled_c(c, acc, g.alpha, g.beta);
    *c = epi.bias != nullptr ? v + bias_of<TC>(epi, i, g.m) : v;
}

// C(i, j) = alpha*acc + beta*C(i, j) (FP32 or FP64 C), then the launch's whole fused epilogue
// if it has one (epilogue_ops.cuh), for i < m, j < n: for kernels that store one value a thread.
template <class T, class TC>
__device__ __forceinline__ void store_c(const GemmArgs<T, TC>& g, int i, int j, TC acc) {
    TC* const c = g.C + i + static_cast<int64_t>(j) * g.ldc;
    const TC v = scaled_c(c, acc, g.alpha, g.beta);
    *c = g.epi.active() ? epilogue_value(g.epilogue(), i, j, g.m, g.n, v) : v;
}

inline unsigned ceil_div(int64_t a, int b) { return static_cast<unsigned>((a + b - 1) / b); }

}  // namespace gemmkit
