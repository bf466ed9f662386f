// GEMM-ReduceScatter: y_local = this rank's rows of sum_r X_r · op(W_r). docs/dist.md#gemm-reducescatter.
//
// Sequential, on the caller's stream: one GEMM of all m rows' partial sums, then
// ncclReduceScatter (ncclReduce to each rank where they hold different numbers of rows). Overlap: a ring. In step s rank r forms the
// partial sums of block b = (r - s - 1) mod P on top of those its predecessor sent (the GEMM's
// beta = 1 adds them) and sends the result on; in step P - 1 the block is r's own and the sum is
// complete. Each block is cut into pieces, so a piece moves while the next one's GEMM runs.
#include "dist/ops.hpp"

#include <string>
#include <vector>

#include "dist/steps.hpp"

namespace gemmkit::dist {
namespace {

gemmkit_status sequential(const Call& c, int64_t m, const void* x, int64_t ldx, void* sums, void* out) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size, r = ctx->rank;
    const auto deadline = deadline_after_ms(ctx->options.timeout_ms);
    if (gemmkit_status s = gemm_rows(c, m, x, ldx, sums, c.n, 0, 0); s != GEMMKIT_SUCCESS) return s;
    if (m % P == 0)
        return settle(ctx, ctx->comm_full, ncclReduceScatter(sums, out, static_cast<size_t>(m / P * c.n), c.nccl_type, ncclSum,
                                             ctx->comm_full, c.stream),
                      "ncclReduceScatter", deadline);
    ncclGroupStart();
    for (int q = 0; q < P; ++q)
        ncclReduce(row_ptr(sums, row_begin(m, P, q), c.n, c.elem), q == r ? out : nullptr,
                   static_cast<size_t>(rows_of(m, P, q) * c.n), c.nccl_type, ncclSum, q, ctx->comm_full, c.stream);
    return settle(ctx, ctx->comm_full, ncclGroupEnd(), "the reduce-scatter (ncclReduce to each rank)", deadline);
}

gemmkit_status ring(const Call& c, const DistPlan& plan, int64_t m, const void* x, int64_t ldx, void* sums,
                    void* out) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size, r = ctx->rank, pieces = plan.pieces;
    const int next = (r + 1) % P, prev = (r - 1 + P) % P;
    const auto deadline = deadline_after_ms(ctx->options.timeout_ms);
    const int beside = ctx->facts.sm_count - plan.comm_sms;
    // Step s's block, and where its partial sums live: `sums` at the block's rows, except the
    // last step's, which go straight to `out` (ld n).
    auto block = [&](int s) { return (r - s - 1 + 2 * P) % P; };
    auto acc = [&](int s, int64_t row) {
        return s == P - 1 ? row_ptr(out, row, c.n, c.elem) : row_ptr(sums, row_begin(m, P, block(s)) + row, c.n, c.elem);
    };
    // arrived[i]: piece i of the previous step's transfer, which piece i's next GEMM waits for
    // (and only for it: the transfer of the piece after it still runs beside that GEMM).
    std::vector<cudaEvent_t> arrived(static_cast<size_t>(pieces), nullptr);
    gemmkit_status st = order_after(c.stream, ctx->comm_stream);
    for (cudaEvent_t& e : arrived)
        if (st == GEMMKIT_SUCCESS && cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess)
            st = fail(GEMMKIT_CUDA_ERROR, "creating the ring's events");
    for (int s = 0; s < P && st == GEMMKIT_SUCCESS; ++s) {
        const int b = block(s);
        const int64_t rows = rows_of(m, P, b), begin = row_begin(m, P, b);
        for (int i = 0; i < pieces && st == GEMMKIT_SUCCESS; ++i) {
            const RowRange piece = piece_of(rows, pieces, i);
            if (s > 0 && cudaStreamWaitEvent(c.stream, arrived[i], 0) != cudaSuccess) {
                st = fail(GEMMKIT_CUDA_ERROR, "waiting for a piece of partial sums");
                break;
            }
            // The first GEMM runs before any transfer, the last after every one: both get all SMs.
            const bool alone = (s == 0 && i == 0) || (s == P - 1 && i == pieces - 1);
            st = gemm_rows(c, piece.end - piece.begin, row_ptr(x, begin + piece.begin, ldx, c.elem), ldx,
                           acc(s, piece.begin), c.n, s == 0 ? 0.0f : 1.0f, alone ? 0 : beside);
            if (st != GEMMKIT_SUCCESS || s == P - 1) continue;
            // Send this piece on, and receive the predecessor's same piece of the next step's block.
            st = order_after(c.stream, ctx->comm_stream);
            if (st != GEMMKIT_SUCCESS) break;
            const RowRange in = piece_of(rows_of(m, P, block(s + 1)), pieces, i);
            ncclGroupStart();
            ncclSend(acc(s, piece.begin), static_cast<size_t>((piece.end - piece.begin) * c.n), c.nccl_type, next,
                     ctx->comm, ctx->comm_stream);
            ncclRecv(acc(s + 1, in.begin), static_cast<size_t>((in.end - in.begin) * c.n), c.nccl_type, prev, ctx->comm,
                     ctx->comm_stream);
            st = settle(ctx, ctx->comm, ncclGroupEnd(), "a reduce-scatter step", deadline);
            if (st == GEMMKIT_SUCCESS && cudaEventRecord(arrived[i], ctx->comm_stream) != cudaSuccess)
                st = fail(GEMMKIT_CUDA_ERROR, "recording a piece's arrival");
        }
    }
    for (cudaEvent_t e : arrived)
        if (e != nullptr) cudaEventDestroy(e);
    if (st != GEMMKIT_SUCCESS) cudaGetLastError();
    return st;
}

}  // namespace

gemmkit_status gemm_reducescatter(const Call& c, const DistPlan& plan, int64_t m, const void* x, int64_t ldx,
                                  void* y_local, int64_t ldy) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size;
    if (P == 1) return gemm_rows(c, m, x, ldx, y_local, ldy, 0, 0);
    const int64_t own_rows = rows_of(m, P, ctx->rank);
    // Partial sums of every block ([m, n]), then this rank's result where y_local is not packed.
    const int64_t sum_rows = m + (ldy == c.n ? 0 : own_rows);
    void* sums = nullptr;
    if (gemmkit_status s = workspace(ctx, static_cast<size_t>(sum_rows * c.n * c.elem), c.stream, &sums,
                                     "the partial sums");
        s != GEMMKIT_SUCCESS)
        return s;
    void* out = ldy == c.n ? y_local : row_ptr(sums, m, c.n, c.elem);
    gemmkit_status s = GEMMKIT_SUCCESS;
    if (plan.schedule == Schedule::kOverlap) {
        s = ring(c, plan, m, x, ldx, sums, out);
        const gemmkit_status joined = order_after(ctx->comm_stream, c.stream);  // all of it, even after a failure
        if (s == GEMMKIT_SUCCESS) s = joined;
    } else {
        s = sequential(c, m, x, ldx, sums, out);
    }
    if (s == GEMMKIT_SUCCESS && out != y_local &&
        cudaMemcpy2DAsync(y_local, ldy * c.elem, out, c.n * c.elem, c.n * c.elem, own_rows, cudaMemcpyDeviceToDevice,
                          c.stream) != cudaSuccess) {
        cudaGetLastError();
        s = fail(GEMMKIT_CUDA_ERROR, "copying the result into y_local");
    }
    done_with_workspace(ctx, c.stream);
    return s;
}

}  // namespace gemmkit::dist
