/* gemmkit — C API.
 *
 * Column-major, cuBLAS semantics:  C = alpha * op(A) * op(B) + beta * C
 *   op(A) is m x k, op(B) is k x n, C is m x n.
 *   alpha and beta are host pointers. Sizes are 64-bit. Any stream; no handle:
 *   per-device state lives inside the library and is thread-safe.
 *
 * Every call checks its arguments before any device work. A failure returns a
 * status and leaves a message naming the argument in gemmkit_last_error()
 * (thread-local); no memory is touched.
 *
 * m == 0 or n == 0 is a no-op. k == 0 or *alpha == 0 gives C = beta * C
 * (A and B are not read and may be NULL). With *beta == 0, C is never read,
 * so NaN in C does not propagate.
 *
 * Compiles as C99 and as C++.
 */
#ifndef GEMMKIT_GEMMKIT_H
#define GEMMKIT_GEMMKIT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

/* The version of this header. The build reads it from here (CMakeLists.txt, pyproject.toml),
 * so it is the one place to change. Before 1.0, a new minor version may change the ABI: the
 * shared library's soname carries major.minor (libgemmkit.so.0.1). */
#define GEMMKIT_VERSION_MAJOR 0
#define GEMMKIT_VERSION_MINOR 1
#define GEMMKIT_VERSION_PATCH 0
/* One integer, comparable: 10000 * major + 100 * minor + patch. */
#define GEMMKIT_VERSION (GEMMKIT_VERSION_MAJOR * 10000 + GEMMKIT_VERSION_MINOR * 100 + GEMMKIT_VERSION_PATCH)

/* Marks the functions libgemmkit exports. The library is built with hidden visibility, so
 * these are its only dynamic symbols (nm -D --defined-only libgemmkit.so). */
#if defined(_WIN32)
#define GEMMKIT_API
#elif defined(__GNUC__)
#define GEMMKIT_API __attribute__((visibility("default")))
#else
#define GEMMKIT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GEMMKIT_SUCCESS = 0,
    GEMMKIT_INVALID_VALUE = 1,  /* a bad argument; gemmkit_last_error() names it */
    GEMMKIT_NOT_SUPPORTED = 2,  /* valid, but no (chosen) kernel serves it; the message says why */
    GEMMKIT_CUDA_ERROR = 3,     /* the CUDA runtime failed (no device, launch error, ...) */
    GEMMKIT_ALLOC_FAILED = 4,   /* workspace allocation failed */
    GEMMKIT_UNKNOWN_KERNEL = 5  /* no kernel of that name; see gemmkit_kernel_name() */
} gemmkit_status;

typedef enum { GEMMKIT_OP_N = 0, GEMMKIT_OP_T = 1 } gemmkit_op;

typedef enum {
    GEMMKIT_R_32F = 0,
    GEMMKIT_R_64F = 1,
    GEMMKIT_R_16F = 2,
    GEMMKIT_R_16BF = 3,
    GEMMKIT_R_8F_E4M3 = 4, /* FP8, 4 exponent and 3 mantissa bits (A and B of gemmkit_gemm_scaled_ex) */
    GEMMKIT_R_8F_E5M2 = 5  /* FP8, 5 exponent and 2 mantissa bits (at most one of A and B) */
} gemmkit_dtype;

typedef enum {
    GEMMKIT_COMPUTE_32F = 0,
    GEMMKIT_COMPUTE_32F_FAST_TF32 = 1,
    GEMMKIT_COMPUTE_64F = 2
} gemmkit_compute;

/* FP32 GEMM; the kernel is chosen automatically (the fastest that serves the problem). */
GEMMKIT_API gemmkit_status gemmkit_sgemm(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb,
                                         int64_t m, int64_t n, int64_t k,
                                         const float* alpha, const float* A, int64_t lda,
                                         const float* B, int64_t ldb,
                                         const float* beta, float* C, int64_t ldc);

/* FP64 GEMM (FP64 accumulation); the kernel is chosen automatically. */
GEMMKIT_API gemmkit_status gemmkit_dgemm(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb,
                                         int64_t m, int64_t n, int64_t k,
                                         const double* alpha, const double* A, int64_t lda,
                                         const double* B, int64_t ldb,
                                         const double* beta, double* C, int64_t ldc);

