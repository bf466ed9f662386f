// gemmkit_dist_create / destroy, errors, and the exchange that checks every rank's call.
#include "dist/context.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gemmkit::dist {
namespace {

thread_local std::string t_last_error;
thread_local std::string t_last_plan;

std::string nccl_text(ncclComm_t comm, ncclResult_t r) {
    std::string s = ncclGetErrorString(r);
    if (comm != nullptr) {
        const char* detail = ncclGetLastError(comm);
        if (detail != nullptr && *detail != '\0') s += std::string(" (") + detail + ")";
    }
    return s;
}

// Polls `comm` until its pending operation settles; false at the deadline.
bool wait_settled(ncclComm_t comm, ncclResult_t* state, Deadline deadline) {
    for (;;) {
        if (ncclCommGetAsyncError(comm, state) != ncclSuccess) return true;  // state says why
        if (*state != ncclInProgress) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::yield();
    }
}

}  // namespace

gemmkit_status abort_all(gemmkit_dist_context* ctx, const std::string& what);

gemmkit_status fail(gemmkit_status status, std::string message) {
    t_last_error = std::move(message);
    return status;
}
void clear_error() { t_last_error.clear(); }
void set_last_plan(std::string plan) { t_last_plan = std::move(plan); }

Deadline deadline_after_ms(int ms) { return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); }

gemmkit_status settle(gemmkit_dist_context* ctx, ncclComm_t comm, ncclResult_t result, const char* what,
                      Deadline deadline) {
    if (result == ncclInProgress && !wait_settled(comm, &result, deadline)) return abort_all(ctx, what);
    if (result != ncclSuccess) return fail(GEMMKIT_CUDA_ERROR, std::string(what) + ": " + nccl_text(comm, result));
    return GEMMKIT_SUCCESS;
}

// Aborts every communicator of ctx: what a timeout leaves behind cannot be trusted.
gemmkit_status abort_all(gemmkit_dist_context* ctx, const std::string& what) {
    for (ncclComm_t* c : {&ctx->comm, &ctx->comm_full, &ctx->comm_check, &ctx->comm_ce}) {
        if (*c != nullptr) ncclCommAbort(*c);
        *c = nullptr;
    }
    ctx->broken = true;
    return fail(GEMMKIT_CUDA_ERROR, what +
                                        ": the peers did not answer in time (a rank did not make the same call?); "
                                        "the context is unusable, destroy it");
}

gemmkit_status exchange(gemmkit_dist_context* ctx, const std::array<int64_t, 8>& mine, const char* what,
                        std::vector<int64_t>* all) {
    // On a stream of its own, which no graph capture ever joins, and waited for here: permitted
    // while the caller's stream is captured, in relaxed mode. The copies go through pinned
    // memory, so that they are asynchronous and the wait below is the only one.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    const Deadline deadline = deadline_after_ms(ctx->options.timeout_ms);
    const size_t count = static_cast<size_t>(ctx->size) * 8;
    cudaStream_t s = ctx->exchange_stream;
    std::copy(mine.begin(), mine.end(), ctx->exchanged + 8 * ctx->rank);
    gemmkit_status st = GEMMKIT_SUCCESS;
    cudaError_t err = cudaMemcpyAsync(ctx->exchange + 8 * ctx->rank, ctx->exchanged + 8 * ctx->rank,
                                      8 * sizeof(int64_t), cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess)
        st = settle(ctx, ctx->comm_check,
                    ncclAllGather(ctx->exchange + 8 * ctx->rank, ctx->exchange, 8, ncclInt64, ctx->comm_check, s), what,
                    deadline);
    if (err == cudaSuccess && st == GEMMKIT_SUCCESS)
        err = cudaMemcpyAsync(ctx->exchanged, ctx->exchange, count * sizeof(int64_t), cudaMemcpyDeviceToHost, s);
    while (err == cudaSuccess && st == GEMMKIT_SUCCESS) {
        const cudaError_t q = cudaStreamQuery(s);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) {
            err = q;
            break;
        }
        ncclResult_t async = ncclSuccess;
        ncclCommGetAsyncError(ctx->comm_check, &async);
        if (async != ncclSuccess && async != ncclInProgress)
            st = fail(GEMMKIT_CUDA_ERROR, std::string(what) + ": " + nccl_text(ctx->comm_check, async));
        else if (std::chrono::steady_clock::now() > deadline)
            st = abort_all(ctx, what);
        else
            std::this_thread::yield();
    }
    cudaThreadExchangeStreamCaptureMode(&mode);
    if (st != GEMMKIT_SUCCESS) return st;
    if (err != cudaSuccess) {
        cudaGetLastError();
        return fail(GEMMKIT_CUDA_ERROR, std::string(what) + ": " + cudaGetErrorString(err));
    }
    all->assign(ctx->exchanged, ctx->exchanged + count);
    return GEMMKIT_SUCCESS;
}

