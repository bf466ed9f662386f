// The tensor-parallel plan (src/dist/dist_plan.hpp): how rows are shared out over ranks and cut
// into pieces, and the rules that choose a schedule, each tested on both sides of its line with
// shapes built from the facts the plan is given, not from its constants.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dist/dist_plan.hpp"
#include "test_util.hpp"

namespace gemmkit::dist {
namespace {

using test::contains;

constexpr int kRankCounts[] = {1, 2, 3, 4, 8};
constexpr int64_t kRowCounts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 127, 1000, 1003, 1024, 4097, 8191, 8192};

// The Llama-70B-like layer of issue 45: hidden 8192, FFN 28672, 8192 tokens.
constexpr int64_t kTokens = 8192, kHidden = 8192, kFfn = 28672;

// The rule's unit: a piece's GEMM is counted in tiles of 128 rows x 256 columns.
constexpr int64_t kTileRows = 128, kTileCols = 256;
// Columns of a 16-byte vector of 16-bit values: a column part's width is a multiple of it.
constexpr int64_t kVectorColumns = 8;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

DistShape allgather(int64_t m, int64_t n_local, int64_t k, int ranks) {
    return {.op = DistOp::kAllGatherGemm, .m = m, .n = n_local, .k = k, .ranks = ranks, .elem_bytes = 2};
}
DistShape reducescatter(int64_t m, int64_t n, int64_t k_local, int ranks) {
    return {.op = DistOp::kGemmReduceScatter, .m = m, .n = n, .k = k_local, .ranks = ranks, .elem_bytes = 2};
}

// Column-parallel FFN up-projection and row-parallel down-projection of the layer, at P ranks.
DistShape llama_allgather(int ranks, int64_t m = kTokens) { return allgather(m, kFfn / ranks, kHidden, ranks); }
DistShape llama_reducescatter(int ranks, int64_t m = kTokens) {
    return reducescatter(m, kHidden, kFfn / ranks, ranks);
}

std::string text_of(const DistPlan& p) { return describe(p); }

// ---- rows over ranks ----

TEST(DistRows, EveryRankCountSharesEveryRowCountExactly) {
    for (int P : kRankCounts) {
        for (int64_t m : kRowCounts) {
            SCOPED_TRACE("m " + std::to_string(m) + ", P " + std::to_string(P));
            EXPECT_EQ(row_begin(m, P, 0), 0);
            EXPECT_EQ(row_begin(m, P, P), m);
            int64_t sum = 0, fewest = m, most = 0;
            for (int r = 0; r < P; ++r) {
                const int64_t rows = rows_of(m, P, r);
                EXPECT_GE(rows, 0);
                // Contiguous: a rank starts where the one before it ends.
                EXPECT_EQ(row_begin(m, P, r) + rows, row_begin(m, P, r + 1));
                sum += rows;
                fewest = std::min(fewest, rows);
                most = std::max(most, rows);
            }
            EXPECT_EQ(sum, m);
            EXPECT_LE(most - fewest, 1);
        }
    }
}

// The header's promise: the first m % P ranks hold one row more than the others.
TEST(DistRows, TheFirstRemainderRanksHoldTheExtraRow) {
    for (int P : kRankCounts) {
        for (int64_t m : kRowCounts) {
            SCOPED_TRACE("m " + std::to_string(m) + ", P " + std::to_string(P));
            for (int r = 0; r < P; ++r) EXPECT_EQ(rows_of(m, P, r), m / P + (r < m % P ? 1 : 0)) << "rank " << r;
        }
    }
}

TEST(DistRows, FewerRowsThanRanksGiveOneRowToTheFirstRanks) {
    for (int P : {2, 3, 4, 8}) {
        for (int64_t m = 0; m < P; ++m) {
            for (int r = 0; r < P; ++r) {
                EXPECT_EQ(rows_of(m, P, r), r < m ? 1 : 0) << "m " << m << ", P " << P << ", rank " << r;
                EXPECT_EQ(row_begin(m, P, r), std::min<int64_t>(r, m)) << "m " << m << ", P " << P << ", rank " << r;
            }
        }
    }
}

TEST(DistRows, OneRankHoldsEverything) {
    for (int64_t m : kRowCounts) {
        EXPECT_EQ(row_begin(m, 1, 0), 0);
        EXPECT_EQ(rows_of(m, 1, 0), m);
    }
}

// ---- pieces of a block ----

TEST(DistPieces, CoverABlockExactlyLargestFirst) {
    for (int64_t rows : kRowCounts) {
        for (int count : {1, 2, 3, 4, 5, 8, 64}) {
            SCOPED_TRACE("rows " + std::to_string(rows) + ", " + std::to_string(count) + " pieces");
            int64_t end = 0;
            for (int i = 0; i < count; ++i) {
                const RowRange piece = piece_of(rows, count, i);
                EXPECT_EQ(piece.begin, end) << "piece " << i << " does not start where the one before ended";
                EXPECT_GE(piece.end, piece.begin) << "piece " << i;
                const int64_t size = piece.end - piece.begin;
                EXPECT_EQ(size, rows / count + (i < rows % count ? 1 : 0)) << "piece " << i;
                end = piece.end;
            }
            EXPECT_EQ(end, rows);
        }
    }
}

// ---- the plan ----

// Facts under which overlap clearly pays wherever the other rules let it: the overlap's capped
// transfers cost nothing, and the sequential schedule's transfer takes as long as the whole
// GEMM (the bytes each rank receives, over the time of 2mnk flops at the GEMM rate).
DistFacts facts_where_overlap_pays(const DistShape& s, int sm_count = DistFacts{}.sm_count) {
    DistFacts f;
    f.sm_count = sm_count;
    f.link_gbps = 1e9;
    const double gemm_s = 2.0 * s.m * s.n * s.k / (f.gemm_tflops * 1e12);
    const double other_rows = double(s.m - rows_of(s.m, s.ranks, 0));
    const double bytes = other_rows * (s.op == DistOp::kAllGatherGemm ? s.k : s.n) * s.elem_bytes;
    f.seq_gbps = bytes / gemm_s / 1e9;
    return f;
}

// The default facts, but the overlap's capped transfers as fast as NCCL's own collectives.
DistFacts facts_with_a_fast_capped_link() {
    DistFacts f;
    f.link_gbps = f.seq_gbps;
    return f;
}

// "%.0f" of a modelled time, as the reasons print it.
std::string us(double t) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f us", t);
    return buf;
}