/* Typed GEMM. alpha/beta point to values of the compute type (float for
 * GEMMKIT_COMPUTE_32F*, double for GEMMKIT_COMPUTE_64F). kernel is NULL or
 * "auto" for automatic choice, or an exact name from gemmkit_kernel_name(). */
GEMMKIT_API gemmkit_status gemmkit_gemm_ex(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb,
                                           int64_t m, int64_t n, int64_t k, const void* alpha,
                                           const void* A, gemmkit_dtype a_type, int64_t lda,
                                           const void* B, gemmkit_dtype b_type, int64_t ldb,
                                           const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc,
                                           gemmkit_compute compute, const char* kernel);

/* Strided batched GEMM (cublasGemmStridedBatchedEx): for z = 0 .. batch_count - 1,
 *   C + z*stride_c = alpha * op(A + z*stride_a) * op(B + z*stride_b) + beta * (C + z*stride_c)
 * in one launch (a problem a layer of the grid; 65535 a launch). Strides are in elements; a
 * stride of 0 gives every problem the same A or B. The problems' C must not overlap
 * (stride_c >= ldc * (n - 1) + m when batch_count > 1). batch_count == 0 is a no-op.
 * Other arguments as gemmkit_gemm_ex; kernel names a row that takes batches (gemmkit list
 * marks them), or NULL / "auto". */
GEMMKIT_API gemmkit_status gemmkit_gemm_strided_batched_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* A, gemmkit_dtype a_type, int64_t lda, int64_t stride_a,
    const void* B, gemmkit_dtype b_type, int64_t ldb, int64_t stride_b,
    const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc, int64_t stride_c,
    int64_t batch_count, gemmkit_compute compute, const char* kernel);

/* Batched GEMM through device arrays of pointers (cublasGemmBatchedEx): problem z reads
 * Aarray[z] and Barray[z] and writes Carray[z]. The arrays live in device (or managed) memory,
 * so the host checks the arrays but not their entries: each entry must point to device memory
 * aligned to its element size, and no two C may overlap. The kernels make no assumption about
 * the entries' alignment beyond that (they take the path for any alignment; a strided batch of
 * 16-byte aligned matrices runs faster). m, k <= 2^30 and n <= 2^19. */
GEMMKIT_API gemmkit_status gemmkit_gemm_batched_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* const Aarray[], gemmkit_dtype a_type, int64_t lda,
    const void* const Barray[], gemmkit_dtype b_type, int64_t ldb,
    const void* beta, void* const Carray[], gemmkit_dtype c_type, int64_t ldc,
    int64_t batch_count, gemmkit_compute compute, const char* kernel);

/* Fused epilogues (cuBLASLt's BIAS, RELU, GELU, GELU_AUX): applied to each element of C in the
 * kernel's own epilogue, with no extra pass over C, after alpha and beta:
 *   v          = alpha * (op(A) op(B))(i, j) + beta * C(i, j) + bias[i]
 *   aux(i, j)  = round(v)                (aux: the pre-activation, for the backward pass)
 *   C(i, j)    = round(activation(round(v)))
 * computed in the scaling type (FP32, or FP64 for FP64 C); round() is to C's type (the bias:
 * one value per row of C, m of them). The activation reads the pre-activation as aux holds it.
 * bias and aux have C's type; in a batch, problem z reads bias + z * bias_stride and writes
 * aux + z * aux_stride (elements; bias_stride 0 shares one bias). */
typedef enum {
    GEMMKIT_ACTIVATION_NONE = 0,
    GEMMKIT_ACTIVATION_RELU = 1,       /* max(v, 0); NaN stays NaN */
    GEMMKIT_ACTIVATION_GELU_TANH = 2,  /* 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))), cuBLASLt's GELU */
    GEMMKIT_ACTIVATION_GELU_ERF = 3,   /* 0.5 v (1 + erf(v / sqrt(2))), PyTorch's default GELU */
    GEMMKIT_ACTIVATION_SILU = 4        /* v / (1 + exp(-v)) */
} gemmkit_activation;

/* The epilogue descriptor. Start from GEMMKIT_EPILOGUE_INIT and set what you use: `size`
 * records which version of the struct the caller was built with, so fields added later keep
 * their defaults for older callers, and a newer caller's larger struct is refused, not misread. */
