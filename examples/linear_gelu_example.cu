// A linear layer y = GELU(x W^T + b) in BF16 as one GEMM with a fused epilogue: the bias and the
// activation are applied where the kernel writes C, with no second pass over y. In PyTorch's
// row-major terms x is tokens x in and W is out x in; column-major, y^T (out x tokens) =
// op T(W) * op N(x), so the bias is one value per row of C, as in cuBLASLt.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "gemmkit/gemmkit.h"

#define CUDA_OK(expr) do { cudaError_t e_ = (expr); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_)); return 1; } } while (0)

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "linear_gelu_example: no CUDA device found; gemmkit needs an NVIDIA GPU.\n");
        return 1;
    }
    const int64_t tokens = 96, in = 256, out = 160;
    std::vector<__nv_bfloat16> x(tokens * in), w(out * in), b(out), y(tokens * out);
    for (size_t i = 0; i < x.size(); ++i) x[i] = __float2bfloat16(float(int(i % 9) - 4) / 8.0f);  // exact in BF16
    for (size_t i = 0; i < w.size(); ++i) w[i] = __float2bfloat16(float(int(i % 7) - 3) / 16.0f);
    for (size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16(float(int(i % 5) - 2) / 4.0f);

    __nv_bfloat16 *dx, *dw, *db, *dy;
    CUDA_OK(cudaMalloc(&dx, x.size() * sizeof(x[0])));
    CUDA_OK(cudaMalloc(&dw, w.size() * sizeof(w[0])));
    CUDA_OK(cudaMalloc(&db, b.size() * sizeof(b[0])));
    CUDA_OK(cudaMalloc(&dy, y.size() * sizeof(y[0])));
    CUDA_OK(cudaMemcpy(dx, x.data(), x.size() * sizeof(x[0]), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dw, w.data(), w.size() * sizeof(w[0]), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, b.data(), b.size() * sizeof(b[0]), cudaMemcpyHostToDevice));

    gemmkit_epilogue epilogue = GEMMKIT_EPILOGUE_INIT;
    epilogue.activation = GEMMKIT_ACTIVATION_GELU_TANH;  // cuBLASLt's GELU; GELU_ERF is PyTorch's default
    epilogue.bias = db;
    epilogue.bias_type = GEMMKIT_R_16BF;  // C's type
    const float alpha = 1.0f, beta = 0.0f;
    // W row-major (out x in) is column-major in x out with ld in: op T gives out x in.
    gemmkit_status s = gemmkit_gemm_epilogue_ex(
        /*stream=*/0, GEMMKIT_OP_T, GEMMKIT_OP_N, /*m=*/out, /*n=*/tokens, /*k=*/in, &alpha,
        dw, GEMMKIT_R_16BF, /*lda=*/in, dx, GEMMKIT_R_16BF, /*ldb=*/in,
        &beta, dy, GEMMKIT_R_16BF, /*ldc=*/out, GEMMKIT_COMPUTE_32F, &epilogue, /*kernel=*/nullptr);
    if (s != GEMMKIT_SUCCESS) {
        std::fprintf(stderr, "gemmkit_gemm_epilogue_ex: %s: %s\n", gemmkit_status_string(s), gemmkit_last_error());
        return 1;
    }
    CUDA_OK(cudaMemcpy(y.data(), dy, y.size() * sizeof(y[0]), cudaMemcpyDeviceToHost));
    for (__nv_bfloat16* p : {dx, dw, db, dy}) CUDA_OK(cudaFree(p));

    // y(t, o), row-major = y[t * out + o] = GELU(sum_i x(t, i) W(o, i) + b(o)).
    const int64_t t = 37, o = 101;
    double v = __bfloat162float(b[o]);
    for (int64_t i = 0; i < in; ++i) v += double(__bfloat162float(x[t * in + i])) * __bfloat162float(w[o * in + i]);
    const double want = 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    const float got = __bfloat162float(y[t * out + o]);
    std::printf("y(%d, %d) = %g, host GELU(x W^T + b) %g\n", int(t), int(o), got, want);
    if (std::fabs(got - want) > 1e-2 * (1.0 + std::fabs(want))) {  // the result is rounded to BF16
        std::fprintf(stderr, "linear_gelu_example: mismatch\n");
        return 1;
    }
    return 0;
}