TEST(DistPlan, OneRankIsSequentialWhateverIsRequested) {
    const DistFacts facts;
    for (auto force : {DistRequest::Force::kAuto, DistRequest::Force::kSequential, DistRequest::Force::kOverlap}) {
        DistRequest req;
        req.force = force;
        req.comm_sms = 16;
        for (const DistShape& s : {llama_allgather(1), llama_reducescatter(1), allgather(7, 33, 5, 1)}) {
            const DistPlan p = plan_dist(s, facts, req);
            EXPECT_EQ(p.schedule, Schedule::kSequential) << text_of(p);
            EXPECT_EQ(p.pieces, 1) << text_of(p);
            EXPECT_EQ(p.comm_sms, 0) << "nothing runs beside the GEMM: " << text_of(p);
            EXPECT_TRUE(contains(text_of(p), "one rank"));
        }
    }
}

// Issue 45's layer with the default facts, as docs/dist.md#the-plan reads: the AllGather's
// transfer hides under the other blocks' GEMMs at P = 2; at P = 4, and for the ring, the capped
// transfers outlast the GEMMs they would hide under, and the model says so with both times.
TEST(DistPlan, LlamaShapesWithDefaultFactsOverlapOnlyTheAllGatherAtTwoRanks) {
    const DistFacts facts;
    const DistPlan ag2 = plan_dist(llama_allgather(2), facts, {});
    EXPECT_EQ(ag2.schedule, Schedule::kOverlap) << text_of(ag2);
    EXPECT_EQ(ag2.pieces, 2) << "one GEMM per rank's block: " << text_of(ag2);
    EXPECT_EQ(ag2.comm_sms, comm_sms_for({})) << text_of(ag2);
    EXPECT_LT(ag2.overlap_us, 0.98 * ag2.sequential_us) << text_of(ag2);
    for (const DistPlan& p : {plan_dist(llama_allgather(4), facts, {}), plan_dist(llama_reducescatter(2), facts, {}),
                              plan_dist(llama_reducescatter(4), facts, {})}) {
        EXPECT_EQ(p.schedule, Schedule::kSequential) << text_of(p);
        EXPECT_GT(p.overlap_us, 0.98 * p.sequential_us) << text_of(p);
        EXPECT_TRUE(contains(text_of(p), "overlap " + us(p.overlap_us) + " against sequential " + us(p.sequential_us)));
    }
}

// The same shapes with a transport as fast for the overlap as for the collectives: then the
// transfers hide under the GEMMs at 2 and 4 ranks, for both operations.
TEST(DistPlan, LlamaShapesOverlapAtTwoAndFourRanksOnAFastLink) {
    const DistFacts facts = facts_with_a_fast_capped_link();
    for (int P : {2, 4}) {
        SCOPED_TRACE("P " + std::to_string(P));
        const DistPlan ag = plan_dist(llama_allgather(P), facts, {});
        EXPECT_EQ(ag.schedule, Schedule::kOverlap) << text_of(ag);
        EXPECT_EQ(ag.pieces, P) << "one GEMM per rank's block: " << text_of(ag);
        EXPECT_EQ(ag.comm_sms, comm_sms_for({})) << text_of(ag);
        EXPECT_LT(ag.comm_sms, facts.sm_count) << text_of(ag);

        const DistPlan rs = plan_dist(llama_reducescatter(P), facts, {});
        EXPECT_EQ(rs.schedule, Schedule::kOverlap) << text_of(rs);
        EXPECT_GE(rs.pieces, 2) << "a block in pieces, so one moves while the next is computed: " << text_of(rs);
        EXPECT_EQ(rs.comm_sms, comm_sms_for({})) << text_of(rs);
    }
}

