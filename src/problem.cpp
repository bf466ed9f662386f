#include "problem.hpp"

#include <cstdint>

namespace gemmkit {

bool batch_keeps_alignment(const Problem& p, int bytes) {
    if (pointer_arrays(p)) return false;
    if (p.batch.count <= 1) return true;
    const auto stride_ok = [&](int64_t stride, gemmkit_dtype t) {
        return stride * static_cast<int64_t>(dtype_size(t)) % bytes == 0;
    };
    return stride_ok(p.batch.stride_a, p.a_type) && stride_ok(p.batch.stride_b, p.b_type) &&
           stride_ok(p.batch.stride_c, p.c_type);
}

bool operands_aligned(const Problem& p, int bytes) {
    if (!batch_keeps_alignment(p, bytes)) return false;
    const auto ptr_ok = [&](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % bytes == 0; };
    const auto ld_ok = [&](int64_t ld, gemmkit_dtype t) { return ld * static_cast<int64_t>(dtype_size(t)) % bytes == 0; };
    return ptr_ok(p.A) && ptr_ok(p.B) && ptr_ok(p.C) && ld_ok(p.lda, p.a_type) && ld_ok(p.ldb, p.b_type) &&
           ld_ok(p.ldc, p.c_type);
}

size_t dtype_size(gemmkit_dtype t) {
    switch (t) {
        case GEMMKIT_R_32F: return 4;
        case GEMMKIT_R_64F: return 8;
        case GEMMKIT_R_16F: return 2;
        case GEMMKIT_R_16BF: return 2;
        case GEMMKIT_R_8F_E4M3: return 1;
        case GEMMKIT_R_8F_E5M2: return 1;
    }
    return 0;
}

const char* dtype_name(gemmkit_dtype t) {
    switch (t) {
        case GEMMKIT_R_32F: return "f32";
        case GEMMKIT_R_64F: return "f64";
        case GEMMKIT_R_16F: return "f16";
        case GEMMKIT_R_16BF: return "bf16";
        case GEMMKIT_R_8F_E4M3: return "e4m3";
        case GEMMKIT_R_8F_E5M2: return "e5m2";
    }
    return "invalid";
}

}  // namespace gemmkit
