/* gemmkit_dist — tensor-parallel GEMMs on NCCL, communication overlapped with the GEMMs.
 *
 * A separate library (libgemmkit_dist.so, target gemmkit::dist), built where NCCL is found.
 * NCCL moves the data; gemmkit cuts it into pieces and runs a GEMM on each piece as it
 * arrives. docs/dist.md explains the schedules and the plan that chooses them.
 *
 * Layouts are row-major, as tensor parallelism is usually written (X activations, W weights):
 *
 *   AllGather-GEMM (a column-parallel layer):   Y[m, n_local] = X[m, k] · op(W)
 *     X is sharded by rows: this rank holds its rows of X in x_local (row-major, ld ldx).
 *     W holds this rank's n_local output columns: w_op N: W is [k, n_local]; w_op T: W is
 *     [n_local, k] (a torch.nn.Linear weight). Y is this rank's [m, n_local] (ld ldy): every
 *     row, this rank's columns.
 *
 *   GEMM-ReduceScatter (a row-parallel layer):   Y_local = rows of sum_r X_r[m, k_local] · op(W_r)
 *     Each rank holds a k_local slice of the reduction: X_r is [m, k_local], W_r is
 *     [k_local, n] (w_op N) or [n, k_local] (w_op T). The sum over ranks is scattered by rows:
 *     y_local receives this rank's rows of the [m, n] result (ld ldy).
 *
 * Rank r of P holds rows [gemmkit_dist_row_begin(m, P, r), gemmkit_dist_row_begin(m, P, r+1))
 * of m: the first m % P ranks one row more than the others.
 *
 * Types: BF16 or FP16 operands and result (FP32 accumulation). Every call is collective: all
 * ranks call it, in the same order, with the same m, k (AllGather) or m, n (ReduceScatter) and
 * type; n_local (k_local) may differ. Otherwise every rank gets GEMMKIT_INVALID_VALUE naming
 * what differs: the first call with a new shape exchanges it, and a rank that never calls is a
 * timeout (options.timeout_ms), not a hang. Contexts are created with the same options on every
 * rank (checked likewise). Calls enqueue on `stream` and return; they may be captured into a
 * CUDA graph once the shape has been used outside capture (the replays, like the calls, run in
 * the same order on every rank). A context may be used from several threads; its calls are
 * serialized.
 */
#ifndef GEMMKIT_GEMMKIT_DIST_H
#define GEMMKIT_GEMMKIT_DIST_H

#include <nccl.h>

#include "gemmkit/gemmkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemmkit_dist_context* gemmkit_dist;

/* How a call runs: the plan's choice, or one schedule forced (for benchmarks and tests). */
typedef enum {
    GEMMKIT_DIST_AUTO = 0,        /* the plan chooses (docs/dist.md) */
    GEMMKIT_DIST_SEQUENTIAL = 1,  /* the whole collective, then one GEMM */
    GEMMKIT_DIST_OVERLAP = 2      /* pieces: each GEMM runs while the next piece moves */
} gemmkit_dist_schedule;

typedef struct {
    gemmkit_dist_schedule schedule; /* GEMMKIT_DIST_AUTO */
    int pieces;                     /* GEMM-ReduceScatter: row pieces a block is cut into (capped
                                       kernels), or column parts whose partial sums move one
                                       after another (copy engines); 0: the plan's */
    int comm_sms;                   /* SMs left to NCCL during overlap on capped kernels, and
                                       the most CTAs its kernels take; 0: the plan's */
    double link_gbps;               /* GB/s one rank receives through the overlap's transport
                                       (copy engines, or the capped communicator); 0: the
                                       plan's measured figure (docs/dist.md) */
    int timeout_ms;                 /* how long a shape exchange waits for the peers; 0: 60000 */
} gemmkit_dist_options;

/* Collective over `comm`'s ranks, each on the device `comm` was made for (the current one).
 * Makes gemmkit's own communicators from `comm` (ncclCommSplit: one whose transfers run on the
 * copy engines where NCCL 2.28+ can, one whose kernels are held to few CTAs) and a stream for
 * them (docs/dist.md#transports). Every overlap runs on the copy engines where every rank has
 * them; GEMMKIT_DIST_COPY_ENGINES=0 in the environment (the same on every rank) keeps the
 * capped kernels. options may be NULL (all defaults). `comm` stays the caller's and must
 * outlive the context. */
GEMMKIT_API gemmkit_status gemmkit_dist_create(ncclComm_t comm, const gemmkit_dist_options* options,
                                               gemmkit_dist* out);
GEMMKIT_API gemmkit_status gemmkit_dist_destroy(gemmkit_dist ctx);

/* Rank and size of the context's communicator. */
GEMMKIT_API int gemmkit_dist_rank(gemmkit_dist ctx);
GEMMKIT_API int gemmkit_dist_size(gemmkit_dist ctx);

/* First row of rank `rank` of `ranks` when m rows are shared out (rank == ranks gives m). */
GEMMKIT_API int64_t gemmkit_dist_row_begin(int64_t m, int ranks, int rank);

/* Y[m, n_local] = allgather_rows(X) · op(W). x_local: this rank's rows of X, [rows, k]. */
GEMMKIT_API gemmkit_status gemmkit_dist_allgather_gemm(gemmkit_dist ctx, cudaStream_t stream, int64_t m,
                                                       int64_t n_local, int64_t k, const void* x_local, int64_t ldx,
                                                       const void* w, gemmkit_op w_op, int64_t ldw, void* y,
                                                       int64_t ldy, gemmkit_dtype type);

/* y_local[rows, n] = this rank's rows of sum over ranks of X_r[m, k_local] · op(W_r). */
GEMMKIT_API gemmkit_status gemmkit_dist_gemm_reducescatter(gemmkit_dist ctx, cudaStream_t stream, int64_t m,
                                                           int64_t n, int64_t k_local, const void* x, int64_t ldx,
                                                           const void* w, gemmkit_op w_op, int64_t ldw,
                                                           void* y_local, int64_t ldy, gemmkit_dtype type);

/* The plan of this thread's last call, one line a decision ("" before any). */
GEMMKIT_API const char* gemmkit_dist_last_plan(void);

/* Detail of this thread's last gemmkit_dist failure, naming the argument ("" after a success). */
GEMMKIT_API const char* gemmkit_dist_last_error(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GEMMKIT_GEMMKIT_DIST_H */
