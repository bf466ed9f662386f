// The pieces the tensor-parallel schedules are made of: a row-major GEMM on a block of rows,
// and the events that order the caller's stream and the context's communication stream.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "dist/context.hpp"
#include "dist/dist_plan.hpp"

namespace gemmkit::dist {

// One call's fixed operands: W, the types, and the GEMM's width and depth.
struct Call {
    gemmkit_dist_context* ctx = nullptr;
    cudaStream_t stream = nullptr;
    gemmkit_dtype type = GEMMKIT_R_16BF;
    ncclDataType_t nccl_type = ncclBfloat16;
    int64_t elem = 2;
    int64_t n = 0, k = 0;  // Y's columns, X's columns
    const void* w = nullptr;
    gemmkit_op w_op = GEMMKIT_OP_N;
    int64_t ldw = 0;
};

// The same call on columns [cols.begin, cols.end) of Y: W's rows there (w_op T, W is
// [n, k]) or its columns (w_op N, W is [k, n]).
inline Call columns_of(const Call& c, RowRange cols) {
    Call part = c;
    part.n = cols.end - cols.begin;
    const int64_t offset = c.w_op == GEMMKIT_OP_N ? cols.begin : cols.begin * c.ldw;
    part.w = static_cast<const char*>(c.w) + offset * c.elem;
    return part;
}

// Y[rows, n] = X[rows, k] · op(W) + beta · Y (row-major; gemmkit's column-major C^T = op(W)^T X^T).
// sms > 0 plans the GEMM for at most that many SMs (gemmkit_set_sm_limit), leaving the rest to
// NCCL; the thread's own limit is restored after.
gemmkit_status gemm_rows(const Call& c, int64_t rows, const void* x, int64_t ldx, void* y, int64_t ldy, float beta,
                         int sms);

// `waiter` waits for what `signaler` has enqueued so far.
gemmkit_status order_after(cudaStream_t signaler, cudaStream_t waiter);

// An overlap on the copy engines: run(window) enqueues it in the context's symmetric window
// of `bytes` (the same on every rank); then the caller's stream waits for all of it on the
// comm stream, even after a failure, and the call's use of the window ends.
template <class Run>
gemmkit_status on_window(const Call& c, size_t bytes, const char* what, Run run) {
    void* window = nullptr;
    if (gemmkit_status s = symmetric_window(c.ctx, bytes, c.stream, &window, what); s != GEMMKIT_SUCCESS) return s;
    const gemmkit_status s = run(window);
    const gemmkit_status joined = order_after(c.ctx->comm_stream, c.stream);
    done_with_workspace(c.ctx, c.stream);
    return s == GEMMKIT_SUCCESS ? joined : s;
}

inline const void* row_ptr(const void* base, int64_t row, int64_t ld, int64_t elem) {
    return static_cast<const char*>(base) + row * ld * elem;
}
inline void* row_ptr(void* base, int64_t row, int64_t ld, int64_t elem) {
    return static_cast<char*>(base) + row * ld * elem;
}

}  // namespace gemmkit::dist
