// The tensor-parallel plan's rules. Each constant's evidence: docs/dist.md#the-plan.
#include "dist/dist_plan.hpp"

#include <algorithm>
#include <cstdio>

namespace gemmkit::dist {
namespace {

// SMs the GEMMs leave to NCCL while a transfer runs beside them, and the most CTAs NCCL's
// kernels may take (the context's communicator is made with maxCTAs = this). A persistent
// GEMM whose blocks do not all fit waits for NCCL's to finish, which serializes the two.
constexpr int kCommSms = 8;
// Pieces a rank's block is cut into for GEMM-ReduceScatter: a piece's partial sums move while
// the next piece's GEMM runs, so two already hide all but the first piece's GEMM.
constexpr int kReduceScatterPieces = 2;
// A GEMM of fewer tiles than SMs leaves SMs idle: cutting the work finer than that costs more
// than the transfer it hides. Tiles counted as the large problems' 128 x 256.
constexpr int64_t kTileRows = 128, kTileCols = 256;
// Overlap must win at least this share of the sequential time, by the model, to be worth it.
constexpr double kMinGain = 0.02;
// The ring's transfers (a piece of partial sums at a time, each waiting for its GEMM) moved at
// about 3/4 of the AllGather steps' rate through the same CTAs.
constexpr double kRingRate = 0.75;
// What each extra GEMM and transfer step of the overlap costs on its own (launches, the
// streams' events, a GEMM's ramp and tail), in microseconds: what made overlap lose at m = 1024.
constexpr double kStepUs = 20;
// AllGather-GEMM: the GEMMs beside the transfers cover their modelled time with this margin,
// in whole tile rows: a GEMM on all SMs that started while NCCL still held some would wait
// for them (and its pieces that did not fit would run after the rest).
constexpr double kTransferMargin = 1.25;
// What adding the peers' partial sums into a rank's rows costs (GEMM-ReduceScatter on the
// copy engines): reading them and the rows, writing the rows, at this rate (GB/s).
constexpr double kAddGbps = 2500;
// ncclAlltoAll on the copy engines (GEMM-ReduceScatter beyond two ranks) also copies a rank's
// own slot to itself, and beside a GEMM it moved its bytes, that self copy included, at about
// this share of ce_gbps: at P = 4, 96 + 32 MiB took ~1000 us in two parts, where an all-gather
// of 96 MiB took ~350.
constexpr double kAlltoAllShare = 0.45;
// GEMM-ReduceScatter on the copy engines cuts the columns into at most this many parts (1-4
// measured at P = 4: 0.98x, 1.05x, -, 1.12x), each a multiple of this many columns: 3 parts of
// 8192 (2731 columns, no 16-byte vectors) ran at 0.94x.
constexpr int kMostParts = 4;
constexpr int64_t kPartColumns = 8;

int64_t tiles_of(int64_t rows, int64_t cols) {
    return ((rows + kTileRows - 1) / kTileRows) * ((cols + kTileCols - 1) / kTileCols);
}

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, format, a, b, c, d);
    return buf;
}

// The rows whose GEMM, at rows_per_us, covers transfers of transfer_us with kTransferMargin to
// spare: in whole tile rows, at least one, at most `most`.
int64_t rows_covering(double transfer_us, double rows_per_us, int64_t most) {
    const int64_t wanted = static_cast<int64_t>(transfer_us * kTransferMargin * rows_per_us);
    const int64_t rounded = (wanted + kTileRows - 1) / kTileRows * kTileRows;
    return std::min(most, std::max(rounded, kTileRows));
}

// The reason a modelled overlap is not worth running, and the model's line where it is.
std::string too_little_gain(const DistPlan& p, double gain) {
    return fmt("overlap %.0f us against sequential %.0f us (%.1f%% < 2%% faster)", p.overlap_us, p.sequential_us,
               100 * gain);
}
std::string model_gain(const DistPlan& p, double gain, bool forced) {
    return fmt("model: overlap %.0f us against sequential %.0f us (%.1f%% faster)", p.overlap_us, p.sequential_us,
               100 * gain) +
           (forced ? ", requested" : "");
}

}  // namespace

int64_t row_begin(int64_t m, int ranks, int rank) {
    const int64_t base = m / ranks, extra = m % ranks;
    return rank * base + std::min<int64_t>(rank, extra);
}

RowRange piece_of(int64_t rows, int count, int i) {
    const int64_t base = rows / count, extra = rows % count;
    const int64_t begin = i * base + std::min<int64_t>(i, extra);
    return {begin, begin + base + (i < extra ? 1 : 0)};
}

int comm_sms_for(const DistRequest& r) { return r.comm_sms > 0 ? r.comm_sms : kCommSms; }

