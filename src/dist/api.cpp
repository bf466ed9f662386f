// gemmkit_dist's entry points: argument checks (before any device work), the ranks' agreement
// on the call, the plan, then the operation.
#include <algorithm>
#include <string>

#include "dist/ops.hpp"

namespace gemmkit::dist {
namespace {

// Checks shared by both operations. rows: this rank's rows of X (AllGather) or all m.
gemmkit_status check(gemmkit_dist ctx, int64_t m, int64_t n, int64_t k, const void* x, int64_t ldx, const void* w,
                     gemmkit_op w_op, int64_t ldw, const void* y, int64_t ldy, gemmkit_dtype type, const char* n_name,
                     const char* k_name, const char* y_name, int64_t x_rows, int64_t y_rows) {
    if (ctx == nullptr) return fail(GEMMKIT_INVALID_VALUE, "ctx is NULL");
    if (ctx->broken) return fail(GEMMKIT_INVALID_VALUE, "ctx was aborted by an earlier timeout; destroy it");
    if (type != GEMMKIT_R_32F && type != GEMMKIT_R_64F && type != GEMMKIT_R_16F && type != GEMMKIT_R_16BF)
        return fail(GEMMKIT_INVALID_VALUE, "type = " + std::to_string(type) + " is not a gemmkit_dtype");
    if (type != GEMMKIT_R_16BF && type != GEMMKIT_R_16F)
        return fail(GEMMKIT_NOT_SUPPORTED, "type must be GEMMKIT_R_16BF or GEMMKIT_R_16F");
    if (w_op != GEMMKIT_OP_N && w_op != GEMMKIT_OP_T) return fail(GEMMKIT_INVALID_VALUE, "w_op is neither N nor T");
    if (m < 0) return fail(GEMMKIT_INVALID_VALUE, "m = " + std::to_string(m) + " is negative");
    if (n < 0) return fail(GEMMKIT_INVALID_VALUE, std::string(n_name) + " = " + std::to_string(n) + " is negative");
    if (k < 0) return fail(GEMMKIT_INVALID_VALUE, std::string(k_name) + " = " + std::to_string(k) + " is negative");
    auto ld_check = [](int64_t ld, int64_t need, const char* name) {
        if (ld >= std::max<int64_t>(1, need)) return GEMMKIT_SUCCESS;
        return fail(GEMMKIT_INVALID_VALUE, std::string(name) + " = " + std::to_string(ld) + " is less than " +
                                               std::to_string(std::max<int64_t>(1, need)));
    };
    if (gemmkit_status s = ld_check(ldx, k, "ldx"); s != GEMMKIT_SUCCESS) return s;
    if (gemmkit_status s = ld_check(ldw, w_op == GEMMKIT_OP_N ? n : k, "ldw"); s != GEMMKIT_SUCCESS) return s;
    if (gemmkit_status s = ld_check(ldy, n, "ldy"); s != GEMMKIT_SUCCESS) return s;
    if (x_rows > 0 && k > 0 && x == nullptr) return fail(GEMMKIT_INVALID_VALUE, "x is NULL");
    if (n > 0 && k > 0 && w == nullptr) return fail(GEMMKIT_INVALID_VALUE, "w is NULL");
    if (y_rows > 0 && n > 0 && y == nullptr) return fail(GEMMKIT_INVALID_VALUE, std::string(y_name) + " is NULL");
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess || device != ctx->device) {
        cudaGetLastError();
        return fail(GEMMKIT_INVALID_VALUE, "ctx belongs to device " + std::to_string(ctx->device) +
                                               ", but the current device is " + std::to_string(device));
    }
    return GEMMKIT_SUCCESS;
}

Call call_of(gemmkit_dist ctx, cudaStream_t stream, gemmkit_dtype type, int64_t n, int64_t k, const void* w,
             gemmkit_op w_op, int64_t ldw) {
    Call c;
    c.ctx = ctx, c.stream = stream, c.type = type, c.n = n, c.k = k, c.w = w, c.w_op = w_op, c.ldw = ldw;
    c.nccl_type = type == GEMMKIT_R_16BF ? ncclBfloat16 : ncclFloat16;
    c.elem = 2;
    return c;
}

DistRequest request_of(const gemmkit_dist_options& o) {
    DistRequest r;
    r.force = o.schedule == GEMMKIT_DIST_SEQUENTIAL ? DistRequest::Force::kSequential
              : o.schedule == GEMMKIT_DIST_OVERLAP  ? DistRequest::Force::kOverlap
                                                    : DistRequest::Force::kAuto;
    r.pieces = o.pieces;
    r.comm_sms = o.comm_sms;
    return r;
}

// Every rank must make the same call: op, m, the shared size, type and the number of ranks.
// Slot 6 is the size that may differ between ranks (n_local, k_local): its smallest value is
// what every rank plans with, so that all of them choose the same schedule.
constexpr const char* kFields[8] = {"the operation", "m", "k", "type", "n", "ranks", "", "(unused)"};

gemmkit_status run(DistOp op, gemmkit_dist ctx, cudaStream_t stream, int64_t m, int64_t n, int64_t k, const void* x,
                   int64_t ldx, const void* w, gemmkit_op w_op, int64_t ldw, void* y, int64_t ldy, gemmkit_dtype type) {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    const bool gather = op == DistOp::kAllGatherGemm;
    // AllGather: ranks share m and k (n_local may differ); ReduceScatter: m and n (k_local may).
    const std::array<int64_t, 8> signature = {gather ? 0 : 1, m, gather ? k : 0, type, gather ? 0 : n, ctx->size,
                                              gather ? n : k, 0};
    int64_t smallest = 0;
    if (gemmkit_status s = agree_on(ctx, signature, kFields, &smallest); s != GEMMKIT_SUCCESS) return s;
    // Plans are made once a shape (their reasons are text, which costs more than the call's
    // other host work).
    const int64_t plan_n = gather ? smallest : n, plan_k = gather ? k : smallest;
    auto known = ctx->plans.find({gather ? 0 : 1, m, plan_n, plan_k, type});
    if (known == ctx->plans.end()) {
        const DistPlan made = plan_dist({.op = op, .m = m, .n = plan_n, .k = plan_k, .ranks = ctx->size,
                                         .elem_bytes = 2},
                                        ctx->facts, request_of(ctx->options));
        known = ctx->plans.emplace(std::array<int64_t, 5>{gather ? 0 : 1, m, plan_n, plan_k, type},
                                   gemmkit_dist_context::KnownPlan{made, describe(made)}).first;
    }
    const DistPlan& plan = known->second.plan;
    set_last_plan(known->second.text);
    // m == 0: nothing for any rank. A rank with no columns (n_local == 0) still takes part in
    // the transfers; its GEMMs are empty.
    if (m == 0) {
        clear_error();
        return GEMMKIT_SUCCESS;
    }
    const Call c = call_of(ctx, stream, type, n, k, w, w_op, ldw);
    const gemmkit_status s =
        gather ? allgather_gemm(c, plan, m, x, ldx, y, ldy) : gemm_reducescatter(c, plan, m, x, ldx, y, ldy);
    if (s == GEMMKIT_SUCCESS) clear_error();
    return s;
}

}  // namespace
}  // namespace gemmkit::dist

