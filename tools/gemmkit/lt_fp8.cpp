#include "lt_fp8.hpp"

#include <cublas_api.h>

#include <vector>

#include "problem.hpp"  // fp8

namespace gemmkit::cli {
namespace {

// The CUDA type of a gemmkit type, or false for one cuBLASLt's FP8 matmul does not take there.
bool cuda_type(gemmkit_dtype t, cudaDataType_t* out) {
    switch (t) {
        case GEMMKIT_R_8F_E4M3: return *out = CUDA_R_8F_E4M3, true;
        case GEMMKIT_R_8F_E5M2: return *out = CUDA_R_8F_E5M2, true;
        case GEMMKIT_R_16BF: return *out = CUDA_R_16BF, true;
        case GEMMKIT_R_16F: return *out = CUDA_R_16F, true;
        case GEMMKIT_R_32F: return *out = CUDA_R_32F, true;
        default: return false;
    }
}

// Block scales as cuBLASLt reads them. cublasLt.h says only "a scaling factor for each
// 128-element block in the innermost dimension" (VEC128_32F) and "for each 128x128-element
// block" (BLK128x128_32F), and leaves the layouts to the cuBLAS documentation ("scaling factors
// layouts"). For an operand stored K x R (K innermost, as A and B are here) and kb = p / 128:
//   VEC128_32F (A):     ceil(K / 128) x R values, R contiguous ("outer-dim-major"): s(r, kb) at
//                       [kb * R + r];
//   BLK128x128_32F (B): ceil(R / 128) columns of L4 = ceil(K / 128) rounded up to 4 values, kb
//                       contiguous (each column 16-byte aligned): s(r / 128, kb) at
//                       [(r / 128) * L4 + kb].
// That is how torch._scaled_mm hands them to cuBLASLt (its blockwise tests: 1 x 128 scales of
// stride (1, M), 128 x 128 scales [L4, N / 128] of stride (1, L4)) and how NVIDIA's cuBLASLt
// samples size them (ceil(K / 128) * R, and L4 * ceil(R / 128)); on an H200 (cuBLASLt 13.1) C
// so made matched FP64 to FP32 accuracy, ceil(K / 128) of 3 to 56 and n off 128 included. There
// its heuristic refused (NOT_SUPPORTED) k not a multiple of 128, m not a multiple of 4, and
// FAST_ACCUM, which the bench prints as cuBLASLt's status. gemmkit's A scales
// (scale_a[kb * m + i]) are VEC128_32F's as they are. Its B scales
// (scale_b[kb * ceil(n / 128) + j / 128]) are kb-major, so prepare() transposes them into
// BLK128x128_32F's columns (b_blocks_), once, outside any timing.
#if CUBLAS_VERSION >= 120900
constexpr int64_t kBlockColumnAlign = 4;  // floats: 16 bytes

int64_t ceil_div(int64_t x, int64_t by) { return (x + by - 1) / by; }

// out (nb columns of l4 values, zeros past kb_count) from gemmkit's B scales (kb_count rows of
// nb, nb contiguous): for each kb, nb floats scattered l4 apart (one strided copy), on stream.
cudaError_t transpose_b_blocks(const float* scale_b, int64_t kb_count, int64_t nb, int64_t l4, float* out,
                               cudaStream_t stream) {
    cudaError_t err = cudaMemsetAsync(out, 0, static_cast<size_t>(l4 * nb) * sizeof(float), stream);
    for (int64_t kb = 0; kb < kb_count && err == cudaSuccess; ++kb)
        err = cudaMemcpy2DAsync(out + kb, static_cast<size_t>(l4) * sizeof(float), scale_b + kb * nb, sizeof(float),
                                sizeof(float), static_cast<size_t>(nb), cudaMemcpyDeviceToDevice, stream);
    return err;
}

// `count` ones on the device: a NULL block scale (gemmkit's 1) as an array, since cuBLASLt
// documents "NULL is 1" for its per-tensor scale only.
DeviceBuffer<float> ones(int64_t count) {
    DeviceBuffer<float> d(static_cast<size_t>(count));
    const std::vector<float> host(static_cast<size_t>(count), 1.0f);
    d.copy_from_host(host.data());
    return d;
}
#endif

}  // namespace

std::string LtFp8Matmul::tried(const LtFp8Problem& p) {
    const char* modes = p.scaling.mode == GEMMKIT_SCALE_BLOCK   ? "A VEC128_32F x B BLK128x128_32F"
                        : p.scaling.mode == GEMMKIT_SCALE_OUTER ? "A OUTER_VEC_32F x B OUTER_VEC_32F"
                                                                : "A SCALAR_32F x B SCALAR_32F";
    return std::string(dtype_name(p.a_type)) + " x " + dtype_name(p.b_type) + " -> " + dtype_name(p.c_type) + ", " +
           modes + ", FAST_ACCUM " + (p.fast_accum ? "on" : "off");
}

std::string LtFp8Matmul::prepare(const LtFp8Problem& p) {
    // Block scaling is new (cuBLAS 12.9) and served on Hopper for few combinations: its
    // refusals say which one was tried.
    if (p.scaling.mode == GEMMKIT_SCALE_BLOCK) {
        const std::string why = prepare_call(p);
        return why.empty() ? why : tried(p) + ": " + why;
    }
    return prepare_call(p);
}

std::string LtFp8Matmul::prepare_call(const LtFp8Problem& p) {
    cudaDataType_t a_type, b_type, c_type;
    if (!fp8(p.a_type) || !fp8(p.b_type) || !cuda_type(p.a_type, &a_type) || !cuda_type(p.b_type, &b_type))
        return "A and B must be FP8 (E4M3 or E5M2)";
    if (p.a_type == GEMMKIT_R_8F_E5M2 && p.b_type == GEMMKIT_R_8F_E5M2)
        return "A and B both E5M2 (cuBLASLt takes E5M2 for at most one of them)";
    if (fp8(p.c_type) || !cuda_type(p.c_type, &c_type)) return "C must be BF16, FP16 or FP32";
    p_ = p;

    if (std::string why = start(CUBLAS_COMPUTE_32F, CUDA_R_32F); !why.empty()) return why;
    // TN: FP8 on Hopper reads both operands K-major. FAST_ACCUM is set either way, for the record.
    cublasStatus_t s = set(CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, static_cast<int8_t>(p.fast_accum));
    // Per-tensor is the default mode (SCALAR_32F), so only outer vectors set one: a header
    // older than OUTER_VEC_32F (cuBLAS 12.9) still builds and runs per-tensor scales.
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.mode == GEMMKIT_SCALE_OUTER) {
#if CUBLAS_VERSION >= 120900
        const int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;  // the attribute is an int32_t
        s = set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode);
        if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode);
