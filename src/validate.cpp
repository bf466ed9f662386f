#include "validate.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "common/status.hpp"

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

}  // namespace

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

    if (p.m == 0 || p.n == 0) return GEMMKIT_SUCCESS;  // nothing is read or written
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

}  // namespace gemmkit