// Overlap's reasons say what runs: the rows of a block (AllGather) or of a piece
// (ReduceScatter), the SMs, and the model's facts and times.
TEST(DistPlan, OverlapReasonsNameTheRowsTheSmsAndTheModel) {
    const DistFacts facts = facts_with_a_fast_capped_link();
    for (int P : {2, 4}) {
        SCOPED_TRACE("P " + std::to_string(P));
        const DistPlan agp = plan_dist(llama_allgather(P), facts, {});
        const std::string ag = text_of(agp);
        EXPECT_TRUE(contains(ag, "overlap, " + std::to_string(P) + " pieces"));
        EXPECT_TRUE(contains(ag, std::to_string(comm_sms_for({})) + " SMs to NCCL"));
        EXPECT_TRUE(contains(ag, std::string("~") + std::to_string(kTokens / P) + " rows"));
        EXPECT_TRUE(contains(ag, "on " + std::to_string(facts.sm_count - comm_sms_for({})) + " SMs"));
        EXPECT_TRUE(contains(ag, std::to_string(static_cast<int>(facts.gemm_tflops)) + " TFLOP/s"));
        EXPECT_TRUE(contains(ag, std::to_string(static_cast<int>(facts.seq_gbps)) + " GB/s"));
        EXPECT_TRUE(contains(ag, "overlap " + us(agp.overlap_us) + " against sequential " + us(agp.sequential_us)));

        const DistPlan rs = plan_dist(llama_reducescatter(P), facts, {});
        const int64_t piece_rows = kTokens / P / rs.pieces;
        EXPECT_TRUE(contains(text_of(rs), std::to_string(rs.pieces) + " pieces of ~" + std::to_string(piece_rows) +
                                              " rows"));
    }
}

// With few tokens a rank's block (or a piece of it) is too small a GEMM to cut up, however fast
// the link.
TEST(DistPlan, FewTokensAreSequentialForBothOperations) {
    for (const DistFacts& facts : {DistFacts{}, facts_with_a_fast_capped_link()}) {
        for (int P : {2, 4}) {
            for (int64_t m : {1, 7, 64, 128, 200, 255, 256}) {
                SCOPED_TRACE("P " + std::to_string(P) + ", m " + std::to_string(m));
                const DistPlan ag = plan_dist(llama_allgather(P, m), facts, {});
                EXPECT_EQ(ag.schedule, Schedule::kSequential) << text_of(ag);
                EXPECT_EQ(ag.pieces, 1) << text_of(ag);
                EXPECT_EQ(ag.comm_sms, 0) << text_of(ag);
                EXPECT_TRUE(contains(text_of(ag), "tiles"));
                const DistPlan rs = plan_dist(llama_reducescatter(P, m), facts, {});
                EXPECT_EQ(rs.schedule, Schedule::kSequential) << text_of(rs);
                EXPECT_EQ(rs.pieces, 1) << text_of(rs);
                EXPECT_EQ(rs.comm_sms, 0) << text_of(rs);
                EXPECT_TRUE(contains(text_of(rs), "tiles"));
            }
        }
    }
}

// Deep enough that the overlap's per-step costs are small beside the GEMMs of the shapes below.
constexpr int64_t kDeep = int64_t(1) << 18;

