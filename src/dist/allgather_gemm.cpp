// AllGather-GEMM: Y[m, n_local] = allgather_rows(X) · op(W). docs/dist.md#the-schedules.
//
// Sequential: the whole all-gather (ncclAllGather where every rank holds as many rows), then
// one GEMM. Overlap: this rank's own rows need no transfer, so their GEMM starts at once; all
// transfers are enqueued next, step s bringing peer (r - s) mod P's rows straight into their
// place in the gathered X, and each block's GEMM waits for its own step only. The rows the plan
// counts as beside the transfers run on the SMs NCCL leaves free; the rest wait for the last
// transfer and take every SM. On the copy engines (overlap_on_copy_engines) one all-gather moves
// everything beside the GEMM of a few own rows, and the rest of X follows in one GEMM.
#include <vector>

#include "dist/copy_rows.hpp"
#include "dist/ops.hpp"
#include "dist/trace.hpp"

namespace gemmkit::dist {
namespace {

// NCCL sends contiguous rows: where X is not packed, this rank's rows are first copied into
// their place in `gathered`, on `stream`.
gemmkit_status pack_own_rows(const Call& c, int64_t m, const void* x_local, int64_t ldx, void* gathered,
                             cudaStream_t stream, const void** send) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size, r = ctx->rank;
    *send = x_local;
    if (ldx == c.k) return GEMMKIT_SUCCESS;
    void* own = row_ptr(gathered, row_begin(m, P, r), c.k, c.elem);
    *send = own;
    if (cudaMemcpy2DAsync(own, c.k * c.elem, x_local, ldx * c.elem, c.k * c.elem, rows_of(m, P, r),
                          cudaMemcpyDeviceToDevice, stream) == cudaSuccess)
        return GEMMKIT_SUCCESS;
    cudaGetLastError();
    return fail(GEMMKIT_CUDA_ERROR, "copying this rank's rows of X into the gathered X");
}

// On the caller's stream: the collective, then the GEMM, as a framework would run them.
gemmkit_status sequential(const Call& c, int64_t m, const void* x_local, int64_t ldx, void* y, int64_t ldy,
                          void* gathered) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size, r = ctx->rank;
    const int64_t own_rows = rows_of(m, P, r);
    const auto deadline = deadline_after_ms(ctx->options.timeout_ms);
    const void* send = nullptr;
    if (gemmkit_status s = pack_own_rows(c, m, x_local, ldx, gathered, c.stream, &send); s != GEMMKIT_SUCCESS)
        return s;
    gemmkit_status s = GEMMKIT_SUCCESS;
    if (m % P == 0) {
        s = settle(ctx, ctx->comm_full,
                   ncclAllGather(send, gathered, static_cast<size_t>(own_rows * c.k), c.nccl_type, ctx->comm_full,
                                 c.stream),
                   "ncclAllGather", deadline);
    } else {  // the same as point-to-point transfers, own rows copied too
        void* own = row_ptr(gathered, row_begin(m, P, r), c.k, c.elem);
        if (send != own && cudaMemcpyAsync(own, send, static_cast<size_t>(own_rows * c.k * c.elem),
                                           cudaMemcpyDeviceToDevice, c.stream) != cudaSuccess) {
            cudaGetLastError();
            return fail(GEMMKIT_CUDA_ERROR, "copying this rank's rows of X into the gathered X");
        }
        ncclGroupStart();
        for (int q = 0; q < P; ++q) {
            if (q == r) continue;
            ncclSend(send, static_cast<size_t>(own_rows * c.k), c.nccl_type, q, ctx->comm_full, c.stream);
            ncclRecv(row_ptr(gathered, row_begin(m, P, q), c.k, c.elem), static_cast<size_t>(rows_of(m, P, q) * c.k),
                     c.nccl_type, q, ctx->comm_full, c.stream);
        }
        s = settle(ctx, ctx->comm_full, ncclGroupEnd(), "the all-gather", deadline);
    }
    if (s == GEMMKIT_SUCCESS) s = gemm_rows(c, m, gathered, c.k, y, ldy, 0, 0);
    return s;
}

