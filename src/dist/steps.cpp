#include "dist/steps.hpp"

#include <algorithm>
#include <string>

namespace gemmkit::dist {

gemmkit_status gemm_rows(const Call& c, int64_t rows, const void* x, int64_t ldx, void* y, int64_t ldy, float beta,
                         int sms) {
    if (rows == 0 || c.n == 0) return GEMMKIT_SUCCESS;  // an empty GEMM (a rank may hold no columns)
    const int own = gemmkit_sm_limit();
    if (sms > 0) gemmkit_set_sm_limit(own > 0 ? std::min(own, sms) : sms);
    const float alpha = 1.0f;
    const gemmkit_op op_w = c.w_op == GEMMKIT_OP_N ? GEMMKIT_OP_N : GEMMKIT_OP_T;
    const gemmkit_status s = gemmkit_gemm_ex(c.stream, op_w, GEMMKIT_OP_N, c.n, rows, c.k, &alpha, c.w, c.type, c.ldw, x,
                                             c.type, ldx, &beta, y, c.type, ldy, GEMMKIT_COMPUTE_32F, nullptr);
    if (sms > 0) gemmkit_set_sm_limit(own);
    if (s != GEMMKIT_SUCCESS) return fail(s, std::string("the GEMM of a block: ") + gemmkit_last_error());
    return GEMMKIT_SUCCESS;
}

gemmkit_status order_after(cudaStream_t signaler, cudaStream_t waiter) {
    cudaEvent_t done = nullptr;
    cudaError_t err = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(done, signaler);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(waiter, done, 0);
    if (done != nullptr) cudaEventDestroy(done);  // released once the wait no longer needs it
    if (err != cudaSuccess) {
        cudaGetLastError();
        return fail(GEMMKIT_CUDA_ERROR, std::string("ordering the streams: ") + cudaGetErrorString(err));
    }
    return GEMMKIT_SUCCESS;
}

}  // namespace gemmkit::dist
