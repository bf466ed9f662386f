// gemmkit_dist's context: gemmkit's own communicator (a split of the caller's, with NCCL's CTAs
// capped), the stream its transfers run on, and the shapes every rank has agreed on.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "dist/dist_plan.hpp"
#include "gemmkit/gemmkit_dist.h"

// NCCL 2.28 added the collectives on copy engines (CTA policy zero, symmetric windows); built
// against an older NCCL, the overlap runs on capped kernels only.
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#define GEMMKIT_NCCL_COPY_ENGINES 1
#else
#define GEMMKIT_NCCL_COPY_ENGINES 0
#endif

struct gemmkit_dist_context {
    // Ours, split from the caller's. The two that move data are blocking, so an operation is
    // enqueued the moment it is called; the one that checks the ranks' calls is not, so that a
    // rank that never calls is a timeout, not a hang.
    ncclComm_t comm = nullptr;        // overlap: NCCL's CTAs capped (the plan's comm_sms)
    ncclComm_t comm_full = nullptr;   // the sequential schedule: NCCL's defaults
    ncclComm_t comm_check = nullptr;  // agree_on's exchange: non-blocking
    // The overlap on the copy engines (NCCL 2.28+, CTA policy zero): its AllGather and AlltoAll
    // run on copy engines where both buffers lie in a symmetric window of it. nullptr where
    // NCCL cannot (then facts.copy_engines is false on every rank).
    ncclComm_t comm_ce = nullptr;
    void* work = nullptr;             // the workspace, grown (outside graph capture) as calls need
    size_t work_bytes = 0;
    std::vector<void*> retired;       // outgrown workspaces: graphs captured earlier still use them
    // The copy engines' buffer: ncclMemAlloc'd and registered as a symmetric window of comm_ce.
    // Its size is a function of what every rank agreed on, so all grow it (collectively) in the
    // same call. Outgrown ones stay registered and allocated, like `retired`.
    struct Window {
        void* base = nullptr;
        size_t bytes = 0;
#if GEMMKIT_NCCL_COPY_ENGINES
        ncclWindow_t handle{};
#endif
    };
    Window window;
    std::vector<Window> retired_windows;
    cudaEvent_t work_done = nullptr;  // the last call's work on it has finished, on its stream
    cudaStream_t comm_stream = nullptr;  // NCCL's transfers; the GEMMs run on the caller's stream
    cudaStream_t exchange_stream = nullptr;  // agree_on's exchange, never part of a graph capture
    int rank = 0, size = 1, device = -1;
    gemmkit_dist_options options{};
    gemmkit::dist::DistFacts facts;
    std::mutex mutex;                             // one call at a time enqueues
    // Call signatures all ranks have exchanged, and for each the smallest of the sizes that may
    // differ between ranks (n_local, k_local), which is what the plan is made from: every
    // rank then plans the same schedule.
    std::map<std::array<int64_t, 8>, int64_t> agreed;
    struct KnownPlan {
        gemmkit::dist::DistPlan plan;
        std::string text;  // describe(plan)
    };
    std::map<std::array<int64_t, 5>, KnownPlan> plans;  // by (op, m, n, k, type): made once
    cudaStream_t work_stream = nullptr;                 // the stream of the workspace's last use
    int64_t* exchange = nullptr;                  // device: [size][8] signatures
    int64_t* exchanged = nullptr;                 // pinned host: their copy
    bool broken = false;                          // a timeout aborted the communicator
};

namespace gemmkit::dist {

// Records this thread's last error and returns status (gemmkit_dist_last_error reads it).
gemmkit_status fail(gemmkit_status status, std::string message);
void clear_error();
void set_last_plan(std::string plan);

using Deadline = std::chrono::steady_clock::time_point;
Deadline deadline_after_ms(int ms);

// Waits out an NCCL call on `comm`, one of ctx's communicators: ncclInProgress (from the
// non-blocking one) is polled until it settles or `deadline` passes (then all are aborted and
// the context broken); other results become a status and message.
gemmkit_status settle(gemmkit_dist_context* ctx, ncclComm_t comm, ncclResult_t result, const char* what,
                      Deadline deadline);

// Every rank's 8 values, exchanged on the checking communicator within the context's timeout
// (after which the context is aborted): all[8 q + j] is rank q's value j.
gemmkit_status exchange(gemmkit_dist_context* ctx, const std::array<int64_t, 8>& mine, const char* what,
                        std::vector<int64_t>* all);

// Every rank calls with the same signature in slots 0-5 and 7, or every rank gets INVALID_VALUE
// naming the field that differs; slot 6 holds a size that may differ, and *smallest gets its
// smallest value over the ranks. A signature seen before is not exchanged again (no device
// work, no synchronization).
gemmkit_status agree_on(gemmkit_dist_context* ctx, const std::array<int64_t, 8>& signature,
                        const char* const field_names[8], int64_t* smallest);

// The context's workspace, at least `bytes`, for a call on `stream`, which first waits for the
// previous call's use of it (on whatever stream that ran). It is kept between calls, so that
// a captured graph's pointers stay valid; it can only grow outside capture. done_with_workspace
// marks the end of this call's use.
gemmkit_status workspace(gemmkit_dist_context* ctx, size_t bytes, cudaStream_t stream, void** out, const char* what);
void done_with_workspace(gemmkit_dist_context* ctx, cudaStream_t stream);

// As workspace, for the copy engines' buffer (ctx->window): collective, since every rank
// registers the window together, so `bytes` must be the same on every rank. The same
// done_with_workspace ends its use.
gemmkit_status symmetric_window(gemmkit_dist_context* ctx, size_t bytes, cudaStream_t stream, void** out,
                                const char* what);

}  // namespace gemmkit::dist