// The tile rule: sequential when the smallest GEMM the overlap would run (a rank's block for
// AllGather, the last piece of it for ReduceScatter) has fewer 128 x 256 tiles than the device
// has SMs; one tile either side of that line, for several SM counts.
TEST(DistPlan, SequentialWhenAPieceHasFewerTilesThanSms) {
    for (int sms : {132, 114, 78, 40}) {
        for (int P : {2, 4}) {
            SCOPED_TRACE("sm_count " + std::to_string(sms) + ", P " + std::to_string(P));
            // AllGather: a block of one tile row, as wide as sms (or sms - 1) tiles.
            {
                const DistShape at = allgather(P * kTileRows, kTileCols * sms, kDeep, P);
                const DistShape below = allgather(P * kTileRows, kTileCols * (sms - 1), kDeep, P);
                const DistPlan p_at = plan_dist(at, facts_where_overlap_pays(at, sms), {});
                const DistPlan p_below = plan_dist(below, facts_where_overlap_pays(below, sms), {});
                EXPECT_EQ(p_at.schedule, Schedule::kOverlap) << text_of(p_at);
                EXPECT_EQ(p_below.schedule, Schedule::kSequential) << text_of(p_below);
                EXPECT_TRUE(contains(text_of(p_below), std::to_string(sms - 1) + " tiles"));
                EXPECT_TRUE(contains(text_of(p_below), std::to_string(sms) + " SMs"));
                EXPECT_TRUE(contains(text_of(p_below), std::to_string(kTileRows) + " rows"));
            }
            // The same block one row taller than a tile is two tile rows: it passes.
            {
                const DistShape taller = allgather(P * (kTileRows + 1), kTileCols * (sms - 1), kDeep, P);
                const DistPlan p = plan_dist(taller, facts_where_overlap_pays(taller, sms), {});
                EXPECT_EQ(p.schedule, Schedule::kOverlap) << text_of(p);
            }
            // ReduceScatter: a piece of one tile row (m = P blocks of `pieces` such pieces).
            {
                const DistShape big = reducescatter(1 << 16, 8192, 8192, P);
                const int pieces = plan_dist(big, facts_where_overlap_pays(big), {}).pieces;
                ASSERT_GE(pieces, 2);
                const int64_t m = int64_t(P) * pieces * kTileRows;
                const DistShape at = reducescatter(m, kTileCols * sms, kDeep, P);
                const DistShape below = reducescatter(m, kTileCols * (sms - 1), kDeep, P);
                const DistPlan p_at = plan_dist(at, facts_where_overlap_pays(at, sms), {});
                const DistPlan p_below = plan_dist(below, facts_where_overlap_pays(below, sms), {});
                EXPECT_EQ(p_at.schedule, Schedule::kOverlap) << text_of(p_at);
                EXPECT_EQ(p_at.pieces, pieces) << text_of(p_at);
                EXPECT_EQ(p_below.schedule, Schedule::kSequential) << text_of(p_below);
                EXPECT_TRUE(contains(text_of(p_below), std::to_string(sms - 1) + " tiles"));
                EXPECT_TRUE(contains(text_of(p_below), std::to_string(sms) + " SMs"));
            }
        }
    }
}

// Uneven m: the smallest block is the last rank's, and the rule counts its tiles.
TEST(DistPlan, TheTileRuleCountsTheSmallestBlock) {
    const int sms = 132, P = 4;
    // Blocks of 129, 129, 129 and 128 rows: the last is one tile row, the others two.
    const DistShape s = allgather(3 * 129 + 128, kTileCols * (sms / 2), kDeep, P);
    ASSERT_EQ(rows_of(s.m, P, P - 1), 128);
    ASSERT_EQ(rows_of(s.m, P, 0), 129);
    const DistPlan p = plan_dist(s, facts_where_overlap_pays(s, sms), {});
    EXPECT_EQ(p.schedule, Schedule::kSequential) << text_of(p);
    EXPECT_TRUE(contains(text_of(p), std::to_string(ceil_div(128, kTileRows) * (sms / 2)) + " tiles"));
}

// Overlap only hides a transfer: where the sequential schedule's transfer costs nothing, there
// is nothing to win back for the GEMMs' lost SMs and extra steps, and the model says so.
TEST(DistPlan, SequentialWhenTheCollectiveIsFree) {
    DistFacts free_collective = facts_with_a_fast_capped_link();
    free_collective.seq_gbps = 1e9;
    for (int P : {2, 4}) {
        for (const DistShape& s : {llama_allgather(P), llama_reducescatter(P)}) {
            const DistPlan p = plan_dist(s, free_collective, {});
            EXPECT_EQ(p.schedule, Schedule::kSequential) << text_of(p);
            EXPECT_GE(p.overlap_us, p.sequential_us) << text_of(p);
            EXPECT_TRUE(contains(text_of(p), "against sequential")) << "the reason is the model's";
        }
    }
}