gemmkit_status overlap(const Call& c, const DistPlan& plan, int64_t m, const void* x_local, int64_t ldx, void* y,
                       int64_t ldy, void* gathered) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size, r = ctx->rank;
    const auto deadline = deadline_after_ms(ctx->options.timeout_ms);
    const int beside = ctx->facts.sm_count - plan.comm_sms;
    if (gemmkit_status s = order_after(c.stream, ctx->comm_stream); s != GEMMKIT_SUCCESS) return s;
    const void* send = nullptr;
    if (gemmkit_status s = pack_own_rows(c, m, x_local, ldx, gathered, ctx->comm_stream, &send); s != GEMMKIT_SUCCESS)
        return s;
    // The blocks in the order their GEMMs run; block i (i >= 1) arrives in step i.
    struct Block {
        const void* x;
        int64_t ldx, begin, rows;
    };
    std::vector<Block> blocks;
    blocks.push_back({x_local, ldx, row_begin(m, P, r), rows_of(m, P, r)});
    for (int s = 1; s < P; ++s) {
        const int from = (r - s + P) % P;
        const int64_t begin = row_begin(m, P, from);
        blocks.push_back({row_ptr(gathered, begin, c.k, c.elem), c.k, begin, rows_of(m, P, from)});
    }
    // Own rows beside the transfers first, so the GEMM holds its SMs before NCCL's kernels come.
    const int64_t own_beside = std::min(blocks[0].rows, plan.beside_rows);
    if (gemmkit_status s = gemm_rows(c, own_beside, x_local, ldx, row_ptr(y, blocks[0].begin, ldy, c.elem), ldy, 0,
                                     beside);
        s != GEMMKIT_SUCCESS)
        return s;
    std::vector<cudaEvent_t> arrived(static_cast<size_t>(P), nullptr);  // [s]: step s's rows are here
    gemmkit_status st = GEMMKIT_SUCCESS;
    for (int s = 1; s < P && st == GEMMKIT_SUCCESS; ++s) {
        const int to = (r + s) % P, from = (r - s + P) % P;
        ncclGroupStart();
        ncclSend(send, static_cast<size_t>(blocks[0].rows * c.k), c.nccl_type, to, ctx->comm, ctx->comm_stream);
        ncclRecv(const_cast<void*>(blocks[s].x), static_cast<size_t>(blocks[s].rows * c.k), c.nccl_type, from,
                 ctx->comm, ctx->comm_stream);
        st = settle(ctx, ctx->comm, ncclGroupEnd(), "an all-gather step", deadline);
        if (st == GEMMKIT_SUCCESS && (cudaEventCreateWithFlags(&arrived[s], cudaEventDisableTiming) != cudaSuccess ||
                                      cudaEventRecord(arrived[s], ctx->comm_stream) != cudaSuccess))
            st = fail(GEMMKIT_CUDA_ERROR, "recording a step's arrival");
    }
    // The rest: rows up to beside_rows (counting from the own block's first) on the SMs NCCL
    // leaves; after them, every SM, once the last transfer is done.
    int64_t done = own_beside;
    for (int i = 0; i < P && st == GEMMKIT_SUCCESS; ++i) {
        const Block& b = blocks[i];
        const int64_t start = i == 0 ? own_beside : 0;
        const int64_t before = done - start;  // rows of earlier blocks already run
        for (int64_t row = start; row < b.rows && st == GEMMKIT_SUCCESS;) {
            const bool is_beside = before + row < plan.beside_rows;
            const int64_t end = is_beside ? std::min(b.rows, plan.beside_rows - before) : b.rows;
            cudaEvent_t wait = is_beside ? arrived[i] : arrived[P - 1];  // the last step implies the others
            if (wait != nullptr && cudaStreamWaitEvent(c.stream, wait, 0) != cudaSuccess)
                st = fail(GEMMKIT_CUDA_ERROR, "waiting for a step's rows");
            if (st == GEMMKIT_SUCCESS)
                st = gemm_rows(c, end - row, row_ptr(b.x, row, b.ldx, c.elem), b.ldx,
                               row_ptr(y, b.begin + row, ldy, c.elem), ldy, 0, is_beside ? beside : 0);
            row = end;
        }
        done += b.rows - start;
    }
    for (cudaEvent_t e : arrived)
        if (e != nullptr) cudaEventDestroy(e);
    if (st != GEMMKIT_SUCCESS) cudaGetLastError();
    return st;
}