gemmkit_status agree_on(gemmkit_dist_context* ctx, const std::array<int64_t, 8>& signature,
                        const char* const field_names[8], int64_t* smallest) {
    if (auto it = ctx->agreed.find(signature); it != ctx->agreed.end()) {
        *smallest = it->second;
        return GEMMKIT_SUCCESS;
    }
    std::vector<int64_t> all;
    if (gemmkit_status s = exchange(ctx, signature, "exchanging the call's sizes", &all); s != GEMMKIT_SUCCESS)
        return s;
    *smallest = signature[6];
    for (int q = 0; q < ctx->size; ++q) {
        *smallest = std::min(*smallest, all[8 * q + 6]);
        for (int j = 0; j < 8; ++j)
            if (j != 6 && all[8 * q + j] != signature[j])
                return fail(GEMMKIT_INVALID_VALUE, std::string(field_names[j]) + " differs between ranks: rank " +
                                                       std::to_string(ctx->rank) + " has " +
                                                       std::to_string(signature[j]) + ", rank " + std::to_string(q) +
                                                       " has " + std::to_string(all[8 * q + j]));
    }
    ctx->agreed.emplace(signature, *smallest);
    return GEMMKIT_SUCCESS;
}

namespace {

// What workspace and symmetric_window share: a buffer grows only outside graph capture (a
// graph keeps the pointers it was captured with), through `grow`; and a call on another
// stream than the last one's first waits for that call's use of the buffers.
template <typename Grow>
gemmkit_status reserve(gemmkit_dist_context* ctx, size_t bytes, size_t have, cudaStream_t stream, const char* what,
                       Grow grow) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
        cudaGetLastError();
        return fail(GEMMKIT_CUDA_ERROR, "asking whether the stream is being captured");
    }
    const bool capturing = capture != cudaStreamCaptureStatusNone;
    if (bytes > have) {
        if (capturing)
            return fail(GEMMKIT_INVALID_VALUE, std::string(what) +
                                                   " needs a larger workspace than earlier calls, which cannot be "
                                                   "allocated during graph capture: make the call once outside it first");
        if (gemmkit_status s = grow(); s != GEMMKIT_SUCCESS) return s;
    }
    // A call on the stream of the last one is ordered after it already.
    if (!capturing && stream != ctx->work_stream && cudaStreamWaitEvent(stream, ctx->work_done, 0) != cudaSuccess) {
        cudaGetLastError();
        return fail(GEMMKIT_CUDA_ERROR, "waiting for the previous call's use of the workspace");
    }
    return GEMMKIT_SUCCESS;
}

}  // namespace

gemmkit_status workspace(gemmkit_dist_context* ctx, size_t bytes, cudaStream_t stream, void** out, const char* what) {
    const gemmkit_status s = reserve(ctx, bytes, ctx->work_bytes, stream, what, [&] {
        // The old one stays allocated: a graph captured earlier may still point into it.
        if (ctx->work != nullptr) ctx->retired.push_back(ctx->work);
        ctx->work = nullptr, ctx->work_bytes = 0;
        if (cudaMalloc(&ctx->work, bytes) != cudaSuccess) {
            cudaGetLastError();
            ctx->work = nullptr;
            return fail(GEMMKIT_ALLOC_FAILED, std::string("no memory for ") + what + " (" + std::to_string(bytes) +
                                                  " bytes)");
        }
        ctx->work_bytes = bytes;
        return GEMMKIT_SUCCESS;
    });
    *out = ctx->work;
    return s;
}