// The model's estimates scale as the definitions say: the GEMM with its flops and rate; the
// capped transfers with the bytes each rank receives, the link and the CTAs NCCL may take; the
// sequential transfer with the bytes and the collectives' rate.
TEST(DistPlan, ModelScalesWithFlopsBytesAndFacts) {
    const DistFacts f;
    DistFacts slow_link = f, fast_gemm = f, slow_collective = f;
    slow_link.link_gbps = f.link_gbps / 2;
    fast_gemm.gemm_tflops = f.gemm_tflops * 2;
    slow_collective.seq_gbps = f.seq_gbps / 2;
    // The capped transfers' rate falls with fewer CTAs than the default and does not rise with
    // more (measured: docs/dist.md#the-plan).
    DistRequest more_ctas, fewer_ctas;
    more_ctas.comm_sms = 2 * comm_sms_for({});
    fewer_ctas.comm_sms = comm_sms_for({}) / 2;
    auto seq_transfer = [](const DistPlan& p) { return p.sequential_us - p.gemm_us; };
    for (const DistShape& s : {llama_allgather(2), llama_reducescatter(4)}) {
        const DistPlan base = plan_dist(s, f, {});
        EXPECT_NEAR(base.gemm_us, 2.0 * s.m * s.n * s.k / (f.gemm_tflops * 1e6), 1e-6 * base.gemm_us);
        EXPECT_NEAR(plan_dist(s, fast_gemm, {}).gemm_us, base.gemm_us / 2, 1e-9 * base.gemm_us);
        EXPECT_NEAR(plan_dist(s, slow_link, {}).comm_us, 2 * base.comm_us, 1e-9 * base.comm_us);
        EXPECT_NEAR(plan_dist(s, f, more_ctas).comm_us, base.comm_us, 1e-9 * base.comm_us);
        EXPECT_NEAR(plan_dist(s, f, fewer_ctas).comm_us, 2 * base.comm_us, 1e-9 * base.comm_us);
        EXPECT_NEAR(seq_transfer(plan_dist(s, slow_collective, {})), 2 * seq_transfer(base), 1e-6 * seq_transfer(base));
        DistShape twice = s;
        twice.m *= 2;
        const DistPlan p2 = plan_dist(twice, f, {});
        EXPECT_NEAR(p2.comm_us, 2 * base.comm_us, 1e-9 * base.comm_us);
        EXPECT_NEAR(seq_transfer(p2), 2 * seq_transfer(base), 1e-6 * seq_transfer(base));
    }
    // AllGather moves the other ranks' rows of X ([m, k]), ReduceScatter the other ranks' rows of
    // the partial sums ([m, n]): with k = 2n the first moves twice as much through the
    // collective. Through the capped communicator the ring's pieces move slower than the
    // AllGather's steps.
    const DistPlan ag = plan_dist(allgather(4096, 1024, 2048, 2), f, {});
    const DistPlan rs = plan_dist(reducescatter(4096, 1024, 2048, 2), f, {});
    EXPECT_NEAR(seq_transfer(ag), 2 * seq_transfer(rs), 1e-6 * seq_transfer(ag));
    const DistPlan rs_same_bytes = plan_dist(reducescatter(4096, 2048, 1024, 2), f, {});
    EXPECT_GT(rs_same_bytes.comm_us, ag.comm_us);
}

// AllGather-GEMM runs the rows that cover the transfers on the SMs NCCL leaves, in whole tile
// rows, never the last block (it waits for the last transfer anyway); the slower the transfers,
// the more rows.
TEST(DistPlan, AllGatherRowsBesideTheTransfersCoverThem) {
    DistRequest overlap;
    overlap.force = DistRequest::Force::kOverlap;
    for (int P : {2, 4}) {
        const DistShape s = llama_allgather(P);
        const int64_t most = s.m - rows_of(s.m, P, P - 1);
        int64_t previous = 0;
        for (double gbps : {1e9, 2000.0, 400.0, 200.0, 100.0, 48.0, 10.0, 1.0}) {
            DistFacts f;
            f.link_gbps = gbps;
            const DistPlan p = plan_dist(s, f, overlap);
            SCOPED_TRACE("P " + std::to_string(P) + ", " + std::to_string(gbps) + " GB/s: " + text_of(p));
            ASSERT_EQ(p.schedule, Schedule::kOverlap);
            EXPECT_GT(p.beside_rows, 0);
            EXPECT_LE(p.beside_rows, most);
            EXPECT_TRUE(p.beside_rows % kTileRows == 0 || p.beside_rows == most) << p.beside_rows;
            EXPECT_GE(p.beside_rows, previous) << "a slower link never puts fewer rows beside the transfers";
            previous = p.beside_rows;
            EXPECT_TRUE(contains(text_of(p), "the first " + std::to_string(p.beside_rows) + " of " +
                                                 std::to_string(s.m) + " rows"));
            // Enough rows to cover the transfers, at the GEMM's rate on the SMs NCCL leaves.
            const double rows_per_us = s.m / p.gemm_us * (f.sm_count - p.comm_sms) / f.sm_count;
            if (p.beside_rows < most) {
                EXPECT_GE(p.beside_rows, p.comm_us * rows_per_us);
            }
        }
        EXPECT_EQ(previous, most) << "a link this slow puts every block but the last beside the transfers";
    }
}

TEST(DistPlan, ForcedSequentialWins) {
    DistRequest req;
    req.force = DistRequest::Force::kSequential;
    for (int P : {2, 4}) {
        for (const DistShape& s : {llama_allgather(P), llama_reducescatter(P)}) {
            const DistPlan p = plan_dist(s, facts_with_a_fast_capped_link(), req);
            EXPECT_EQ(p.schedule, Schedule::kSequential) << text_of(p);
            EXPECT_EQ(p.pieces, 1) << text_of(p);
            EXPECT_EQ(p.comm_sms, 0) << text_of(p);
            EXPECT_TRUE(contains(text_of(p), "requested"));
        }
    }
}