using namespace gemmkit::dist;

extern "C" gemmkit_status gemmkit_dist_allgather_gemm(gemmkit_dist ctx, cudaStream_t stream, int64_t m,
                                                      int64_t n_local, int64_t k, const void* x_local, int64_t ldx,
                                                      const void* w, gemmkit_op w_op, int64_t ldw, void* y, int64_t ldy,
                                                      gemmkit_dtype type) {
    const int64_t rows = ctx == nullptr ? 0 : rows_of(m < 0 ? 0 : m, ctx->size, ctx->rank);
    if (gemmkit_status s = check(ctx, m, n_local, k, x_local, ldx, w, w_op, ldw, y, ldy, type, "n_local", "k", "y",
                                 rows, m);
        s != GEMMKIT_SUCCESS)
        return s;
    return run(DistOp::kAllGatherGemm, ctx, stream, m, n_local, k, x_local, ldx, w, w_op, ldw, y, ldy, type);
}

extern "C" gemmkit_status gemmkit_dist_gemm_reducescatter(gemmkit_dist ctx, cudaStream_t stream, int64_t m,
                                                          int64_t n, int64_t k_local, const void* x, int64_t ldx,
                                                          const void* w, gemmkit_op w_op, int64_t ldw, void* y_local,
                                                          int64_t ldy, gemmkit_dtype type) {
    const int64_t rows = ctx == nullptr ? 0 : rows_of(m < 0 ? 0 : m, ctx->size, ctx->rank);
    if (gemmkit_status s = check(ctx, m, n, k_local, x, ldx, w, w_op, ldw, y_local, ldy, type, "n", "k_local",
                                 "y_local", m, rows);
        s != GEMMKIT_SUCCESS)
        return s;
    return run(DistOp::kGemmReduceScatter, ctx, stream, m, n, k_local, x, ldx, w, w_op, ldw, y_local, ldy, type);
}