typedef struct gemmkit_epilogue {
    size_t size;                   /* sizeof(gemmkit_epilogue), set by GEMMKIT_EPILOGUE_INIT */
    gemmkit_activation activation; /* GEMMKIT_ACTIVATION_NONE: none */
    const void* bias;              /* device, m values of bias_type; NULL: no bias */
    gemmkit_dtype bias_type;       /* must be C's type */
    int64_t bias_stride;           /* elements between the biases of a batch's problems (0: shared) */
    void* aux;                     /* device, m x n column-major of aux_type; NULL: not written */
    gemmkit_dtype aux_type;        /* must be C's type */
    int64_t ld_aux;                /* >= max(1, m) */
    int64_t aux_stride;            /* elements between a batch's aux matrices (>= ld_aux * (n - 1) + m) */
} gemmkit_epilogue;

#define GEMMKIT_EPILOGUE_INIT \
    { sizeof(gemmkit_epilogue), GEMMKIT_ACTIVATION_NONE, NULL, GEMMKIT_R_32F, 0, NULL, GEMMKIT_R_32F, 0, 0 }

/* gemmkit_gemm_ex with a fused epilogue (NULL: none, the same as gemmkit_gemm_ex). Every
 * kernel runs it, so `kernel` may name any row. bias and aux must be device (or managed or
 * registered) memory, as A, B and C. */
GEMMKIT_API gemmkit_status gemmkit_gemm_epilogue_ex(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb,
                                                    int64_t m, int64_t n, int64_t k, const void* alpha,
                                                    const void* A, gemmkit_dtype a_type, int64_t lda,
                                                    const void* B, gemmkit_dtype b_type, int64_t ldb,
                                                    const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc,
                                                    gemmkit_compute compute, const gemmkit_epilogue* epilogue,
                                                    const char* kernel);

/* gemmkit_gemm_strided_batched_ex with a fused epilogue (bias_stride, aux_stride per problem). */
GEMMKIT_API gemmkit_status gemmkit_gemm_strided_batched_epilogue_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* A, gemmkit_dtype a_type, int64_t lda, int64_t stride_a,
    const void* B, gemmkit_dtype b_type, int64_t ldb, int64_t stride_b,
    const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc, int64_t stride_c,
    int64_t batch_count, gemmkit_compute compute, const gemmkit_epilogue* epilogue, const char* kernel);

/* gemmkit_gemm_batched_ex with a fused epilogue: problem z reads bias + z * bias_stride and
 * writes aux + z * aux_stride (the arrays hold A, B and C only). */
GEMMKIT_API gemmkit_status gemmkit_gemm_batched_epilogue_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* const Aarray[], gemmkit_dtype a_type, int64_t lda,
    const void* const Barray[], gemmkit_dtype b_type, int64_t ldb,
    const void* beta, void* const Carray[], gemmkit_dtype c_type, int64_t ldc,
    int64_t batch_count, gemmkit_compute compute, const gemmkit_epilogue* epilogue, const char* kernel);

/* Grouped GEMM for a mixture of experts (torch._grouped_mm): C's n columns fall into
 * group_count groups, group g being columns [group_ends[g - 1], group_ends[g]) (group_ends[-1]
 * is 0), and group g multiplies them by its own A:
 *   C[:, cols_g] = alpha * op(A + g * stride_a) * op(B)[:, cols_g] + beta * C[:, cols_g]
 * group_ends is a device array of group_count int32 values, read by the kernel: the call needs
 * no host sync and can be captured in a CUDA graph. Groups may be empty; columns from
 * group_ends[group_count - 1] to n are not touched. Ends that are negative, go down, or pass n
 * make the kernel write nothing at all (the host cannot see them to refuse the call).
 * In row-major terms (PyTorch): out[t, :] = x[t, :] @ w[g]^T for the tokens t of expert g, with
 * x a tokens x k row-major matrix (B, op N, ldb = k), w[g] an out x k row-major weight (A + g *
 * stride_a, op T, lda = k, stride_a = out * k), out a tokens x out row-major matrix (C, m = out,
 * ldc = out), n = tokens, and group_ends the experts' cumulative token counts (torch's offs).
 * The epilogue's bias is per group (bias + g * bias_stride, m values); aux is one m x n matrix
 * like C (aux_stride must be 0). FP16/BF16 A and B (C of their type or FP32) on sm_90; A and B
 * must be TMA-readable (16-byte aligned, lda, ldb and stride_a multiples of 16 bytes); k > 0
 * and alpha != 0; n <= 2^19. Otherwise GEMMKIT_NOT_SUPPORTED, saying which. */