namespace {

DistPlan go_sequential(DistPlan p, const std::string& why) {
    p.schedule = Schedule::kSequential;
    p.transport = Transport::kCappedKernels;
    p.pieces = 1;
    p.comm_sms = 0;
    p.reasons.push_back("sequential: " + why);
    return p;
}

// The overlap on the copy engines: no SMs to NCCL, so every GEMM runs on all of them, and the
// GEMMs are cut as little as possible (each cut costs a GEMM's ramp and tail).
//  AllGather: the own rows that cover the transfer run first (beside_rows, at most the own
//  block); then the rest of the gathered X in one GEMM (two where the own block is in the
//  middle).
//  ReduceScatter: the peers' rows' partial sums first, in one GEMM (two where the own block is
//  in the middle); their exchange runs beside the own rows' GEMM; then one pass adds what
//  arrived into the own rows. Where the exchange outlasts the own rows' GEMM, the columns are
//  cut into parts: a part's partial sums move while the next part's GEMMs run, and the last
//  part's beside the own rows' GEMM. The number of parts is the model's fastest.
DistPlan plan_on_copy_engines(const DistShape& s, const DistFacts& f, const DistRequest& r, DistPlan p) {
    const int P = s.ranks;
    const bool gather = s.op == DistOp::kAllGatherGemm;
    const bool forced = r.force == DistRequest::Force::kOverlap;
    const int64_t block_rows = rows_of(s.m, P, P - 1);
    const int64_t tiles = tiles_of(block_rows, s.n);
    if (!forced && tiles < f.sm_count)
        return go_sequential(p, fmt("a rank's block's GEMM (%.0f rows) has %.0f tiles of 128x256 for %.0f SMs",
                                    double(block_rows), double(tiles), f.sm_count));
    const double rows_per_us = s.m / p.gemm_us;
    // GEMMs of the peers' rows: one, or two where the own block is in the middle.
    const int peer_gemms = P == 2 ? 1 : 2;
    if (gather) {
        p.beside_rows = rows_covering(p.comm_us, rows_per_us, block_rows);
        p.overlap_us = std::max(p.beside_rows / rows_per_us, p.comm_us) + (s.m - p.beside_rows) / rows_per_us +
                       (peer_gemms + 1) * kStepUs;
    } else {
        // Beyond two ranks the exchange is an ncclAlltoAll, with its self copy.
        const double self_us = double(block_rows) * s.n * s.elem_bytes / (f.ce_gbps * 1e3);
        const double exchange_us = P == 2 ? p.comm_us : (p.comm_us + self_us) / kAlltoAllShare;
        const double add_us = double(P + 1) * block_rows * s.n * s.elem_bytes / (kAddGbps * 1e3);
        // Part j's exchange starts once its GEMMs and the exchange before it are done; the
        // addition, once the own rows' GEMM and the last exchange are.
        auto time_in = [&](int parts) {
            const double peers_us = p.gemm_us * (P - 1) / P;
            double exchanged = 0;
            for (int j = 1; j <= parts; ++j) exchanged = std::max(peers_us * j / parts, exchanged) + exchange_us / parts;
            return std::max(peers_us + p.gemm_us / P, exchanged) + add_us + (parts * peer_gemms + 1) * kStepUs;
        };
        p.pieces = r.pieces > 0 ? static_cast<int>(std::clamp<int64_t>(s.n, 1, r.pieces)) : 1;  // a part a column at most
        for (int parts = 2; r.pieces == 0 && parts <= kMostParts; ++parts)
            if (s.n % (kPartColumns * parts) == 0 && time_in(parts) < time_in(p.pieces)) p.pieces = parts;
        p.overlap_us = time_in(p.pieces);
    }
    const double gain = (p.sequential_us - p.overlap_us) / p.sequential_us;
    if (!forced && gain < kMinGain)
        return go_sequential(p, too_little_gain(p, gain));
    p.schedule = Schedule::kOverlap;
    p.transport = Transport::kCopyEngines;
    if (gather) p.pieces = 1;
    p.comm_sms = 0;
    if (gather)
        p.reasons.push_back("overlap on the copy engines: " + std::to_string(p.beside_rows) +
                            " own rows first, beside the all-gather; then the other " +
                            std::to_string(s.m - p.beside_rows) + " rows; every GEMM on all SMs");
    else if (p.pieces == 1)
        p.reasons.push_back("overlap on the copy engines: the peers' rows first; their partial sums move beside the "
                            "own rows' GEMM, then are added in; every GEMM on all SMs");
    else
        p.reasons.push_back("overlap on the copy engines: the peers' rows first, in " + std::to_string(p.pieces) +
                            " column parts, each part's partial sums moving beside the next part's GEMM (the last "
                            "beside the own rows'), then added in; every GEMM on all SMs");
    p.reasons.push_back(model_gain(p, gain, forced));
    return p;
}

}  // namespace