gemmkit_status symmetric_window(gemmkit_dist_context* ctx, size_t bytes, cudaStream_t stream, void** out,
                                const char* what) {
#if GEMMKIT_NCCL_COPY_ENGINES
    gemmkit_dist_context::Window& w = ctx->window;
    const gemmkit_status s = reserve(ctx, bytes, w.bytes, stream, what, [&] {
        if (w.base != nullptr) ctx->retired_windows.push_back(w);
        w = {};
        // NCCL asks for windows aligned to its granularity; whole MiB are.
        const size_t rounded = (bytes + (1u << 20) - 1) & ~size_t((1u << 20) - 1);
        ncclResult_t r = ncclMemAlloc(&w.base, rounded);
        if (r != ncclSuccess) {
            w.base = nullptr;
            return fail(GEMMKIT_ALLOC_FAILED, std::string("no memory for ") + what + " (ncclMemAlloc of " +
                                                  std::to_string(rounded) + " bytes: " + nccl_text(ctx->comm_ce, r) +
                                                  ")");
        }
        r = ncclCommWindowRegister(ctx->comm_ce, w.base, rounded, &w.handle, NCCL_WIN_COLL_SYMMETRIC);
        if (r != ncclSuccess) {
            ncclMemFree(w.base);
            w = {};
            return fail(GEMMKIT_CUDA_ERROR, std::string("registering ") + what +
                                                " as a symmetric window: " + nccl_text(ctx->comm_ce, r));
        }
        w.bytes = rounded;
        return GEMMKIT_SUCCESS;
    });
    *out = w.base;
    return s;
#else
    (void)bytes, (void)stream, (void)out;
    return fail(GEMMKIT_NOT_SUPPORTED, std::string(what) + ": this NCCL has no collectives on copy engines");
#endif
}

void done_with_workspace(gemmkit_dist_context* ctx, cudaStream_t stream) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture == cudaStreamCaptureStatusNone) {
        cudaEventRecord(ctx->work_done, stream);
        ctx->work_stream = stream;
    }
    cudaGetLastError();
}

}  // namespace gemmkit::dist

using gemmkit::dist::fail;

extern "C" const char* gemmkit_dist_last_error(void) { return gemmkit::dist::t_last_error.c_str(); }
extern "C" const char* gemmkit_dist_last_plan(void) { return gemmkit::dist::t_last_plan.c_str(); }