GEMMKIT_API gemmkit_status gemmkit_gemm_grouped_ex(
    cudaStream_t stream, gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, const void* alpha,
    const void* A, gemmkit_dtype a_type, int64_t lda, int64_t stride_a,
    const void* B, gemmkit_dtype b_type, int64_t ldb,
    const void* beta, void* C, gemmkit_dtype c_type, int64_t ldc,
    const int32_t* group_ends, int64_t group_count, gemmkit_compute compute, const gemmkit_epilogue* epilogue,
    const char* kernel);

/* How gemmkit_gemm_scaled_ex scales its FP8 operands. Scales are FP32 values on the device,
 * read by the kernel (a call needs no host sync and can be captured in a CUDA graph). */
typedef enum {
    GEMMKIT_SCALE_TENSOR = 0, /* scale_a[0] for all of A, scale_b[0] for all of B */
    GEMMKIT_SCALE_OUTER = 1,  /* scale_a[i] for row i of op(A) (m values), scale_b[j] for column j
                               * of op(B) (n values): cuBLASLt's outer-vector scaling */
    GEMMKIT_SCALE_BLOCK = 2   /* blocks along k (DeepSeek-V3): scale_a[kb * m + i] for row i of
                               * op(A) and its k in [128 kb, 128 kb + 128) (1 x 128 blocks,
                               * ceil(k / 128) * m values); scale_b[kb * ceil(n / 128) + j / 128]
                               * for column j of op(B) and the same k (128 x 128 blocks,
                               * ceil(k / 128) * ceil(n / 128) values) */
} gemmkit_scale_mode;

/* The scaling descriptor. Start from GEMMKIT_SCALING_INIT and set what you use (`size`, as in
 * gemmkit_epilogue, records the struct's version). */
typedef struct gemmkit_scaling {
    size_t size;             /* sizeof(gemmkit_scaling), set by GEMMKIT_SCALING_INIT */
    gemmkit_scale_mode mode; /* GEMMKIT_SCALE_TENSOR: one value each */
    const float* scale_a;    /* device; 1 or m values (mode); NULL: 1 */
    const float* scale_b;    /* device; 1 or n values (mode); NULL: 1 */
    int fast_accum;          /* 0: the sums move into FP32 every 128 of k, as cuBLASLt's default;
                              * 1: they stay in the tensor cores' FP8 accumulation for all of k
                              * (cuBLASLt's FAST_ACCUM): faster, less accurate. Block scales
                              * are applied as the sums move: GEMMKIT_SCALE_BLOCK takes 0 */
} gemmkit_scaling;

#define GEMMKIT_SCALING_INIT { sizeof(gemmkit_scaling), GEMMKIT_SCALE_TENSOR, NULL, NULL, 0 }

/* FP8 GEMM with scales (cublasLtMatmul with FP8 inputs and scale pointers):
 *   C(i, j) = alpha * sa(i) * sb(j) * sum_p op(A)(i, p) op(B)(p, j) + beta * C(i, j)
 * then the epilogue (NULL: none), where sa(i) and sb(j) are the scaling's values (1 where a
 * pointer is NULL); with GEMMKIT_SCALE_BLOCK each product takes the scales of its k's block:
 *   C(i, j) = alpha * sum_p sa(i, p / 128) sb(j / 128, p / 128) op(A)(i, p) op(B)(p, j) + ...
 * A and B are GEMMKIT_R_8F_E4M3, or one of them GEMMKIT_R_8F_E5M2; C is FP32, FP16 or BF16;
 * alpha and beta point to floats (docs/api.md#fp8 says how the sums are kept). Both operands
 * K-major, the layout FP8 wgmma reads: transa = GEMMKIT_OP_T (A stored k x m) and transb =
 * GEMMKIT_OP_N (B stored k x n); other ops are GEMMKIT_NOT_SUPPORTED. On sm_90 with A and B
 * 16-byte aligned and lda, ldb multiples of 16. */
GEMMKIT_API gemmkit_status gemmkit_gemm_scaled_ex(cudaStream_t stream, gemmkit_op transa, gemmkit_op transb,
                                                  int64_t m, int64_t n, int64_t k, const float* alpha,
                                                  const void* A, gemmkit_dtype a_type, int64_t lda,
                                                  const void* B, gemmkit_dtype b_type, int64_t ldb,
                                                  const float* beta, void* C, gemmkit_dtype c_type, int64_t ldc,
                                                  const gemmkit_scaling* scaling, const gemmkit_epilogue* epilogue,
                                                  const char* kernel);