// Forced overlap runs where the model would not: tiny shapes, and the default facts' losers.
TEST(DistPlan, ForcedOverlapRunsWhereTheModelWouldNot) {
    DistRequest req;
    req.force = DistRequest::Force::kOverlap;
    for (int P : {2, 4}) {
        for (int64_t m : {1003, 64, 3}) {
            SCOPED_TRACE("P " + std::to_string(P) + ", m " + std::to_string(m));
            const DistPlan ag = plan_dist(allgather(m, 256, 512, P), DistFacts{}, req);
            EXPECT_EQ(ag.schedule, Schedule::kOverlap) << text_of(ag);
            EXPECT_EQ(ag.pieces, P) << text_of(ag);
            EXPECT_TRUE(contains(text_of(ag), "requested"));
            const DistPlan rs = plan_dist(reducescatter(m, 256, 512, P), DistFacts{}, req);
            EXPECT_EQ(rs.schedule, Schedule::kOverlap) << text_of(rs);
            EXPECT_GE(rs.pieces, 2) << text_of(rs);
            EXPECT_TRUE(contains(text_of(rs), "requested"));
        }
        for (const DistShape& s : {llama_allgather(P), llama_reducescatter(P)}) {
            const DistPlan p = plan_dist(s, DistFacts{}, req);
            EXPECT_EQ(p.schedule, Schedule::kOverlap) << text_of(p);
            EXPECT_EQ(p.comm_sms, comm_sms_for({})) << text_of(p);
        }
    }
}

TEST(DistPlan, RequestedPiecesAreHonouredByReduceScatter) {
    const DistShape s = llama_reducescatter(2);
    const DistFacts f = facts_where_overlap_pays(s);
    // Up to 4: a quarter of a rank's 4096 rows is still more tiles than SMs.
    for (int pieces : {2, 3, 4}) {
        DistRequest req;
        req.pieces = pieces;
        const DistPlan p = plan_dist(s, f, req);
        EXPECT_EQ(p.schedule, Schedule::kOverlap) << text_of(p);
        EXPECT_EQ(p.pieces, pieces) << text_of(p);
        EXPECT_TRUE(contains(text_of(p), std::to_string(pieces) + " pieces"));
    }
    // One piece a block leaves no GEMM to overlap a transfer with, even when overlap is forced.
    DistRequest one;
    one.pieces = 1;
    one.force = DistRequest::Force::kOverlap;
    const DistPlan p = plan_dist(s, f, one);
    EXPECT_EQ(p.schedule, Schedule::kSequential) << text_of(p);
    // AllGather's pieces are the ranks' blocks, whatever is requested.
    DistRequest four;
    four.pieces = 4;
    const DistShape ag = llama_allgather(2);
    EXPECT_EQ(plan_dist(ag, facts_where_overlap_pays(ag), four).pieces, 2);
}

TEST(DistPlan, RequestedCommSmsAreHonoured) {
    EXPECT_GT(comm_sms_for({}), 0) << "the plan leaves NCCL some SMs by default";
    for (int sms : {1, 4, 16, 32}) {
        DistRequest req;
        req.comm_sms = sms;
        EXPECT_EQ(comm_sms_for(req), sms);
        for (const DistShape& s : {llama_allgather(4), llama_reducescatter(4)}) {
            const DistFacts f = facts_where_overlap_pays(s);
            const DistPlan p = plan_dist(s, f, req);
            ASSERT_EQ(p.schedule, Schedule::kOverlap) << text_of(p);
            EXPECT_EQ(p.comm_sms, sms) << text_of(p);
            EXPECT_TRUE(contains(text_of(p), std::to_string(sms) + " SMs to NCCL"));
            EXPECT_TRUE(contains(text_of(p), "on " + std::to_string(f.sm_count - sms) + " SMs"))
                << "the GEMMs beside a transfer run on the rest";
        }
    }
}

// Shapes at the edges plan without fault: no rows, fewer rows than ranks, an empty width.
TEST(DistPlan, DegenerateShapesPlanSequentialWithAReason) {
    for (int P : {2, 3, 4, 8}) {
        for (int64_t m : {int64_t(0), int64_t(1), int64_t(P - 1)}) {
            for (const DistShape& s : {allgather(m, 256, 512, P), reducescatter(m, 256, 512, P),
                                       allgather(4096, 0, 512, P), reducescatter(4096, 0, 512, P)}) {
                const DistPlan p = plan_dist(s, DistFacts{}, {});
                EXPECT_EQ(p.schedule, Schedule::kSequential) << "m " << s.m << ", n " << s.n << ": " << text_of(p);
                EXPECT_FALSE(p.reasons.empty());
            }
        }
    }
}

TEST(DistPlan, DescribeLeadsWithTheScheduleThenOneReasonALine) {
    const DistPlan p = plan_dist(llama_allgather(2), DistFacts{}, {});
    const std::string text = describe(p);
    ASSERT_EQ(text.rfind("overlap, ", 0), 0u) << text;
    size_t lines = 0;
    for (char c : text) lines += c == '\n';
    EXPECT_EQ(lines, p.reasons.size()) << text;
    for (const std::string& reason : p.reasons) EXPECT_TRUE(contains(text, "\n  " + reason));
    EXPECT_EQ(describe(plan_dist(llama_reducescatter(2, 64), DistFacts{}, {})).rfind("sequential\n", 0), 0u);
}

