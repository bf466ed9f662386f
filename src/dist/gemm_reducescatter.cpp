// GEMM-ReduceScatter: y_local = this rank's rows of sum_r X_r · op(W_r). docs/dist.md#gemm-reducescatter.
//
// Sequential, on the caller's stream: one GEMM of all m rows' partial sums, then
// ncclReduceScatter (ncclReduce to each rank where they hold different numbers of rows). Overlap: a ring. In step s rank r forms the
// partial sums of block b = (r - s - 1) mod P on top of those its predecessor sent (the GEMM's
// beta = 1 adds them) and sends the result on; in step P - 1 the block is r's own and the sum is
// complete. Each block is cut into pieces, so a piece moves while the next one's GEMM runs.
// On the copy engines (overlap_on_copy_engines): the peers' rows first, their partial sums
// exchanged beside the own rows' GEMM, then added in.
#include "dist/ops.hpp"

#include <string>
#include <vector>

#include "dist/steps.hpp"
#include "dist/add_partials.hpp"
#include "dist/trace.hpp"

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

// The overlap on the copy engines. The peers' rows go first: their partial sums land in the
// window's send slots, slot q for rank q (as one GEMM where the slots follow on as the rows
// do). Their exchange then runs on copy engines beside the own rows' GEMM (beta 0, straight
// into y_local), and one pass adds what arrived into y_local. With two ranks the exchange is
// an in-place ncclAllGather (this rank's partial sums for the peer in its own slot, the peer's
// for it in the other), which moves nothing twice; beyond, an ncclAlltoAll into receive slots
// of the same shape. With plan.pieces > 1 the columns are cut into parts, each with slots of
// its own ([P][slot_rows][the part's columns]), and a part's exchange runs beside the next
// part's GEMMs: the last part's beside the own rows' GEMM.
gemmkit_status overlap_on_copy_engines(const Call& c, const DistPlan& plan, int64_t m, const void* x, int64_t ldx,
                                       void* y_local, int64_t ldy, void* window) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size, r = ctx->rank, parts = plan.pieces;
    const auto deadline = deadline_after_ms(ctx->options.timeout_ms);
    const int64_t slot_rows = slot_rows_of(m, P);
    const bool pair = P == 2;
    // Slot q of column part `cols`, on side 0 (what is sent) or 1 (what arrives, beyond two ranks).
    auto slot = [&](int side, RowRange cols, int q) {
        const int64_t before = int64_t(side) * P * slot_rows * c.n + P * slot_rows * cols.begin;
        return row_ptr(window, before + q * slot_rows * (cols.end - cols.begin), 1, c.elem);
    };
    auto sent = [&](RowRange cols, int q) { return slot(0, cols, pair ? r : q); };
    auto received = [&](RowRange cols) { return slot(pair ? 0 : 1, cols, 0); };
    Trace trace(r, c.stream);
    gemmkit_status st = GEMMKIT_SUCCESS;
    for (int part = 0; part < parts && st == GEMMKIT_SUCCESS; ++part) {
        const RowRange cols = piece_of(c.n, parts, part);
        const Call columns = columns_of(c, cols);
        // Appended, not `std::string(".") + ...`: GCC 12 warned of an overlapping memcpy inside
        // that operator+ (-Wrestrict, a false positive of its inlining).
        std::string name;
        if (parts > 1) name.append(".").append(std::to_string(part));
        for (int q = 0; q < P && st == GEMMKIT_SUCCESS;) {
            if (q == r || rows_of(m, P, q) == 0) {
                ++q;
                continue;
            }
            int64_t rows = rows_of(m, P, q);
            int next = q + 1;  // peers whose slots follow on, as their rows do, run as one GEMM
            while (!pair && next < P && next != r && rows_of(m, P, next - 1) == slot_rows) rows += rows_of(m, P, next++);
            trace.begin(c.stream, "peers" + std::to_string(q) + name);
            st = gemm_rows(columns, rows, row_ptr(x, row_begin(m, P, q), ldx, c.elem), ldx, sent(cols, q), columns.n,
                           0, 0);
            trace.end(c.stream);
            q = next;
        }
        if (st == GEMMKIT_SUCCESS) st = order_after(c.stream, ctx->comm_stream);
        trace.begin(ctx->comm_stream, "exchange" + name);
        const size_t count = static_cast<size_t>(slot_rows * (cols.end - cols.begin));
        if (st == GEMMKIT_SUCCESS)
            st = settle(ctx, ctx->comm_ce,
                        pair ? ncclAllGather(sent(cols, 0), slot(0, cols, 0), count, c.nccl_type, ctx->comm_ce,
                                             ctx->comm_stream)
                             : ncclAlltoAll(slot(0, cols, 0), slot(1, cols, 0), count, c.nccl_type, ctx->comm_ce,
                                            ctx->comm_stream),
                        "exchanging partial sums on the copy engines", deadline);
        trace.end(ctx->comm_stream);
    }
    const int64_t own_rows = rows_of(m, P, r);
    trace.begin(c.stream, "own");
    if (st == GEMMKIT_SUCCESS)
        st = gemm_rows(c, own_rows, row_ptr(x, row_begin(m, P, r), ldx, c.elem), ldx, y_local, ldy, 0, 0);
    trace.end(c.stream);
    // The addition waits for every exchange (nothing else is on the comm stream since).
    if (st == GEMMKIT_SUCCESS) st = order_after(ctx->comm_stream, c.stream);
    trace.begin(c.stream, "add");
    for (int part = 0; part < parts && st == GEMMKIT_SUCCESS; ++part) {
        const RowRange cols = piece_of(c.n, parts, part);
        const int64_t width = cols.end - cols.begin;
        if (add_partials(c.type, row_ptr(y_local, cols.begin, 1, c.elem), ldy, received(cols), slot_rows * width, P,
                         r, own_rows, width, ctx->facts.sm_count, c.stream) != cudaSuccess)
            st = fail(GEMMKIT_CUDA_ERROR, "adding the partial sums into y_local");
    }
    trace.end(c.stream);
    if (st != GEMMKIT_SUCCESS) cudaGetLastError();
    if (st == GEMMKIT_SUCCESS) trace.print();
    return st;
}

}  // namespace

gemmkit_status gemm_reducescatter(const Call& c, const DistPlan& plan, int64_t m, const void* x, int64_t ldx,
                                  void* y_local, int64_t ldy) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size;
    if (P == 1) return gemm_rows(c, m, x, ldx, y_local, ldy, 0, 0);
    if (plan.schedule == Schedule::kOverlap && plan.transport == Transport::kCopyEngines) {
        // Send slots, and (beyond two ranks) receive slots.
        const size_t bytes = (P == 2 ? 1 : 2) * static_cast<size_t>(P) * slot_rows_of(m, P) * c.n * c.elem;
        return on_window(c, bytes, "the partial sums", [&](void* window) {
            return overlap_on_copy_engines(c, plan, m, x, ldx, y_local, ldy, window);
        });
    }
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