/* FP8 operands for gemmkit_gemm_scaled_ex from BF16, FP16 or FP32 (x_type) values, with the
 * scales computed on the device (no host sync; capturable in a CUDA graph). x is stored k x mn,
 * column-major with ld ldx (k contiguous: A stored k x m for op T, B stored k x n for op N, the
 * layout the scaled GEMM reads); q gets the FP8 values (q_type GEMMKIT_R_8F_E4M3 or _E5M2) in
 * the same layout with ld ldq, and scales the FP32 values the GEMM takes, such that
 * x ~ scales * q:
 *   GEMMKIT_SCALE_TENSOR: scales[0] = amax(|x|) / F over all of x;
 *   GEMMKIT_SCALE_OUTER:  scales[j] = amax(|x(:, j)|) / F for each of the mn columns (a row of
 *                         op(A), or a column of op(B));
 * F the format's largest finite value (448 for E4M3, 57344 for E5M2); an amax of 0 gives a scale
 * of 1. q = x / scale rounded to nearest, saturating at +-F; a NaN or infinity in x gives a
 * scale that is not finite. GEMMKIT_SCALE_BLOCK: NOT_SUPPORTED here (a block needs its width:
 * gemmkit_quantize_fp8_blocks). k or mn of 0: nothing is written. Bad arguments: INVALID_VALUE
 * naming them, nothing touched. */
GEMMKIT_API gemmkit_status gemmkit_quantize_fp8(cudaStream_t stream, int64_t k, int64_t mn, const void* x,
                                                gemmkit_dtype x_type, int64_t ldx, void* q, gemmkit_dtype q_type,
                                                int64_t ldq, gemmkit_scale_mode mode, float* scales);

/* gemmkit_quantize_fp8 with a scale per block of 128 of k and block_mn of the mn columns (the
 * operands of GEMMKIT_SCALE_BLOCK: block_mn = 1 for A, 128 for B):
 *   scales[kb * ceil(mn / block_mn) + j / block_mn] = amax(|x(i, j)|) / F over the block's
 *   values, i in [128 kb, 128 kb + 128) and j in [block_mn (j / block_mn), ... + block_mn),
 * ceil(k / 128) * ceil(mn / block_mn) values; q = x / its block's scale, rounded and saturating,
 * as gemmkit_quantize_fp8. block_mn other than 1 or 128: INVALID_VALUE. The other arguments and
 * checks are gemmkit_quantize_fp8's. */
GEMMKIT_API gemmkit_status gemmkit_quantize_fp8_blocks(cudaStream_t stream, int64_t k, int64_t mn, const void* x,
                                                       gemmkit_dtype x_type, int64_t ldx, void* q, gemmkit_dtype q_type,
                                                       int64_t ldq, int64_t block_mn, float* scales);

/* The GEMMs this thread starts from now on plan for at most sm_count SMs of the device (0, the
 * default: all of them), leaving the rest to kernels that run beside them on other streams,
 * such as NCCL's while gemmkit_dist overlaps communication with a GEMM. Persistent and
 * stream-K grids are sized for that many SMs; grids of one block a tile are not changed.
 * Thread-local, so it applies to the calls of this thread only. Negative: INVALID_VALUE. */
GEMMKIT_API gemmkit_status gemmkit_set_sm_limit(int sm_count);
GEMMKIT_API int gemmkit_sm_limit(void);

/* GEMMKIT_VERSION of the library the program runs against (the header it was compiled with
 * may differ: compare with GEMMKIT_VERSION). */
GEMMKIT_API int gemmkit_version(void);

/* A constant, human-readable name for a status ("GEMMKIT_INVALID_VALUE"). */
GEMMKIT_API const char* gemmkit_status_string(gemmkit_status s);

/* Detail of the last failure on this thread ("" if the last call succeeded). */
GEMMKIT_API const char* gemmkit_last_error(void);

/* The registered kernels, in ladder order. Index out of range gives NULL. */
GEMMKIT_API int gemmkit_kernel_count(void);
GEMMKIT_API const char* gemmkit_kernel_name(int index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GEMMKIT_GEMMKIT_H */
