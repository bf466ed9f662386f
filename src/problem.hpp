// One GEMM call, as the API received it (column-major, cuBLAS semantics).
#pragma once

#include <cstdint>

#include "gemmkit/gemmkit.h"

namespace gemmkit {

// A batch of problems of one shape (gemmkit_gemm_strided_batched_ex, gemmkit_gemm_batched_ex).
// Problem z of `count` reads A + z * stride_a and B + z * stride_b and writes C + z * stride_c
// (strides in elements; 0 gives every problem the same operand), or, with pointer arrays, the
// z-th entries of the device arrays a_array, b_array and c_array (A, B and C are then NULL).
// A plain call is a batch of one with no strides and no arrays.
struct Batch {
    int64_t count = 1;
    int64_t stride_a = 0, stride_b = 0, stride_c = 0;
    bool arrays = false;  // the matrices come from the pointer arrays
    const void* const* a_array = nullptr;
    const void* const* b_array = nullptr;
    void* const* c_array = nullptr;
};

// The fused epilogue (gemmkit_epilogue, gemmkit.h): after alpha and beta, C(i, j) gets bias[i]
// added, is written to aux(i, j), then goes through the activation. bias and aux have C's type
// (validate checks). Problem z of a batch reads bias + z * bias_stride, writes aux + z * aux_stride.
struct Epilogue {
    gemmkit_activation activation = GEMMKIT_ACTIVATION_NONE;
    const void* bias = nullptr;
    int64_t bias_stride = 0;
    void* aux = nullptr;
    int64_t ld_aux = 1, aux_stride = 0;
};

// A grouped call (gemmkit_gemm_grouped_ex): C's columns cut into `count` groups by the device
// array `ends` (group g: columns ends[g - 1] .. ends[g] - 1), group g reading A + g * stride_a
// (Batch::stride_a). Not grouped: count 0 (validate refuses a negative one).
struct Groups {
    const int32_t* ends = nullptr;
    int64_t count = 0;
};

// FP8 scales (gemmkit_gemm_scaled_ex): C(i, j) gets alpha * a(i) * b(j) times the product,
// a(i) = scale_a[0] (tensor) or scale_a[i] (outer), b(j) likewise of scale_b; NULL: 1. Device
// FP32 values, read by the kernel. Unscaled calls leave it empty.
struct Scaling {
    gemmkit_scale_mode mode = GEMMKIT_SCALE_TENSOR;
    const float* a = nullptr;
    const float* b = nullptr;
    bool fast_accum = false;  // sums kept in the tensor cores' FP8 accumulation (KernelInfo::fast_accum)
};

struct Problem {
    gemmkit_op transa = GEMMKIT_OP_N;
    gemmkit_op transb = GEMMKIT_OP_N;
    int64_t m = 0, n = 0, k = 0;
    const void* A = nullptr;
    int64_t lda = 1;
    const void* B = nullptr;
    int64_t ldb = 1;
    void* C = nullptr;
    int64_t ldc = 1;
    // Host values of the compute type, widened to double (exact for float).
    double alpha = 1.0, beta = 0.0;
    gemmkit_dtype a_type = GEMMKIT_R_32F, b_type = GEMMKIT_R_32F, c_type = GEMMKIT_R_32F;
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;
    Batch batch;
    Epilogue epilogue;
    Groups groups;
    Scaling scaling;
};

// Whether p's epilogue does anything beyond alpha and beta (every kernel runs it:
// kernels/epilogue_ops.cuh).
inline bool fused_epilogue(const Problem& p) {
    return p.epilogue.activation != GEMMKIT_ACTIVATION_NONE || p.epilogue.bias != nullptr || p.epilogue.aux != nullptr;
}

// Whether p is a batch (strided, of more than one, or through pointer arrays): only the kernels
// whose launch takes batches (KernelInfo::batches) run it.
inline bool batched(const Problem& p) { return p.batch.count != 1 || p.batch.arrays; }
// Whether p is a grouped call: only the kernels whose launch takes groups (KernelInfo::groups)
// run it, and they run nothing else.
inline bool grouped(const Problem& p) { return p.groups.count > 0; }
// Whether p's matrices come from device arrays of pointers, whose alignment the host cannot see.
inline bool pointer_arrays(const Problem& p) { return p.batch.arrays; }

// Rows of A as stored: m for op N, k for op T (likewise B: k for N, n for T).
inline int64_t stored_rows_a(const Problem& p) { return p.transa == GEMMKIT_OP_N ? p.m : p.k; }
inline int64_t stored_rows_b(const Problem& p) { return p.transb == GEMMKIT_OP_N ? p.k : p.n; }

// "NN", "NT", "TN" or "TT": op(A) then op(B).
inline const char* ops_name(gemmkit_op a, gemmkit_op b) {
    static const char* const kNames[2][2] = {{"NN", "NT"}, {"TN", "TT"}};
    return kNames[a == GEMMKIT_OP_T][b == GEMMKIT_OP_T];
}

// A and B are read only when there is a product to form.
inline bool reads_ab(const Problem& p) { return p.m > 0 && p.n > 0 && p.k > 0 && p.alpha != 0.0; }

// Whether every matrix of p's batch is as aligned to `bytes` as its first: no pointer arrays, and
// strides of whole multiples of `bytes` (a batch of one has no strides to check).
bool batch_keeps_alignment(const Problem& p, int bytes);

// A, B and C start on `bytes` boundaries and each column (lda, ldb, ldc) and batch keeps them there.
bool operands_aligned(const Problem& p, int bytes);

size_t dtype_size(gemmkit_dtype t);      // bytes per element; 0 for an invalid value
const char* dtype_name(gemmkit_dtype t);  // "f32", "f64", "f16", "bf16", "e4m3", "e5m2", or "invalid"
// Whether t is one of the FP8 types (E4M3, E5M2).
inline bool fp8(gemmkit_dtype t) { return t == GEMMKIT_R_8F_E4M3 || t == GEMMKIT_R_8F_E5M2; }

// Problem z of a strided batch, as a plain problem of its own.
inline Problem problem_in_batch(const Problem& p, int64_t z) {
    Problem s = p;
    const auto at = [&](const void* base, int64_t stride, gemmkit_dtype t) -> const void* {
        return base == nullptr ? nullptr : static_cast<const char*>(base) + z * stride * static_cast<int64_t>(dtype_size(t));
    };
    s.A = at(p.A, p.batch.stride_a, p.a_type);
    s.B = at(p.B, p.batch.stride_b, p.b_type);
    s.C = const_cast<void*>(at(p.C, p.batch.stride_c, p.c_type));
    s.epilogue.bias = at(p.epilogue.bias, p.epilogue.bias_stride, p.c_type);
    s.epilogue.aux = const_cast<void*>(at(p.epilogue.aux, p.epilogue.aux_stride, p.c_type));
    s.batch = Batch{};
    return s;
}

}  // namespace gemmkit