// ---- the overlap on the copy engines ----

// Every rank has the copy engines (NCCL 2.28+, GEMMKIT_DIST_COPY_ENGINES not 0).
DistFacts copy_engine_facts() {
    DistFacts f;
    f.copy_engines = true;
    return f;
}

// Where every rank has them, every overlap runs on the copy engines, with no SMs to NCCL;
// without them the same shapes plan on the capped kernels.
TEST(DistCopyEngines, EveryOverlapRunsThereWhereEveryRankHasThem) {
    for (int P : {2, 4}) {
        for (const DistShape& s : {llama_allgather(P), llama_reducescatter(P)}) {
            SCOPED_TRACE("P " + std::to_string(P) + (s.op == DistOp::kAllGatherGemm ? " AllGather" : " ReduceScatter"));
            const DistPlan p = plan_dist(s, copy_engine_facts(), {});
            EXPECT_EQ(p.schedule, Schedule::kOverlap) << text_of(p);
            EXPECT_EQ(p.transport, Transport::kCopyEngines) << text_of(p);
            const DistPlan capped = plan_dist(s, DistFacts{}, {});
            EXPECT_EQ(capped.transport, Transport::kCappedKernels) << text_of(capped);
            EXPECT_FALSE(contains(text_of(capped), "copy engines")) << text_of(capped);
        }
    }
}

// The overlap's plan on copy engines that move `gbps`, forced, so that the model shows even
// where it would lose.
DistPlan forced_on_copy_engines(const DistShape& s, double gbps) {
    DistFacts f = copy_engine_facts();
    f.ce_gbps = gbps;
    DistRequest overlap;
    overlap.force = DistRequest::Force::kOverlap;
    return plan_dist(s, f, overlap);
}

// GEMM-ReduceScatter on the copy engines cuts the columns into parts where the exchange (with
// the all-to-all's self copy beyond two ranks) outlasts the own rows' GEMM: none at P = 2, where
// it hides under it; some at P = 4; never fewer as the link slows; the model's fastest count of
// those whose parts are whole 16-byte vectors.
TEST(DistCopyEngines, ReduceScatterCutsColumnsWhereTheExchangeOutlastsTheOwnGemm) {
    const DistFacts f = copy_engine_facts();
    const DistPlan two = plan_dist(llama_reducescatter(2), f, {});
    EXPECT_EQ(two.pieces, 1) << text_of(two);
    EXPECT_LT(two.comm_us, two.gemm_us / 2) << text_of(two);
    const DistPlan four = plan_dist(llama_reducescatter(4), f, {});
    EXPECT_GE(four.pieces, 2) << text_of(four);
    EXPECT_TRUE(contains(text_of(four), std::to_string(four.pieces) + " column parts")) << text_of(four);
    int previous = 1;
    for (double gbps : {1e7, 600.0, 300.0, 150.0, 50.0}) {
        const DistPlan p = forced_on_copy_engines(llama_reducescatter(4), gbps);
        SCOPED_TRACE(text_of(p));
        EXPECT_GE(p.pieces, previous) << "a slower link never takes fewer parts";
        EXPECT_GE(p.pieces, 1);
        EXPECT_LE(p.pieces, 4);
        for (int parts = 1; parts <= 4; ++parts) {
            if (kHidden % (kVectorColumns * parts) != 0) continue;  // not a count the plan may pick
            DistFacts slow = copy_engine_facts();
            slow.ce_gbps = gbps;
            DistRequest asked;
            asked.force = DistRequest::Force::kOverlap;
            asked.pieces = parts;
            const DistPlan q = plan_dist(llama_reducescatter(4), slow, asked);
            EXPECT_EQ(q.pieces, parts) << text_of(q);
            EXPECT_LE(p.overlap_us, q.overlap_us) << parts << " parts: " << text_of(q);
        }
        previous = p.pieces;
    }
    // Parts the plan picks keep whole 16-byte vectors: 8192 columns in 1, 2 or 4 parts; 8200
    // (8 x 1025) only in one.
    EXPECT_TRUE(four.pieces == 2 || four.pieces == 4) << text_of(four);
    for (double gbps : {300.0, 100.0, 30.0}) {
        const DistPlan odd = forced_on_copy_engines(reducescatter(8192, 8200, 7168, 4), gbps);
        EXPECT_EQ(odd.pieces, 1) << text_of(odd);
    }
    // A requested count is run as asked, even where a part is at least a column wide.
    DistRequest many;
    many.force = DistRequest::Force::kOverlap;
    many.pieces = 64;
    EXPECT_EQ(plan_dist(reducescatter(8192, 16, 8192, 4), f, many).pieces, 16);
}