namespace {

// Releases everything ctx holds; the thread's last error stays as it is.
void destroy(gemmkit_dist ctx) {
    if (ctx == nullptr) return;
    if (ctx->comm_stream != nullptr) cudaStreamSynchronize(ctx->comm_stream);
    if (ctx->exchange_stream != nullptr) cudaStreamSynchronize(ctx->exchange_stream);
#if GEMMKIT_NCCL_COPY_ENGINES
    // Windows go before their communicator (every rank deregisters, as every rank destroys).
    if (ctx->window.base != nullptr) ctx->retired_windows.push_back(ctx->window);
    for (const gemmkit_dist_context::Window& w : ctx->retired_windows) {
        if (ctx->comm_ce != nullptr) ncclCommWindowDeregister(ctx->comm_ce, w.handle);
        ncclMemFree(w.base);
    }
#endif
    for (ncclComm_t c : {ctx->comm, ctx->comm_full, ctx->comm_check, ctx->comm_ce}) {
        if (c == nullptr) continue;
        ncclResult_t state = ncclCommFinalize(c);
        const auto deadline = gemmkit::dist::deadline_after_ms(ctx->options.timeout_ms);
        while (state == ncclInProgress && ncclCommGetAsyncError(c, &state) == ncclSuccess &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        if (state == ncclSuccess) ncclCommDestroy(c);
        else ncclCommAbort(c);
    }
    if (ctx->comm_stream != nullptr) cudaStreamDestroy(ctx->comm_stream);
    if (ctx->exchange_stream != nullptr) cudaStreamDestroy(ctx->exchange_stream);
    if (ctx->exchange != nullptr) cudaFree(ctx->exchange);
    if (ctx->work != nullptr) cudaFree(ctx->work);
    for (void* old : ctx->retired) cudaFree(old);
    if (ctx->exchanged != nullptr) cudaFreeHost(ctx->exchanged);
    if (ctx->work_done != nullptr) cudaEventDestroy(ctx->work_done);
    delete ctx;
}

}  // namespace


extern "C" gemmkit_status gemmkit_dist_create(ncclComm_t comm, const gemmkit_dist_options* options,
                                              gemmkit_dist* out) {
    if (out == nullptr) return fail(GEMMKIT_INVALID_VALUE, "out is NULL");
    *out = nullptr;
    if (comm == nullptr) return fail(GEMMKIT_INVALID_VALUE, "comm is NULL");
    gemmkit_dist_options opt{};
    if (options != nullptr) opt = *options;
    if (opt.schedule < GEMMKIT_DIST_AUTO || opt.schedule > GEMMKIT_DIST_OVERLAP)
        return fail(GEMMKIT_INVALID_VALUE, "options->schedule = " + std::to_string(opt.schedule) + " is not a schedule");
    if (opt.pieces < 0 || opt.pieces > 64)
        return fail(GEMMKIT_INVALID_VALUE, "options->pieces = " + std::to_string(opt.pieces) + " is not in 0..64");
    if (opt.comm_sms < 0 || opt.comm_sms > 64)
        return fail(GEMMKIT_INVALID_VALUE, "options->comm_sms = " + std::to_string(opt.comm_sms) + " is not in 0..64");
    if (!(opt.link_gbps >= 0))
        return fail(GEMMKIT_INVALID_VALUE, "options->link_gbps is negative or NaN");
    if (opt.timeout_ms < 0)
        return fail(GEMMKIT_INVALID_VALUE, "options->timeout_ms = " + std::to_string(opt.timeout_ms) + " is negative");
    if (opt.timeout_ms == 0) opt.timeout_ms = 60000;

    int size = 0, rank = 0, device = -1, current = -1;
    ncclResult_t r = ncclCommCount(comm, &size);
    if (r == ncclSuccess) r = ncclCommUserRank(comm, &rank);
    if (r == ncclSuccess) r = ncclCommCuDevice(comm, &device);
    if (r != ncclSuccess)
        return fail(GEMMKIT_INVALID_VALUE, std::string("comm is not a usable NCCL communicator: ") + ncclGetErrorString(r));
    if (cudaGetDevice(&current) != cudaSuccess || current != device) {
        cudaGetLastError();
        return fail(GEMMKIT_INVALID_VALUE, "comm was made for device " + std::to_string(device) +
                                               ", but the current device is " + std::to_string(current));
    }
    auto* ctx = new gemmkit_dist_context;
    ctx->rank = rank, ctx->size = size, ctx->device = device, ctx->options = opt;
    cudaDeviceGetAttribute(&ctx->facts.sm_count, cudaDevAttrMultiProcessorCount, device);
    if (opt.link_gbps > 0) ctx->facts.link_gbps = ctx->facts.ce_gbps = opt.link_gbps;
    gemmkit::dist::DistRequest request;
    request.comm_sms = opt.comm_sms;
    const int comm_sms = gemmkit::dist::comm_sms_for(request);

    // Three communicators split from the caller's (context.hpp says what each is for).
    ncclConfig_t capped = NCCL_CONFIG_INITIALIZER;
    capped.maxCTAs = comm_sms;
    capped.minCTAs = comm_sms < 4 ? comm_sms : 4;
    capped.commName = "gemmkit_dist overlap";
    ncclConfig_t full = NCCL_CONFIG_INITIALIZER;
    full.commName = "gemmkit_dist sequential";
    ncclConfig_t check = NCCL_CONFIG_INITIALIZER;
    check.blocking = 0;
    check.commName = "gemmkit_dist check";
    const auto deadline = gemmkit::dist::deadline_after_ms(opt.timeout_ms);
    gemmkit_status st = GEMMKIT_SUCCESS;
    for (auto [mine, config] : {std::pair{&ctx->comm_check, &check}, std::pair{&ctx->comm, &capped},
                                std::pair{&ctx->comm_full, &full}}) {
        r = ncclCommSplit(comm, 0, rank, mine, config);
        if (r != ncclSuccess && r != ncclInProgress)
            st = fail(GEMMKIT_CUDA_ERROR, std::string("ncclCommSplit: ") + ncclGetErrorString(r));
        else
            st = gemmkit::dist::settle(ctx, *mine, r, "ncclCommSplit", deadline);
        if (st != GEMMKIT_SUCCESS) break;
    }
    // The copy engines' communicator, where this NCCL has them (built and loaded: 2.28+) and
    // GEMMKIT_DIST_COPY_ENGINES is not 0 (which leaves the capped kernels, for comparison). A
    // split is collective, so every rank's wish is exchanged with the options first, and the
    // communicator is made only where every rank can.
    const char* env = std::getenv("GEMMKIT_DIST_COPY_ENGINES");
    const bool engines_off = env != nullptr && std::strcmp(env, "0") == 0;
    bool copy_engines = false;
#if GEMMKIT_NCCL_COPY_ENGINES
    int version = 0;
    copy_engines = !engines_off && ncclGetVersion(&version) == ncclSuccess && version >= NCCL_VERSION(2, 28, 0);
#endif
    int lowest = 0, highest = 0;
    cudaError_t err = cudaDeviceGetStreamPriorityRange(&lowest, &highest);
    // NCCL's kernels get the higher priority: launched beside a GEMM, their CTAs take the SMs
    // the GEMM leaves free as soon as they can.
    if (st == GEMMKIT_SUCCESS && err == cudaSuccess)
        err = cudaStreamCreateWithPriority(&ctx->comm_stream, cudaStreamNonBlocking, highest);
    if (st == GEMMKIT_SUCCESS && err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&ctx->exchange_stream, cudaStreamNonBlocking);
    if (st == GEMMKIT_SUCCESS && err == cudaSuccess)
        err = cudaMalloc(&ctx->exchange, sizeof(int64_t) * 8 * static_cast<size_t>(size));
    if (st == GEMMKIT_SUCCESS && err == cudaSuccess)
        err = cudaMallocHost(&ctx->exchanged, sizeof(int64_t) * 8 * static_cast<size_t>(size));
    if (st == GEMMKIT_SUCCESS && err == cudaSuccess)
        err = cudaEventCreateWithFlags(&ctx->work_done, cudaEventDisableTiming);
    if (st == GEMMKIT_SUCCESS && err != cudaSuccess) {
        cudaGetLastError();
        st = fail(GEMMKIT_CUDA_ERROR, std::string("creating the context's stream and buffer: ") +
                                          cudaGetErrorString(err));
    }
    // Every rank must plan alike, or one would wait on a transfer another never starts: the
    // options must agree, and the plan counts the smallest GPU's SMs.
    if (st == GEMMKIT_SUCCESS) {
        int64_t link_bits = 0;
        std::memcpy(&link_bits, &opt.link_gbps, sizeof link_bits);
        const std::array<int64_t, 8> mine = {opt.schedule, opt.pieces, opt.comm_sms, link_bits,
                                             ctx->facts.sm_count, copy_engines ? 1 : 0, engines_off ? 1 : 0, 0};
        const char* const names[] = {"options->schedule", "options->pieces", "options->comm_sms", "options->link_gbps"};
        std::vector<int64_t> all;
        st = gemmkit::dist::exchange(ctx, mine, "exchanging the options", &all);
        for (int q = 0; q < size && st == GEMMKIT_SUCCESS; ++q) {
            for (int j = 0; j < 4 && st == GEMMKIT_SUCCESS; ++j)
                if (all[8 * q + j] != mine[j])
                    st = fail(GEMMKIT_INVALID_VALUE, std::string(names[j]) + " differs between ranks (rank " +
                                                         std::to_string(q) + "'s is not this one's)");
            ctx->facts.sm_count = std::min<int>(ctx->facts.sm_count, static_cast<int>(all[8 * q + 4]));
            copy_engines = copy_engines && all[8 * q + 5] == 1;  // only if every rank can
            if (st == GEMMKIT_SUCCESS && all[8 * q + 6] != mine[6])
                st = fail(GEMMKIT_INVALID_VALUE, "GEMMKIT_DIST_COPY_ENGINES differs between ranks (rank " +
                                                     std::to_string(q) + "'s is not this one's)");
        }
    }
#if GEMMKIT_NCCL_COPY_ENGINES
    if (st == GEMMKIT_SUCCESS && copy_engines) {
        ncclConfig_t zero = NCCL_CONFIG_INITIALIZER;
        zero.CTAPolicy = NCCL_CTA_POLICY_ZERO;
        zero.commName = "gemmkit_dist copy engines";
        r = ncclCommSplit(comm, 0, rank, &ctx->comm_ce, &zero);
        if (r != ncclSuccess && r != ncclInProgress)
            st = fail(GEMMKIT_CUDA_ERROR, std::string("ncclCommSplit: ") + ncclGetErrorString(r));
        else
            st = gemmkit::dist::settle(ctx, ctx->comm_ce, r, "ncclCommSplit", deadline);
        // Where one rank's split failed, it returns that error, and the others' wait here ends
        // at the timeout: no rank plans on copy engines another does not have.
        std::vector<int64_t> all;
        if (st == GEMMKIT_SUCCESS)
            st = gemmkit::dist::exchange(ctx, {1, 0, 0, 0, 0, 0, 0, 0}, "agreeing on the copy engines", &all);
    }
#endif
    ctx->facts.copy_engines = copy_engines;
    if (st != GEMMKIT_SUCCESS) {
        destroy(ctx);  // keeps the message
        return st;
    }
    *out = ctx;
    gemmkit::dist::clear_error();
    return GEMMKIT_SUCCESS;
}

extern "C" gemmkit_status gemmkit_dist_destroy(gemmkit_dist ctx) {
    destroy(ctx);
    gemmkit::dist::clear_error();
    return GEMMKIT_SUCCESS;
}

extern "C" int gemmkit_dist_rank(gemmkit_dist ctx) { return ctx == nullptr ? -1 : ctx->rank; }
extern "C" int gemmkit_dist_size(gemmkit_dist ctx) { return ctx == nullptr ? 0 : ctx->size; }
extern "C" int64_t gemmkit_dist_row_begin(int64_t m, int ranks, int rank) {
    if (m < 0 || ranks < 1 || rank < 0 || rank > ranks) return -1;  // no such rank
    return gemmkit::dist::row_begin(m, ranks, rank);
}