#else
        return "outer-vector scaling needs cuBLAS 12.9 or newer (built against " + std::to_string(CUBLAS_VERSION) + ")";
#endif
    }
    const float* scale_a = p.scaling.scale_a;
    const float* scale_b = p.scaling.scale_b;
    if (s == CUBLAS_STATUS_SUCCESS && p.scaling.mode == GEMMKIT_SCALE_BLOCK) {
#if CUBLAS_VERSION >= 120900
        const int32_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
        const int32_t b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
        s = set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, a_mode);
        if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, b_mode);
        // The layouts above: A's as they are (or ones), B's transposed (or ones).
        const int64_t kb = ceil_div(p.k, 128), nb = ceil_div(p.n, 128);
        const int64_t l4 = ceil_div(kb, kBlockColumnAlign) * kBlockColumnAlign;
        if (scale_a == nullptr) {
            a_blocks_ = ones(kb * p.m);
            scale_a = a_blocks_.data();
        }
        if (scale_b == nullptr) {
            b_blocks_ = ones(l4 * nb);
        } else {
            b_blocks_ = DeviceBuffer<float>(static_cast<size_t>(l4 * nb));
            if (const cudaError_t err = transpose_b_blocks(scale_b, kb, nb, l4, b_blocks_.data(), stream());
                err != cudaSuccess)
                return std::string("B's block scales into cuBLASLt's layout: ") + cudaGetErrorString(err);
        }
        scale_b = b_blocks_.data();
#else
        return "block scaling needs cuBLAS 12.9 or newer (built against " + std::to_string(CUBLAS_VERSION) + ")";
#endif
    }
    // Otherwise a null pointer is cuBLASLt's "1", as in gemmkit_scaling.
    if (s == CUBLAS_STATUS_SUCCESS && scale_a != nullptr)
        s = set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(scale_a));
    if (s == CUBLAS_STATUS_SUCCESS && scale_b != nullptr)
        s = set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(scale_b));
    if (s != CUBLAS_STATUS_SUCCESS) return failed("cublasLtMatmulDescSetAttribute", s);

    const auto u64 = [](int64_t v) { return static_cast<uint64_t>(v); };
    return choose({a_type, u64(p.k), u64(p.m), p.lda}, {b_type, u64(p.k), u64(p.n), p.ldb},
                  {c_type, u64(p.m), u64(p.n), p.ldc});
}

cublasStatus_t LtFp8Matmul::run() const {
    return matmul(&p_.alpha, p_.A, p_.B, &p_.beta, p_.C);
}

}  // namespace gemmkit::cli