// On the copy engines nothing runs on the GEMMs' SMs: the acceptance layer overlaps at P = 2 and
// 4, both operations, with no SMs to NCCL, and says so.
TEST(DistCopyEngines, TheLlamaLayerOverlapsWithNoSmsToNccl) {
    const DistFacts f = copy_engine_facts();
    for (int P : {2, 4}) {
        for (const DistShape& s : {llama_allgather(P), llama_reducescatter(P)}) {
            SCOPED_TRACE("P " + std::to_string(P) + (s.op == DistOp::kAllGatherGemm ? " AllGather" : " ReduceScatter"));
            const DistPlan p = plan_dist(s, f, {});
            ASSERT_EQ(p.schedule, Schedule::kOverlap) << text_of(p);
            EXPECT_EQ(p.transport, Transport::kCopyEngines) << text_of(p);
            EXPECT_EQ(p.comm_sms, 0) << text_of(p);
            EXPECT_LT(p.overlap_us, p.sequential_us) << text_of(p);
            EXPECT_TRUE(contains(text_of(p), "on the copy engines")) << text_of(p);
        }
    }
}

// AllGather: the own rows that run beside the all-gather cover its modelled time (with a
// margin) in whole tile rows, and never more than a block; a slower link puts more there.
TEST(DistCopyEngines, TheOwnRowsBesideTheGatherCoverItsTime) {
    for (int P : {2, 4}) {
        const DistShape s = llama_allgather(P);
        int64_t previous = 0;
        for (double gbps : {2000.0, 600.0, 300.0, 150.0, 100.0}) {
            const DistPlan p = forced_on_copy_engines(s, gbps);
            SCOPED_TRACE(text_of(p));
            const int64_t block = rows_of(s.m, P, P - 1);
            EXPECT_GT(p.beside_rows, 0);
            EXPECT_LE(p.beside_rows, block);
            EXPECT_TRUE(p.beside_rows % kTileRows == 0 || p.beside_rows == block);
            EXPECT_GE(p.beside_rows, previous) << "a slower link never puts fewer rows beside the transfer";
            if (p.beside_rows < block) {
                EXPECT_GE(p.beside_rows, p.comm_us * s.m / p.gemm_us);
            }
            EXPECT_TRUE(contains(text_of(p), std::to_string(p.beside_rows) + " own rows first"));
            previous = p.beside_rows;
        }
    }
}

// Requests: forcing the sequential schedule wins, and the overlap moves nothing through the
// capped communicator, whatever comm_sms says.
TEST(DistCopyEngines, RequestsOverrideThePlan) {
    const DistFacts f = copy_engine_facts();
    DistRequest seq;
    seq.force = DistRequest::Force::kSequential;
    const DistPlan p = plan_dist(llama_allgather(2), f, seq);
    EXPECT_EQ(p.schedule, Schedule::kSequential);
    EXPECT_EQ(p.transport, Transport::kCappedKernels) << "the sequential schedule uses NCCL's own collectives";
    DistRequest sms;
    sms.comm_sms = 16;
    const DistPlan q = plan_dist(llama_reducescatter(2), f, sms);
    EXPECT_EQ(q.transport, Transport::kCopyEngines) << text_of(q);
    EXPECT_EQ(q.comm_sms, 0) << text_of(q);
}

// Where a block's GEMM leaves SMs idle (m = 256 at these widths), overlap does not pay even
// on the copy engines, and one rank has nothing to move.
TEST(DistCopyEngines, SmallBatchesAndOneRankStaySequential) {
    const DistFacts f = copy_engine_facts();
    for (int P : {2, 4}) {
        for (const DistShape& s : {llama_allgather(P, 256), llama_reducescatter(P, 256)}) {
            const DistPlan p = plan_dist(s, f, {});
            EXPECT_EQ(p.schedule, Schedule::kSequential) << text_of(p);
        }
    }
    EXPECT_EQ(plan_dist(llama_allgather(1), f, {}).schedule, Schedule::kSequential);
}

// The model's timelines: with free transfers the overlap costs the GEMM and its launches, and
// a transfer as long as the whole GEMM cannot hide under less than itself.
TEST(DistCopyEngines, TheModelIsBoundedByTheGemmAndTheTransfers) {
    for (const DistShape& s : {llama_allgather(2), llama_reducescatter(2), llama_allgather(4), llama_reducescatter(4)}) {
        for (double gbps : {1e7, 400.0, 100.0, 10.0}) {
            const DistPlan p = forced_on_copy_engines(s, gbps);
            SCOPED_TRACE(text_of(p));
            EXPECT_GE(p.overlap_us, p.gemm_us);
            EXPECT_GE(p.overlap_us, p.comm_us);
            if (gbps > 1e6) {
                EXPECT_LT(p.overlap_us, p.gemm_us * 1.1);
            }
        }
    }
}

}  // namespace
}  // namespace gemmkit::dist