// The overlap on the copy engines. The window is the gathered X, [P][slot_rows][k]: slot q holds
// rank q's rows, and one in-place ncclAllGather (on copy engines, no SMs) fills the peers'
// slots, once this rank's rows are copied into its own (copy_rows, on SMs). Where every rank
// holds slot_rows rows the window is X in order, so after the own rows beside the transfer, the rest of X runs as
// one GEMM (two where this rank's block is in the middle). The own rows beside the transfer
// are the block's first (rank 0) or its last (any other), so that what remains is contiguous.
gemmkit_status overlap_on_copy_engines(const Call& c, const DistPlan& plan, int64_t m, const void* x_local,
                                       int64_t ldx, void* y, int64_t ldy, void* window) {
    gemmkit_dist_context* ctx = c.ctx;
    const int P = ctx->size, r = ctx->rank;
    const auto deadline = deadline_after_ms(ctx->options.timeout_ms);
    const int64_t slot_rows = slot_rows_of(m, P);
    auto slot = [&](int q) { return row_ptr(window, int64_t(q) * slot_rows, c.k, c.elem); };
    Trace trace(r, c.stream);
    const int64_t own_begin = row_begin(m, P, r), own_rows = rows_of(m, P, r);
    // The own rows into their slot first, on SMs and on the caller's stream, before the GEMMs
    // hold every SM; the transfer waits for it.
    gemmkit_status st = GEMMKIT_SUCCESS;
    trace.begin(c.stream, "copy");
    if (copy_rows(slot(r), c.k * c.elem, x_local, ldx * c.elem, own_rows, c.k * c.elem, ctx->facts.sm_count,
                  c.stream) != cudaSuccess)
        st = fail(GEMMKIT_CUDA_ERROR, "copying this rank's rows of X into the window");
    trace.end(c.stream);
    if (st == GEMMKIT_SUCCESS) st = order_after(c.stream, ctx->comm_stream);
    // The own rows beside the transfer, enqueued first: nothing they need moves.
    const int64_t beside = std::min(own_rows, plan.beside_rows);
    const int64_t beside_from = r == 0 ? 0 : own_rows - beside;  // within the own block
    trace.begin(c.stream, "beside");
    if (st == GEMMKIT_SUCCESS)
        st = gemm_rows(c, beside, row_ptr(x_local, beside_from, ldx, c.elem), ldx,
                       row_ptr(y, own_begin + beside_from, ldy, c.elem), ldy, 0, 0);
    trace.end(c.stream);
    trace.begin(ctx->comm_stream, "gather");
    if (st == GEMMKIT_SUCCESS)
        st = settle(ctx, ctx->comm_ce,
                    ncclAllGather(slot(r), slot(0), static_cast<size_t>(slot_rows * c.k), c.nccl_type, ctx->comm_ce,
                                  ctx->comm_stream),
                    "an all-gather on the copy engines", deadline);
    trace.end(ctx->comm_stream);
    if (st == GEMMKIT_SUCCESS) st = order_after(ctx->comm_stream, c.stream);  // the rest reads the gathered X
    // The rest: [0, own_begin + beside_from) and [own_begin + beside_from + beside, m) of X.
    std::vector<RowRange> rest;
    if (slot_rows * P == m) {
        rest = {{0, own_begin + beside_from}, {own_begin + beside_from + beside, m}};
    } else {  // slots with a row to spare: each block where it lies
        rest.push_back({own_begin + (r == 0 ? beside : 0), own_begin + (r == 0 ? own_rows : own_rows - beside)});
        for (int q = 0; q < P; ++q)
            if (q != r) rest.push_back({row_begin(m, P, q), row_begin(m, P, q + 1)});
    }
    for (const RowRange& range : rest) {
        if (st != GEMMKIT_SUCCESS || range.end <= range.begin) continue;
        // Where the window is X in order, row i of X is the window's row i; otherwise row i of
        // block q is row i - row_begin(q) of slot q.
        int q = 0;
        while (slot_rows * P != m && row_begin(m, P, q + 1) <= range.begin) ++q;
        const void* from = slot_rows * P == m ? row_ptr(window, range.begin, c.k, c.elem)
                                              : row_ptr(slot(q), range.begin - row_begin(m, P, q), c.k, c.elem);
        trace.begin(c.stream, "rows" + std::to_string(range.begin));
        st = gemm_rows(c, range.end - range.begin, from, c.k, row_ptr(y, range.begin, ldy, c.elem), ldy, 0, 0);
        trace.end(c.stream);
    }
    if (st != GEMMKIT_SUCCESS) cudaGetLastError();
    if (st == GEMMKIT_SUCCESS) trace.print();
    return st;
}

}  // namespace

int64_t slot_rows_of(int64_t m, int ranks) { return rows_of(m, ranks, 0); }  // rank 0 holds the most rows

gemmkit_status allgather_gemm(const Call& c, const DistPlan& plan, int64_t m, const void* x_local, int64_t ldx, void* y,
                              int64_t ldy) {
    gemmkit_dist_context* ctx = c.ctx;
    if (ctx->size == 1) return gemm_rows(c, m, x_local, ldx, y, ldy, 0, 0);
    if (plan.schedule == Schedule::kOverlap && plan.transport == Transport::kCopyEngines)
        return on_window(c, static_cast<size_t>(ctx->size) * slot_rows_of(m, ctx->size) * c.k * c.elem,
                         "the gathered X", [&](void* window) {
                             return overlap_on_copy_engines(c, plan, m, x_local, ldx, y, ldy, window);
                         });
    void* gathered = nullptr;  // [m, k]: the peers' rows in their places (and this rank's, sequential)
    if (gemmkit_status s = workspace(ctx, static_cast<size_t>(m * c.k * c.elem), c.stream, &gathered, "the gathered X");
        s != GEMMKIT_SUCCESS)
        return s;
    gemmkit_status s = GEMMKIT_SUCCESS;
    if (plan.schedule == Schedule::kOverlap) {
        s = overlap(c, plan, m, x_local, ldx, y, ldy, gathered);
        const gemmkit_status joined = order_after(ctx->comm_stream, c.stream);  // all of it, even after a failure
        if (s == GEMMKIT_SUCCESS) s = joined;
    } else {
        s = sequential(c, m, x_local, ldx, y, ldy, gathered);
    }
    done_with_workspace(ctx, c.stream);
    return s;
}

}  // namespace gemmkit::dist
