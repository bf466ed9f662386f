#include "validate.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "chunking.hpp"
#include "common/status.hpp"
#include "kernels/fp8/quantize.hpp"

namespace gemmkit {
namespace {

bool valid_op(gemmkit_op op) { return op == GEMMKIT_OP_N || op == GEMMKIT_OP_T; }
bool valid_compute(gemmkit_compute c) {
    return c == GEMMKIT_COMPUTE_32F || c == GEMMKIT_COMPUTE_32F_FAST_TF32 || c == GEMMKIT_COMPUTE_64F;
}

gemmkit_status invalid(const std::string& what) { return fail(GEMMKIT_INVALID_VALUE, what); }

std::string num(int64_t v) { return std::to_string(v); }

// Element pointers must be aligned to their element size: anything else is not an array of T.
bool misaligned(const void* ptr, gemmkit_dtype t) {
    return reinterpret_cast<uintptr_t>(ptr) % dtype_size(t) != 0;
}

// Bytes from the start to the end of a k x mn matrix of `elem`-byte values with leading dimension
// ld (k, mn > 0), or -1 where that passes int64.
int64_t extent_bytes(int64_t k, int64_t mn, int64_t ld, int64_t elem) {
    int64_t elems = 0, bytes = 0;
    if (__builtin_mul_overflow(mn - 1, ld, &elems) || __builtin_add_overflow(elems, k, &elems) ||
        __builtin_mul_overflow(elems, elem, &bytes))
        return -1;
    return bytes;
}

// Whether the a_bytes at a and the b_bytes at b share a byte.
bool overlap(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
    const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return x < y + static_cast<uintptr_t>(b_bytes) && y < x + static_cast<uintptr_t>(a_bytes);
}

// A strided batch: strides that are not negative, and problems whose C do not overlap (each
// writes its own C). A stride of 0 gives every problem the same A or B.
gemmkit_status validate_strides(const Problem& p) {
    const Batch& b = p.batch;
    if (b.stride_a < 0) return invalid("stride_a = " + num(b.stride_a) + " is negative (0 gives every problem the same A)");
    if (b.stride_b < 0) return invalid("stride_b = " + num(b.stride_b) + " is negative (0 gives every problem the same B)");
    if (b.stride_c < 0) return invalid("stride_c = " + num(b.stride_c) + " is negative");
    // The last problem's matrices must be addressable: stride * (batch_count - 1) bytes fit int64.
    const int64_t last = b.count - 1, most = INT64_MAX / 16;
    if (last > 0 && (b.stride_a > most / last || b.stride_b > most / last || b.stride_c > most / last))
        return invalid("the strides times batch_count - 1 = " + num(last) + " overflow a 64-bit offset");
    const int64_t c_extent = p.ldc * (p.n - 1) + p.m;  // elements from C's first to its last
    if (b.count > 1 && b.stride_c < c_extent)
        return invalid("stride_c = " + num(b.stride_c) + " is less than ldc * (n - 1) + m = " + num(c_extent) +
                       ": the problems' C would overlap");
    return GEMMKIT_SUCCESS;
}

// A pointer-array batch: the arrays themselves (their entries live on the device, where the host
// cannot check them), and sizes that need no chunks (chunking.hpp cannot move a matrix it
// cannot see).
gemmkit_status validate_arrays(const Problem& p) {
    const Batch& b = p.batch;
    if (b.c_array == nullptr) return invalid("Carray is NULL");
    for (const auto& [array, name] : {std::pair<const void*, const char*>{b.a_array, "Aarray"},
                                      {b.b_array, "Barray"}, {b.c_array, "Carray"}})
        if (reinterpret_cast<uintptr_t>(array) % alignof(void*) != 0)
            return invalid(std::string(name) + " is not aligned to a pointer's size (it is an array of pointers)");
    if (reads_ab(p)) {
        if (b.a_array == nullptr) return invalid("Aarray is NULL (it is read: k > 0 and alpha != 0)");
        if (b.b_array == nullptr) return invalid("Barray is NULL (it is read: k > 0 and alpha != 0)");
    }
    const ChunkLimits lim;
    if (p.m > lim.max_m || p.n > lim.max_n || p.k > lim.max_k)
        return fail(GEMMKIT_NOT_SUPPORTED, "a pointer-array batch takes m, k <= " + num(lim.max_m) + " and n <= " +
                                               num(lim.max_n) + "; m, n, k = " + num(p.m) + ", " + num(p.n) + ", " +
                                               num(p.k) + " (use a strided batch)");
    return GEMMKIT_SUCCESS;
}

// The fused epilogue's pointers and sizes (its descriptor was read by read_epilogue).
gemmkit_status validate_epilogue(const Problem& p) {
    const Epilogue& e = p.epilogue;
    const int64_t last = p.batch.count - 1;  // the problems after the first
    if (e.bias != nullptr) {
        if (misaligned(e.bias, p.c_type)) return invalid("epilogue->bias is not aligned to its element size");
        if (e.bias_stride < 0) return invalid("epilogue->bias_stride = " + num(e.bias_stride) + " is negative (0 shares one bias)");
        if (last > 0 && e.bias_stride > INT64_MAX / 16 / last)
            return invalid("epilogue->bias_stride = " + num(e.bias_stride) + " times batch_count - 1 = " + num(last) +
                           " overflows a 64-bit offset");
    }
    if (e.aux == nullptr) return GEMMKIT_SUCCESS;
    if (misaligned(e.aux, p.c_type)) return invalid("epilogue->aux is not aligned to its element size");
    if (e.ld_aux < std::max<int64_t>(1, p.m))
        return invalid("epilogue->ld_aux = " + num(e.ld_aux) + " is less than max(1, m = " + num(p.m) + ")");
    if (p.n > 1 && e.ld_aux > (INT64_MAX / 16 - p.m) / (p.n - 1))
        return invalid("epilogue->ld_aux = " + num(e.ld_aux) + " times n - 1 overflows a 64-bit offset");
    if (e.aux_stride < 0) return invalid("epilogue->aux_stride = " + num(e.aux_stride) + " is negative");
    const int64_t extent = e.ld_aux * (p.n - 1) + p.m;
    if (last > 0 && e.aux_stride < extent)
        return invalid("epilogue->aux_stride = " + num(e.aux_stride) + " is less than ld_aux * (n - 1) + m = " +
                       num(extent) + ": the problems' aux would overlap");
    if (last > 0 && e.aux_stride > INT64_MAX / 16 / last)
        return invalid("epilogue->aux_stride = " + num(e.aux_stride) + " times batch_count - 1 = " + num(last) +
                       " overflows a 64-bit offset");
    return GEMMKIT_SUCCESS;
}

// A grouped call (gemmkit_gemm_grouped_ex): the ends array itself (its values live on the
// device, where the kernel checks them), A's stride, and what the grouped kernels take.
gemmkit_status validate_groups(const Problem& p) {
    const Groups& g = p.groups;
    if (g.count > 65535) return fail(GEMMKIT_NOT_SUPPORTED, "group_count = " + num(g.count) + " is more than 65535");
    if (g.ends == nullptr) return invalid("group_ends is NULL (a device array of group_count int32 values)");
    if (reinterpret_cast<uintptr_t>(g.ends) % alignof(int32_t) != 0)
        return invalid("group_ends is not aligned to 4 bytes (it is an array of int32)");
    const int64_t stride_a = p.batch.stride_a, last = g.count - 1;
    if (stride_a < 0) return invalid("stride_a = " + num(stride_a) + " is negative (0 gives every group the same A)");
    if (last > 0 && stride_a > INT64_MAX / 16 / last)
        return invalid("stride_a = " + num(stride_a) + " times group_count - 1 = " + num(last) +
                       " overflows a 64-bit offset");
    const Epilogue& e = p.epilogue;
    if (e.bias != nullptr && last > 0 && e.bias_stride > INT64_MAX / 16 / last)
        return invalid("epilogue->bias_stride = " + num(e.bias_stride) + " times group_count - 1 = " + num(last) +
                       " overflows a 64-bit offset");
    if (e.aux != nullptr && e.aux_stride != 0)
        return invalid("epilogue->aux_stride = " + num(e.aux_stride) +
                       " in a grouped call: aux is one m x n matrix, like C, so it must be 0");
    if (!reads_ab(p))
        return fail(GEMMKIT_NOT_SUPPORTED, "a grouped call needs k > 0 and alpha != 0 (C = beta C by groups is not served)");
    const ChunkLimits lim;
    if (p.m > lim.max_m || p.n > lim.max_n || p.k > lim.max_k)
        return fail(GEMMKIT_NOT_SUPPORTED, "a grouped call takes m, k <= " + num(lim.max_m) + " and n <= " +
                                               num(lim.max_n) + "; m, n, k = " + num(p.m) + ", " + num(p.n) + ", " +
                                               num(p.k));
    return GEMMKIT_SUCCESS;
}

}  // namespace

gemmkit_status read_epilogue(const gemmkit_epilogue* d, gemmkit_dtype c_type, Epilogue* out) {
    *out = Epilogue{};
    if (d == nullptr) return GEMMKIT_SUCCESS;
    // The fields of the first version, through aux_stride: every caller's struct has them.
    constexpr size_t kFirstVersion = offsetof(gemmkit_epilogue, aux_stride) + sizeof(int64_t);
    if (d->size < kFirstVersion || d->size > sizeof(gemmkit_epilogue))
        return invalid("epilogue->size = " + std::to_string(d->size) + " is not a gemmkit_epilogue's (" +
                       std::to_string(sizeof(gemmkit_epilogue)) +
                       "): start from GEMMKIT_EPILOGUE_INIT, with the header of this library's version");
    if (d->activation < GEMMKIT_ACTIVATION_NONE || d->activation > GEMMKIT_ACTIVATION_SILU)
        return invalid("epilogue->activation = " + num(d->activation) + " is not a gemmkit_activation");
    // An invalid c_type is validate()'s to name; the types are compared with a valid one only.
    const bool c_valid = dtype_size(c_type) != 0;
    if (c_valid && d->bias != nullptr && d->bias_type != c_type)
        return invalid(std::string("epilogue->bias_type is ") + dtype_name(d->bias_type) + ", not C's type (" +
                       dtype_name(c_type) + ")");
    if (c_valid && d->aux != nullptr && d->aux_type != c_type)
        return invalid(std::string("epilogue->aux_type is ") + dtype_name(d->aux_type) + ", not C's type (" +
                       dtype_name(c_type) + ")");
    out->activation = d->activation;
    out->bias = d->bias;
    out->bias_stride = d->bias_stride;
    out->aux = d->aux;
    out->ld_aux = d->ld_aux;
    out->aux_stride = d->aux_stride;
    return GEMMKIT_SUCCESS;
}

gemmkit_status read_scaling(const gemmkit_scaling* d, gemmkit_dtype a_type, gemmkit_dtype b_type, Scaling* out) {
    *out = Scaling{};
    for (const auto& [type, name] : {std::pair{a_type, "a_type"}, {b_type, "b_type"}})
        if (!fp8(type))
            return invalid(std::string(name) + " = " + dtype_name(type) +
                           ": gemmkit_gemm_scaled_ex takes FP8 operands (GEMMKIT_R_8F_E4M3 or GEMMKIT_R_8F_E5M2)");
    if (d == nullptr) return GEMMKIT_SUCCESS;
    if (d->size != sizeof(gemmkit_scaling))  // one version so far: the size must be its own
        return invalid("scaling->size = " + std::to_string(d->size) + " is not a gemmkit_scaling's (" +
                       std::to_string(sizeof(gemmkit_scaling)) +
                       "): start from GEMMKIT_SCALING_INIT, with the header of this library's version");
    if (d->mode < GEMMKIT_SCALE_TENSOR || d->mode > GEMMKIT_SCALE_BLOCK)
        return invalid("scaling->mode = " + num(d->mode) + " is not a gemmkit_scale_mode");
    for (const auto& [ptr, name] : {std::pair{d->scale_a, "scaling->scale_a"}, {d->scale_b, "scaling->scale_b"}})
        if (reinterpret_cast<uintptr_t>(ptr) % alignof(float) != 0)
            return invalid(std::string(name) + " is not aligned to 4 bytes (it is an array of float)");
    if (d->fast_accum != 0 && d->fast_accum != 1)
        return invalid("scaling->fast_accum = " + num(d->fast_accum) + " is not 0 or 1");
    if (d->mode == GEMMKIT_SCALE_BLOCK && d->fast_accum == 1)
        return fail(GEMMKIT_NOT_SUPPORTED,
                    "scaling->fast_accum = 1 with GEMMKIT_SCALE_BLOCK: block scales are applied as the sums move "
                    "into FP32 every 128 of k, which fast_accum skips; set fast_accum = 0");
    out->fast_accum = d->fast_accum == 1;
    out->mode = d->mode;
    out->a = d->scale_a;
    out->b = d->scale_b;
    return GEMMKIT_SUCCESS;
}

gemmkit_status validate(const Problem& p, bool alpha_null, bool beta_null) {
    if (!valid_op(p.transa)) return invalid("transa = " + num(p.transa) + " is not GEMMKIT_OP_N or GEMMKIT_OP_T");
    if (!valid_op(p.transb)) return invalid("transb = " + num(p.transb) + " is not GEMMKIT_OP_N or GEMMKIT_OP_T");
    if (p.m < 0) return invalid("m = " + num(p.m) + " is negative");
    if (p.n < 0) return invalid("n = " + num(p.n) + " is negative");
    if (p.k < 0) return invalid("k = " + num(p.k) + " is negative");
    if (dtype_size(p.a_type) == 0) return invalid("a_type = " + num(p.a_type) + " is not a gemmkit_dtype");
    if (dtype_size(p.b_type) == 0) return invalid("b_type = " + num(p.b_type) + " is not a gemmkit_dtype");
    if (dtype_size(p.c_type) == 0) return invalid("c_type = " + num(p.c_type) + " is not a gemmkit_dtype");
    if (!valid_compute(p.compute)) return invalid("compute = " + num(p.compute) + " is not a gemmkit_compute");

    const int64_t rows_a = stored_rows_a(p), rows_b = stored_rows_b(p);
    if (p.lda < std::max<int64_t>(1, rows_a))
        return invalid("lda = " + num(p.lda) + " is less than max(1, " + num(rows_a) + "), the rows of A as stored (transa " +
                       (p.transa == GEMMKIT_OP_N ? "N: m)" : "T: k)"));
    if (p.ldb < std::max<int64_t>(1, rows_b))
        return invalid("ldb = " + num(p.ldb) + " is less than max(1, " + num(rows_b) + "), the rows of B as stored (transb " +
                       (p.transb == GEMMKIT_OP_N ? "N: k)" : "T: n)"));
    if (p.ldc < std::max<int64_t>(1, p.m))
        return invalid("ldc = " + num(p.ldc) + " is less than max(1, m = " + num(p.m) + ")");

    if (alpha_null) return invalid("alpha is NULL (a host pointer to the scalar is required)");
    if (beta_null) return invalid("beta is NULL (a host pointer to the scalar is required)");

    if (p.batch.count < 0) return invalid("batch_count = " + num(p.batch.count) + " is negative");
    if (p.groups.count < 0) return invalid("group_count = " + num(p.groups.count) + " is negative");
    if (p.m == 0 || p.n == 0 || p.batch.count == 0) return GEMMKIT_SUCCESS;  // nothing is read or written
    if (gemmkit_status s = validate_epilogue(p); s != GEMMKIT_SUCCESS) return s;
    if (pointer_arrays(p)) return validate_arrays(p);
    if (grouped(p)) {
        if (gemmkit_status s = validate_groups(p); s != GEMMKIT_SUCCESS) return s;
    } else if (gemmkit_status s = validate_strides(p); s != GEMMKIT_SUCCESS) {
        return s;
    }
    if (p.C == nullptr) return invalid("C is NULL");
    if (misaligned(p.C, p.c_type)) return invalid("C is not aligned to its element size");
    if (reads_ab(p)) {
        if (p.A == nullptr) return invalid("A is NULL (it is read: k > 0 and alpha != 0)");
        if (p.B == nullptr) return invalid("B is NULL (it is read: k > 0 and alpha != 0)");
        if (misaligned(p.A, p.a_type)) return invalid("A is not aligned to its element size");
        if (misaligned(p.B, p.b_type)) return invalid("B is not aligned to its element size");
    }
    return GEMMKIT_SUCCESS;
}

gemmkit_status validate_quantize(const QuantizeArgs& a, bool* nothing) {
    if (a.k < 0) return invalid("k = " + num(a.k) + " is negative");
    if (a.mn < 0) return invalid("mn = " + num(a.mn) + " is negative");
    if (dtype_size(a.x_type) == 0) return invalid("x_type = " + num(a.x_type) + " is not a gemmkit_dtype");
    if (a.x_type != GEMMKIT_R_32F && a.x_type != GEMMKIT_R_16F && a.x_type != GEMMKIT_R_16BF)
        return fail(GEMMKIT_NOT_SUPPORTED, std::string("x_type = ") + dtype_name(a.x_type) +
                                               ": gemmkit_quantize_fp8 takes BF16, FP16 or FP32 values");
    if (!fp8(a.q_type))
        return invalid("q_type = " + num(a.q_type) + ": must be GEMMKIT_R_8F_E4M3 or GEMMKIT_R_8F_E5M2");
    // With a block_mn (validate_quantize_blocks checked it) the blocks decide the scales, not the mode.
    if (a.block_mn == 0) {
        if (a.mode == GEMMKIT_SCALE_BLOCK)
            return fail(GEMMKIT_NOT_SUPPORTED,
                        "mode = GEMMKIT_SCALE_BLOCK: a block scale needs the block's width; use "
                        "gemmkit_quantize_fp8_blocks");
        if (a.mode != GEMMKIT_SCALE_TENSOR && a.mode != GEMMKIT_SCALE_OUTER)
            return invalid("mode = " + num(a.mode) + " is not a gemmkit_scale_mode");
    }
    const int64_t least = a.k > 1 ? a.k : 1;
    if (a.ldx < least) return invalid("ldx = " + num(a.ldx) + " is less than max(1, k) = " + num(least));
    if (a.ldq < least) return invalid("ldq = " + num(a.ldq) + " is less than max(1, k) = " + num(least));
    *nothing = a.k == 0 || a.mn == 0;
    if (*nothing) return GEMMKIT_SUCCESS;  // as cuBLAS: no pointer is read
    if (a.x == nullptr) return invalid("x is NULL");
    if (a.q == nullptr) return invalid("q is NULL");
    if (a.scales == nullptr) return invalid("scales is NULL");
    const int64_t x_size = static_cast<int64_t>(dtype_size(a.x_type));
    if (misaligned(a.x, a.x_type)) return invalid("x is not aligned to its element size (" + num(x_size) + " bytes)");
    if (misaligned(a.scales, GEMMKIT_R_32F)) return invalid("scales is not 4-byte aligned");
    const int64_t x_bytes = extent_bytes(a.k, a.mn, a.ldx, x_size), q_bytes = extent_bytes(a.k, a.mn, a.ldq, 1);
    if (x_bytes < 0) return invalid("ldx = " + num(a.ldx) + ": x's extent passes a 64-bit offset");
    if (q_bytes < 0) return invalid("ldq = " + num(a.ldq) + ": q's extent passes a 64-bit offset");
    const int64_t scale_bytes = quantize_scale_count(a) * static_cast<int64_t>(sizeof(float));
    if (overlap(a.q, q_bytes, a.x, x_bytes)) return invalid("q overlaps x");
    if (overlap(a.scales, scale_bytes, a.x, x_bytes)) return invalid("scales overlaps x");
    if (overlap(a.scales, scale_bytes, a.q, q_bytes)) return invalid("scales overlaps q");
    return GEMMKIT_SUCCESS;
}

gemmkit_status validate_quantize_blocks(const QuantizeArgs& a, bool* nothing) {
    if (a.block_mn != 1 && a.block_mn != 128)
        return invalid("block_mn = " + num(a.block_mn) + ": must be 1 (1 x 128 blocks) or 128 (128 x 128 blocks)");
    return validate_quantize(a, nothing);
}

}  // namespace gemmkit
