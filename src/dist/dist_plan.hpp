// The plan of a tensor-parallel GEMM: which schedule runs, in how many pieces, and how many SMs
// the GEMMs leave to NCCL while both run. Like plan_gemm (src/plan/plan.hpp) it is a pure host
// function of the shape and a few facts, printable and tested without a GPU. docs/dist.md
// explains the schedules and where each constant comes from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmkit::dist {

enum class DistOp { kAllGatherGemm, kGemmReduceScatter };
enum class Schedule { kSequential, kOverlap };
// What moves the overlap's data: NCCL's kernels on a communicator held to a few CTAs, which
// take SMs from the GEMMs, or the GPU's copy engines (NCCL 2.28+'s collectives on symmetric
// memory windows), which take none. docs/dist.md#transports.
enum class Transport { kCappedKernels, kCopyEngines };

// One call's sizes as every rank sees them. AllGather-GEMM: n is this rank's columns (n_local),
// k the full depth. GEMM-ReduceScatter: n the full width, k this rank's slice (k_local).
struct DistShape {
    DistOp op = DistOp::kAllGatherGemm;
    int64_t m = 0, n = 0, k = 0;
    int ranks = 1;
    int elem_bytes = 2;  // BF16 / FP16
};

// What the plan knows of the machine.
struct DistFacts {
    int sm_count = 132;
    double gemm_tflops = 700;  // a large BF16 GEMM's rate on one GPU
    // What one rank receives per second: through the overlap's communicator, its kernels held to
    // the default comm_sms CTAs (scaled down for fewer; more were not faster); and through NCCL's
    // collectives with their own defaults, as the sequential schedule runs them.
    // docs/dist.md#the-plan.
    double link_gbps = 48;
    double seq_gbps = 200;
    // Whether every rank's context could make a communicator whose AllGather and AlltoAll run
    // on the copy engines (and GEMMKIT_DIST_COPY_ENGINES is not 0), and what one rank receives
    // through it per second. Where it could, every overlap runs there. docs/dist.md#the-plan.
    bool copy_engines = false;
    double ce_gbps = 300;
};

// Requests that override the plan (gemmkit_dist_options); 0 / kAuto: the plan's.
struct DistRequest {
    enum class Force { kAuto, kSequential, kOverlap } force = Force::kAuto;
    int pieces = 0;
    int comm_sms = 0;
};

struct DistPlan {
    Schedule schedule = Schedule::kSequential;
    Transport transport = Transport::kCappedKernels;
    // GEMM-ReduceScatter: on capped kernels, the row pieces a rank's block is cut into; on the
    // copy engines, the column parts whose partial sums move one after the other.
    int pieces = 1;
    int comm_sms = 0;  // SMs the GEMMs leave to NCCL while a transfer runs beside them
    // AllGather-GEMM: the rows, in the order their GEMMs run (own block, then each peer's), that
    // may run while transfers do, on sm_count - comm_sms SMs; the rest run after the last
    // transfer, on all of them. On the copy engines: the own rows whose GEMM runs beside the
    // all-gather.
    int64_t beside_rows = 0;
    double gemm_us = 0, comm_us = 0;  // the model: the GEMM on all SMs, the overlap's transfers
    double sequential_us = 0, overlap_us = 0;  // the model's times of the two schedules
    std::vector<std::string> reasons;
};

// Rows of m held by rank `rank` of `ranks` start here: the first m % ranks ranks hold one more.
int64_t row_begin(int64_t m, int ranks, int rank);
inline int64_t rows_of(int64_t m, int ranks, int rank) {
    return row_begin(m, ranks, rank + 1) - row_begin(m, ranks, rank);
}

// Piece `i` of `count` of a block of `rows` rows, as [begin, end) within the block: sizes differ
// by at most one row, the larger first (so every rank cuts a block the same way).
struct RowRange {
    int64_t begin = 0, end = 0;
};
RowRange piece_of(int64_t rows, int count, int i);

DistPlan plan_dist(const DistShape& s, const DistFacts& f, const DistRequest& r);

// SMs left to NCCL while it runs beside a GEMM, unless a request names another number; the
// context caps NCCL's CTAs at this when it makes its communicator.
int comm_sms_for(const DistRequest& r);

// "overlap, 2 pieces, 8 SMs to NCCL" (or "on the copy engines") and the reasons, one a line.
std::string describe(const DistPlan& p);

}  // namespace gemmkit::dist