DistPlan plan_dist(const DistShape& s, const DistFacts& f, const DistRequest& r) {
    DistPlan p;
    const int P = s.ranks;
    const bool gather = s.op == DistOp::kAllGatherGemm;
    // Where every rank has the copy engines, every overlap runs there: they measured as fast as
    // the capped kernels or faster everywhere (docs/dist.md#measurements).
    const bool engines = f.copy_engines;
    p.comm_sms = engines ? 0 : comm_sms_for(r);
    p.pieces = gather ? P : (r.pieces > 0 ? r.pieces : kReduceScatterPieces);
    p.gemm_us = 2.0 * s.m * s.n * s.k / (f.gemm_tflops * 1e6);
    // Bytes each rank receives: the other ranks' rows of X, or the other ranks' partial sums
    // of its own rows (as many as it sends of theirs).
    const double moved = double(s.m - rows_of(s.m, P, 0)) * (gather ? s.k : s.n) * s.elem_bytes;
    // Capped kernels: fewer CTAs move less; more did not move more (16 at P = 4: ~64 GB/s over
    // three peers).
    const double overlap_gbps =
        engines ? f.ce_gbps : f.link_gbps * std::min(p.comm_sms, kCommSms) / kCommSms * (gather ? 1.0 : kRingRate);
    p.comm_us = moved / (overlap_gbps * 1e3);
    p.sequential_us = p.gemm_us + moved / (f.seq_gbps * 1e3);
    p.reasons.push_back(fmt("model: GEMM %.0f us at %.0f TFLOP/s; transfers %.0f us at %.0f GB/s", p.gemm_us,
                            f.gemm_tflops, p.comm_us, overlap_gbps) +
                        (engines ? " on the copy engines" : "") +
                        fmt(" (sequential: %.0f us at %.0f GB/s)", moved / (f.seq_gbps * 1e3), f.seq_gbps));

    auto sequential = [&](const std::string& why) { return go_sequential(p, why); };
    if (P == 1) return sequential("one rank, nothing to move");
    if (r.force == DistRequest::Force::kSequential) return sequential("requested");
    if (engines) return plan_on_copy_engines(s, f, r, p);
    if (!gather && p.pieces < 2) return sequential("one piece a block leaves nothing to overlap");

    // The smallest GEMM the overlap runs: the last rank's block (AllGather), or the last piece
    // of it (ReduceScatter).
    const int64_t block_rows = rows_of(s.m, P, P - 1);
    const RowRange last = piece_of(block_rows, p.pieces, p.pieces - 1);
    const int64_t piece_rows = gather ? block_rows : last.end - last.begin;
    const int64_t tiles = tiles_of(piece_rows, s.n);
    const bool forced = r.force == DistRequest::Force::kOverlap;
    if (!forced && tiles < f.sm_count)
        return sequential(fmt("a piece's GEMM (%.0f rows) has %.0f tiles of 128x256 for %.0f SMs", double(piece_rows),
                              double(tiles), f.sm_count));
    // The overlap's time: the GEMMs beside the transfers run on sm_count - comm_sms SMs, and
    // whichever of them and the transfers is longer sets the pace.
    //  AllGather: every block but the last beside the transfers, then the last block.
    //  ReduceScatter (ring): the first block's GEMM, then P - 1 steps of a GEMM beside the
    //  transfer of the step before.
    const double slowed = double(f.sm_count) / (f.sm_count - p.comm_sms);
    const double block_us = p.gemm_us / P;
    if (gather) {
        p.overlap_us = std::max(p.gemm_us - block_us, 0.0) * slowed;
        p.overlap_us = std::max(p.overlap_us, p.comm_us) + block_us + P * kStepUs;
        // The rows beside the transfers: enough to cover them (with a margin), in whole tile
        // rows, at most all but the last block (which waits for the last transfer anyway).
        p.beside_rows = rows_covering(p.comm_us, s.m / (p.gemm_us * slowed), s.m - block_rows);
    } else {
        p.overlap_us = block_us + (P - 1) * std::max(block_us * slowed, p.comm_us / (P - 1)) + P * p.pieces * kStepUs;
    }
    const double gain = (p.sequential_us - p.overlap_us) / p.sequential_us;
    if (!forced && gain < kMinGain)
        return sequential(too_little_gain(p, gain));
    p.schedule = Schedule::kOverlap;
    const std::string on = " on " + std::to_string(f.sm_count - p.comm_sms) + " SMs";
    if (gather)
        p.reasons.push_back("overlap: own rows first, then each peer's ~" + std::to_string(block_rows) +
                            " rows as they arrive; the first " + std::to_string(p.beside_rows) + " of " +
                            std::to_string(s.m) + " rows" + on + ", the rest after the last transfer");
    else
        p.reasons.push_back("overlap: a ring of partial sums, each block in " + std::to_string(p.pieces) +
                            " pieces of ~" + std::to_string(piece_rows) + " rows; " +
                            std::to_string(std::max(0, P * p.pieces - 2)) + " of " + std::to_string(P * p.pieces) +
                            " GEMMs" + on);
    p.reasons.push_back(model_gain(p, gain, forced));
    return p;
}

std::string describe(const DistPlan& p) {
    std::string out = p.schedule == Schedule::kOverlap ? "overlap" : "sequential";
    if (p.schedule == Schedule::kOverlap && p.transport == Transport::kCopyEngines)
        out += ", on the copy engines";
    else if (p.schedule == Schedule::kOverlap)
        out += ", " + std::to_string(p.pieces) + " pieces, " + std::to_string(p.comm_sms) + " SMs to NCCL";
    for (const std::string& line : p.reasons) out += "\n  " + line;
    return out;
}

}  // namespace gemmkit::dist
