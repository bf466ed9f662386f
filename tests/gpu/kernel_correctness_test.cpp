// Every registered kernel, by name, with the types of its registry row (FP32, TF32, FP16/BF16
// with C of their own type, FP64), against a double-precision reference computed from the
// same rounded inputs, over the shapes and scalars DESIGN.md "Verification" requires: odd
// sizes, K smaller than a tile, rectangular, lda > m, misaligned pointers, alpha/beta other
// than 1/0, NaN in C with beta 0. FP16/BF16 rows also write FP32 C, on a subset of the shapes.
//
// Each case is its own test, named "<kernel>_<ops>_<shape>_<variant>" (plus "_c_f32" for a
// 16-bit row writing FP32 C), so a failure says exactly what broke and
// `--gtest_filter='*05_register*TN*'` reruns a slice of it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>
#include <utility>

#include "device_state.hpp"
#include "gpu_test.hpp"
#include "kernels/dgemm/stream_k_policy.hpp"
#include "kernels/hopper/stream_k.hpp"
#include "verify/verify.hpp"

namespace gemmkit::test {
namespace {

struct ShapeSpec {
    const char* name;
    int64_t m, n, k;
    int64_t ld_pad;  // lda, ldb, ldc exceed the stored rows by this much
    int64_t offset;  // A, B, C start this many elements into their buffers
};

// Sizes stay at or under ~2^26 multiply-adds except one large case, because below 2^28 the
// reference is the (slower) CPU GEMM and the suite must stay quick (it was ~3 minutes on an
// H100 for the FP32 ladder alone; every new row adds its share).
constexpr ShapeSpec kShapes[] = {
    {"1x1x1", 1, 1, 1, 0, 0},
    {"7x7x7", 7, 7, 7, 0, 0},
    {"33x33x33", 33, 33, 33, 0, 0},
    {"127x129x33", 127, 129, 33, 0, 0},
    {"129x127x65", 129, 127, 65, 0, 0},
    {"1000x999x65", 1000, 999, 65, 0, 0},
    {"1024x1024x64", 1024, 1024, 64, 0, 0},
    {"4097x4095x257", 4097, 4095, 257, 0, 0},  // 4.3e9 MACs: the cuBLAS FP64 reference
    {"128x128x3", 128, 128, 3, 0, 0},          // K = 3 is below every BK (8 and up): one partial slab
    {"1x300x7", 1, 300, 7, 0, 0},
    {"300x1x7", 300, 1, 7, 0, 0},
    {"65x17x1000", 65, 17, 1000, 0, 0},        // long K: many slabs, small C
    {"127x129x33_ld5", 127, 129, 33, 5, 0},    // lda > m (and ldb, ldc padded)
    {"127x129x33_off1", 127, 129, 33, 0, 1},   // 4-byte aligned only: no vector loads
    {"129x127x65_off3_ld5", 129, 127, 65, 5, 3},
    // Sizes and leading dimensions in multiples of 4 floats keep every pointer 16-byte aligned,
    // so kernels with a 128-bit fast path take it here, with partial tiles in m, n and k.
    {"260x196x36", 260, 196, 36, 0, 0},
    {"260x196x36_ld4", 260, 196, 36, 4, 0},
    // Long k, 16-byte aligned: interior tiles take the edge-free first main loop of the FP32
    // step 12 (NN, 256 slabs or more) and the DMMA and TF32 pipelines, then the edge loop for
    // the last slabs, the very last one partial (4100 = 256 * 16 + 4).
    {"260x196x4100", 260, 196, 4100, 0, 0},
    // One whole slab of 16 in aligned interior tiles: FP32 step 12's whole edge-free loop, whose
    // prologue reaches the last slab before its refills run past it (they re-read that slab).
    {"272x256x16", 272, 256, 16, 0, 0},
    // A whole 256 x 128 tile (mma.sync step 05) whose C columns are not 16-byte aligned (ldc =
    // 257) while A and B are for op(A) = T (lda = ldb = 40): C must leave through the per-element
    // stores, not the staged 16-byte ones.
    {"257x130x40", 257, 130, 40, 0, 0},
};

struct Variant {
    const char* name;
    double alpha, beta;
    bool nan_in_c;
};

constexpr Variant kVariants[] = {
    {"a1_b0", 1.0, 0.0, false},
    {"a0p5_b2", 0.5, 2.0, false},
    {"a1_b0_nanC", 1.0, 0.0, true},  // beta == 0 must not read C: NaN there must not propagate
};

// FP16/BF16 rows with FP32 C: the output path differs, the rest of the kernel does not, so a
// few shapes suffice: tiny and odd, misaligned with padded ld, 16-byte aligned with partial
// tiles, and the large one on the cuBLAS FP64 reference. Every op, variant a0p5_b2 (reads C).
constexpr const char* kFloatOutputShapes[] = {"7x7x7", "129x127x65_off3_ld5", "260x196x36", "4097x4095x257"};
constexpr Variant kFloatOutputVariant = kVariants[1];  // a0p5_b2

// Stream-K rows (Hopper step 8, FP64 step 08) also run shapes whose tiles their schedule cuts
// along k on a 132-SM GPU (Hopper: 66 clusters of 2; FP64: 132 blocks). Hopper: 1000x1000x5000
// has 16 pair-tiles of 79 slabs (157 for TF32), each shared out over all 66 clusters in 4 or 5
// pieces, some in the middle of a tile (step 14: 64 pairs of 128 x 64 CTA tiles, whole);
// 500x520x8192 is 6 pair-tiles, and step 14's 20 pairs of 128 x 64 tiles (along n, the last
// CTA of each pair wholly past n) for 66 clusters, each cut into 3 or 4 pieces; 1790x2900x3000
// has 84 pair-tiles, 66 run whole and the 18 of the last round cut into 4 or 5 pieces of ~13
// slabs (~26 for TF32), with edge tiles in m, n and k. FP64: 64 tiles of 313 slabs cut into 2-3
// pieces of ~152, and 322 tiles, 264 whole and 58 cut into 2-3 pieces of ~83 slabs. The odd
// leading dimension and offset take the copies of unaligned operands (Hopper: the padded
// workspace; FP64: 8-byte cp.async). 100x90x30000 cuts its one tile into a piece a cluster
// (Hopper: 66; step 14 and TF32 09: 4 tiles of 64 x 64 in 33 pieces each; FP64: 132), so the
// partial sums are added along a tree 6-8 levels deep (TileSumTree).
constexpr ShapeSpec kTinyTilesCutShape = {"500x520x8192", 500, 520, 8192, 0, 0};  // step 14 on 128 x 64 tiles, cut along k
constexpr ShapeSpec kStreamKShapes[] = {
    {"1000x1000x5000", 1000, 1000, 5000, 0, 0},  // fewer tiles than clusters: every tile cut
    {"1790x2900x3000", 1790, 2900, 3000, 0, 0},  // a last round of 18 of 66 pair-tiles cut
    {"1000x1000x5000_off1_ld3", 1000, 1000, 5000, 3, 1},
    kTinyTilesCutShape,
    {"1536x1536x4096", 1536, 1536, 4096, 0, 0},  // one round of 36 pair-tiles, 30 clusters idle: cut (steps 12-13)
    {"100x90x30000", 100, 90, 30000, 0, 0},      // one tile, a piece a cluster
};
// A single round too short to give every cluster 4 slabs, shared out over fewer (stream_k_plan):
// 60x50x12000 is one tile of 188 slabs (16-bit) cut into 47 pieces on 128 x 256 pairs and on
// step 14's 64 x 64 tile, and TF32 09's tile of 375 slabs into 93 (TF32 08: 66, every cluster);
// FP64 step 08's tile of 750 slabs into 93.
constexpr ShapeSpec kFewerClustersShape = {"60x50x12000", 60, 50, 12000, 0, 0};
bool name_has(const KernelInfo& info, const char* part) { return std::string(info.name).find(part) != std::string::npos; }
// Hopper steps 13 and 14 (tf32 09) run step 12's schedule under other names (14 and 09 on small
// tiles where C has few pair-tiles, as 1000x1000x5000 has).
bool is_stream_k(const KernelInfo& info) {
    return name_has(info, "stream_k") || name_has(info, "deferred_epilogue") || name_has(info, "sized_tiles");
}

// Rows that hold a finished tile and store it under the next tile's wgmmas (Hopper step 13) also
// run a shape with several tiles a CTA, each shorter (3 slabs) than the 4 pieces a held tile is
// stored in, so a held tile's last piece waits for the end of the next tile. 81 pair-tiles on 66
// clusters, not split (too few slabs to share); step 14 runs it on 108 pairs of 128 x 192 tiles,
// two rounds.
constexpr ShapeSpec kDeferredShapes[] = {{"2304x2304x136", 2304, 2304, 136, 0, 0}};

// Rows whose launcher sizes the tiles (Hopper step 14, TF32 09) take 128 x 128 CTA tiles where
// 256 x 256 pair-tiles would leave half of the clusters idle and 128 x 128 ones would not: 25
// pair-tiles of 256 x 256, 50 pairs of 128 x 128 tiles (whole: more than half of the 66 clusters
// busy). Smaller problems take 128 x 64 tiles in pairs along n (1000x999x65, 1024x1024x64), and
// those whose 128 x 64 pairs still leave half of the clusters idle 64 x 64 tiles, one consumer
// warpgroup each (every smaller shape above; 200x250x12000, 16 of them cut along k, as
// small_tiles_pay asks). Pairs of 128 x 192 tiles run where they finish sooner than 256 x 256
// pairs (mid_tiles_pay), with partial tiles in m, n and k here: 1500x1530 has 36 pairs of
// 256 x 256 and 48 of 128 x 192, taken whole at k = 200 and, by the 16-bit rows, at k = 3072,
// where TF32 cuts the 36 along k; 1590x2410x3000 has 70 and 91 (66 clusters: a round and 25 cut
// along k, in both types).
constexpr ShapeSpec kMidTilesCutShape = {"1590x2410x3000", 1590, 2410, 3000, 0, 0};
constexpr ShapeSpec kMicroTilesCutShape = {"200x250x12000", 200, 250, 12000, 0, 0};
// FP64 step 09 runs a C of at most 64 columns (rows) on tiles of 128 x 16, 32 or 64 (and 16, 32 or
// 64 x 128; dmma_narrow_tile), cut along k: 1000x16x3000 and 13x2000x2000 on the 16-wide ones,
// 2000x30x1000 (odd ld and offset: 8-byte copies) and 30x1500x1400 on the 32-wide ones,
// 1000x40x8192 and 40x1000x8192 on the 64-wide ones (where 64 x 64 tiles do not serve). The
// Hopper rows run C of at most 16 columns with B of op N (TF32: every op) on 64 x 16 tiles:
// 1000x16x3000, and 1000x9x3000 with odd ld and offset (the 16-bit rows copy the operands
// first); the others on 64 x 64 tiles. A C of at most 64 columns whose 64 x 64 tiles fill half
// of the SMs takes them (column_tiles_pay): 8500x40x300 (133 tiles), and 5000x50x2100 (odd ld and
// offset) and 4200x64x2048 (79 and 66 tiles, 33 and 32 slabs) with the 12-stage ring
// (deep_ring_pays).
constexpr ShapeSpec kSizedTileShapes[] = {
    {"1280x1200x300", 1280, 1200, 300, 0, 0},
    {"1500x1530x200", 1500, 1530, 200, 0, 0},
    {"1500x1530x3072", 1500, 1530, 3072, 0, 0},
    kMidTilesCutShape,
    kMicroTilesCutShape,
    {"1000x16x3000", 1000, 16, 3000, 0, 0},
    {"13x2000x2000", 13, 2000, 2000, 0, 0},
    {"2000x30x1000_off1_ld3", 2000, 30, 1000, 3, 1},
    {"30x1500x1400", 30, 1500, 1400, 0, 0},
    {"1000x40x8192", 1000, 40, 8192, 0, 0},
    {"40x1000x8192", 40, 1000, 8192, 0, 0},
    {"1000x9x3000_off1_ld3", 1000, 9, 3000, 3, 1},
    {"8500x40x300", 8500, 40, 300, 0, 0},
    {"5000x50x2100_off1_ld3", 5000, 50, 2100, 3, 1},
    {"4200x64x2048", 4200, 64, 2048, 0, 0},
};

// Rows that copy operands TMA cannot read (KernelInfo::copies_unaligned: Hopper steps 11 on, TF32
// 07 on). The TF32 rows form
// C's last 1-4 rows (columns) in B's (A's) copy where m (n) is 1-4 past a multiple of 256, if
// the rest of C still has 132 tiles of 256 x 256, and run the GEMM on the rest (kernels/
// hopper/peeled_edges.hpp). kShapes peel only 4097x4095x257's last row; these peel 4 rows and
// 1 column, and 3 and 2 with odd ld and offset, on every op (132 tiles each; over 2^28
// multiply-adds, so the reference is cuBLAS FP64). The FP16/BF16 rows copy without peeling.
constexpr ShapeSpec kPeelShapes[] = {
    {"3076x2817x40", 3076, 2817, 40, 0, 0},
    {"2819x3074x40_off1_ld3", 2819, 3074, 40, 3, 1},
};
// ...and read an A whose columns start on odd multiples of 16 bytes as it is (TMA reads it, more
// slowly; 128-byte L2 promotion), every operand 16 bytes into a 32-byte sector, on every op: at
// an offset of 8 16-bit elements, or of 4 FP32 ones (the 16-bit rows copy every operand there,
// which TMA cannot read at 8-byte offsets).
constexpr ShapeSpec kSlowAShapes[] = {{"2900x3000x2900_off8", 2900, 3000, 2900, 0, 8},
                                      {"2900x3076x2900_off4", 2900, 3076, 2900, 0, 4}};
// Such an A of at least kCopyAMinBytes (192 MiB) with n of at least 3000 is copied although TMA
// could read it (copies_pay_for_a): for each type, the smallest square A past that, every op,
// variant a0p5_b2 only (each case is ~2^38 multiply-adds). TF32 also forms C's last 4 columns
// in A's copy there (n = 3076, peeled_edges.hpp).
constexpr ShapeSpec kCopiedSlowAShape16 = {"10040x3000x10040_off8", 10040, 3000, 10040, 0, 8};
constexpr ShapeSpec kCopiedSlowAShapeTf32 = {"7096x3076x7096_off4", 7096, 3076, 7096, 0, 4};

// The few-vectors rows (kernels/skinny) also run shapes whose k the plan splits over blocks on a
// 132-SM GPU (the last block of each row block adds the ranges): few columns and few rows (C^T)
// on every op, so both forms (dot and axpy); a few-vector count that is not a power of two; an odd
// leading dimension and offset (element loads of the big matrix); k = 0 (C = beta C), and more
// than 16 vectors (two vector groups, gridDim.z = 2) with a split.
constexpr ShapeSpec kFewVectorShapes[] = {
    {"3000x16x2100", 3000, 16, 2100, 0, 0},
    {"16x3000x2100", 16, 3000, 2100, 0, 0},
    {"4100x1x1500", 4100, 1, 1500, 0, 0},
    {"1x4100x1500_off1_ld3", 1, 4100, 1500, 3, 1},
    {"2050x11x3001_off3_ld5", 2050, 11, 3001, 5, 3},
    {"300x7x0", 300, 7, 0, 0, 0},
    {"1500x24x2000", 1500, 24, 2000, 0, 0},
};

constexpr gemmkit_op kOps[][2] = {
    {GEMMKIT_OP_N, GEMMKIT_OP_N},
    {GEMMKIT_OP_N, GEMMKIT_OP_T},
    {GEMMKIT_OP_T, GEMMKIT_OP_N},
    {GEMMKIT_OP_T, GEMMKIT_OP_T},
};

struct KernelCase {
    std::string kernel;  // registry name
    verify::Case c;
    std::string name;    // the test's name
};

// GoogleTest prints the parameter of a failing test; without this it would dump bytes.
void PrintTo(const KernelCase& kc, std::ostream* os) {
    *os << kc.kernel << " " << verify::describe(kc.c);
}

// A case's inputs come from a hash of its name (FNV-1a, 64-bit): reproducible, different for
// every case, and the same when shapes, variants or kernels are added or removed. (Seeds by
// position reseeded the whole suite with every new shape, and twice a reseeded 1x1x1 case
// exposed a bound that was wrong; such a case now keeps its inputs.)
uint64_t seed_of(const std::string& case_name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char ch : case_name) h = (h ^ ch) * 0x100000001b3ull;
    return h;
}

KernelCase make_kernel_case(const KernelInfo& info, const verify::Types& types, const gemmkit_op (&ops)[2],
                            const ShapeSpec& s, const Variant& v) {
    KernelCase kc;
    kc.kernel = info.name;
    kc.name = test_name_part(info.name) + "_" + ops_name(ops[0], ops[1]) + "_" + s.name + "_" + v.name;
    if (types.c != types.ab) kc.name += std::string("_c_") + dtype_name(types.c);
    kc.c = verify::with_types(verify::make_case(ops[0], ops[1], s.m, s.n, s.k, seed_of(kc.name)), types);
    kc.c.ld_pad = s.ld_pad;
    kc.c.offset = s.offset;
    kc.c.alpha = v.alpha;
    kc.c.beta = v.beta;
    kc.c.nan_in_c = v.nan_in_c;
    return kc;
}

bool named_in(const char* name, const auto& names) {
    return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return std::string(n) == name; });
}

std::vector<KernelCase> all_cases() {
    std::vector<KernelCase> cases;
    for (const KernelInfo& info : registry()) {
        if (!checked_generically(info)) continue;  // grouped_gpu_test.cpp, fp8_gpu_test.cpp
        // Every case with the row's own types (C of A/B's type), on every op and variant...
        auto add_own_types = [&](const auto& shapes) {
            for (const auto& ops : kOps)
                for (const ShapeSpec& s : shapes)
                    for (const Variant& v : kVariants)
                        cases.push_back(make_kernel_case(info, verify::types_of(info, false), ops, s, v));
        };
        add_own_types(kShapes);
        if (is_stream_k(info)) {
            add_own_types(kStreamKShapes);
            add_own_types(std::array{kFewerClustersShape});
        }
        if (name_has(info, "deferred_epilogue") || name_has(info, "sized_tiles")) add_own_types(kDeferredShapes);
        if (name_has(info, "sized_tiles")) add_own_types(kSizedTileShapes);
        if (info.rules == PlanRules::kFewVectors) add_own_types(kFewVectorShapes);
        if (info.copies_unaligned) {
            add_own_types(kPeelShapes);
            add_own_types(kSlowAShapes);
            const verify::Types own = verify::types_of(info, false);
            const ShapeSpec& copied = own.ab == GEMMKIT_R_32F ? kCopiedSlowAShapeTf32 : kCopiedSlowAShape16;
            for (const auto& ops : kOps) cases.push_back(make_kernel_case(info, own, ops, copied, kVariants[1]));
        }
        // ...and, for FP16/BF16 rows, FP32 C on the subset.
        const verify::Types float_output = verify::types_of(info, true);
        if (float_output == verify::types_of(info, false)) continue;
        for (const auto& ops : kOps)
            for (const ShapeSpec& s : kShapes)
                if (named_in(s.name, kFloatOutputShapes))
                    cases.push_back(make_kernel_case(info, float_output, ops, s, kFloatOutputVariant));
    }
    return cases;
}

class KernelCorrectness : public GpuTest, public ::testing::WithParamInterface<KernelCase> {};

TEST_P(KernelCorrectness, MatchesReference) {
    const KernelCase& kc = GetParam();
    const KernelInfo* info = find_kernel(kc.kernel.c_str());
    ASSERT_NE(info, nullptr) << kc.kernel << " vanished from the registry";
    if (info->min_sm > sm_) GTEST_SKIP() << kc.kernel << " needs sm_" << info->min_sm << "; device is sm_" << sm_;
    std::string why;
    if (!info->supports(verify::problem_of(kc.c), &why)) GTEST_SKIP() << kc.kernel << " does not support this case: " << why;

    const std::string what = kc.kernel + " " + verify::describe(kc.c);  // describe() includes the seed
    const verify::Outcome out = verify::run_case(kc.kernel.c_str(), kc.c, *blas_, stream_);
    ASSERT_EQ(out.status, GEMMKIT_SUCCESS) << what << ": " << gemmkit_status_string(out.status) << ": " << out.message;
    EXPECT_TRUE(out.result.pass) << what << "\n  " << verify::describe(out.result) << " against the "
                                 << (out.cpu_reference ? "CPU" : "cuBLAS FP64") << " reference";
    EXPECT_EQ(out.outside_writes, 0) << what << "\n  " << out.outside_writes
                                     << " elements of C's buffer outside the m x n window changed";
    EXPECT_TRUE(out.pass()) << what;
}

// The stream-K shapes above are meant to exercise the cut tiles: check that the schedule cuts
// them on this device. The Hopper launchers plan on every cluster that fits the GPU, one
// cluster of 2 per 2 SMs on the 132-SM H100 (launch_stream_k), whatever the pair-tiles' count;
// step 14's 128 x 64 tiles run in clusters of 2 along n too.
TEST_F(GpuTest, StreamKShapesAreCutOnThisDevice) {
    DeviceState dev;
    ASSERT_EQ(current_device(&dev), GEMMKIT_SUCCESS);
    if (sm_ < 90) GTEST_SKIP() << "stream-K rows need sm_90";
    const int64_t clusters = dev.sm_count / 2;
    for (const ShapeSpec& s : kStreamKShapes) {
        const int64_t pairs = (s.m + 255) / 256 * ((s.n + 255) / 256);
        EXPECT_GT(hopper::stream_k_pairs(pairs, clusters, (s.k + 63) / 64), 0) << s.name << ", 16-bit";
        EXPECT_GT(hopper::stream_k_pairs(pairs, clusters, (s.k + 31) / 32), 0) << s.name << ", TF32";
        EXPECT_GT(dgemm::dmma_stream_k_tiles_of(s.m, s.n, s.k, dev.sm_count), 0) << s.name << ", FP64";
    }
    // kFewerClustersShape's one tile is cut over fewer clusters than the GPU has.
    const ShapeSpec& few = kFewerClustersShape;
    EXPECT_EQ(hopper::stream_k_plan(1, clusters, (few.k + 63) / 64).clusters, 47) << few.name << ", 16-bit";
    EXPECT_EQ(hopper::stream_k_plan(1, dev.sm_count, (few.k + 63) / 64, 0.125).clusters, 47) << few.name << ", 64 x 64";
    EXPECT_EQ(hopper::stream_k_plan(1, dev.sm_count, (few.k + 31) / 32, 0.125).clusters, 93) << few.name << ", TF32 64 x 64";
    EXPECT_GT(dgemm::dmma_stream_k_tiles_of(few.m, few.n, few.k, dev.sm_count), 0) << few.name << ", FP64";
    // Step 14 and TF32 09 take 128 x 64 tiles (pairs of 128 x 128 along n) where 128 x 128 ones
    // (pairs of 256 x 128) would leave half of the clusters idle, and cut them along k.
    const ShapeSpec& s = kTinyTilesCutShape;
    ASSERT_LE(2 * ((s.m + 255) / 256 * ((s.n + 127) / 128)), clusters) << s.name << " takes 128 x 128 tiles";
    const int64_t tiny_pairs = (s.m + 127) / 128 * ((s.n + 127) / 128);
    EXPECT_GT(hopper::stream_k_pairs(tiny_pairs, clusters, (s.k + 63) / 64, 0.25), 0) << s.name << ", 128 x 64 tiles";
    EXPECT_GT(hopper::stream_k_pairs(tiny_pairs, clusters, (s.k + 31) / 32, 0.25), 0) << s.name << ", TF32 128 x 64";
    // ...and not 64 x 64 tiles, which stream-K would run whole (72 tiles on 132 SMs)...
    const int64_t sms = dev.sm_count, micro_tiles = (s.m + 63) / 64 * ((s.n + 63) / 64);
    for (const int64_t bk : {64, 32}) {
        const int64_t slabs = (s.k + bk - 1) / bk;
        EXPECT_FALSE(hopper::small_tiles_pay(tiny_pairs, clusters, 0.25, micro_tiles, sms, 0.125, slabs))
            << s.name << " takes 64 x 64 tiles, slabs of " << bk;
    }
    // ...which kMicroTilesCutShape takes, where 128 x 64 pairs leave half of the clusters idle,
    // and cuts along k (one CTA a cluster).
    const ShapeSpec& micro = kMicroTilesCutShape;
    const int64_t micro_pairs = (micro.m + 127) / 128 * ((micro.n + 127) / 128);
    const int64_t micro_cut_tiles = (micro.m + 63) / 64 * ((micro.n + 63) / 64);
    ASSERT_LE(2 * micro_pairs, clusters) << micro.name << " takes 128 x 64 tiles";
    for (const int64_t bk : {64, 32}) {
        const int64_t slabs = (micro.k + bk - 1) / bk;
        EXPECT_TRUE(hopper::small_tiles_pay(micro_pairs, clusters, 0.25, micro_cut_tiles, sms, 0.125, slabs))
            << micro.name << ", slabs of " << bk;
        EXPECT_GT(hopper::stream_k_pairs(micro_cut_tiles, sms, slabs, 0.125), 0) << micro.name << ", slabs of " << bk;
    }
    // ...and kMidTilesCutShape takes a round of 128 x 192 pairs and cuts the last 25 along k.
    const ShapeSpec& mid_shape = kMidTilesCutShape;
    const int64_t wide = (mid_shape.m + 255) / 256 * ((mid_shape.n + 255) / 256);
    const int64_t mid = (mid_shape.m + 255) / 256 * ((mid_shape.n + 191) / 192);
    ASSERT_EQ(wide, 7 * 10) << mid_shape.name;
    ASSERT_EQ(mid, 7 * 13) << mid_shape.name;
    for (const auto& [bk, penalty] : {std::pair{64, hopper::kMidSlabPenalty16Bit}, std::pair{32, hopper::kMidSlabPenaltyTf32}}) {
        const int64_t slabs = (mid_shape.k + bk - 1) / bk;
        EXPECT_TRUE(hopper::narrow_tiles_pay(wide, mid, clusters, slabs, 0.75, penalty)) << mid_shape.name << ", slabs of " << bk;
        EXPECT_GT(hopper::stream_k_pairs(mid, clusters, slabs, 0.75), 0) << mid_shape.name << ", 128 x 192, slabs of " << bk;
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, KernelCorrectness, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<KernelCase>& p) { return p.param.name; });
// An empty registry is not an error of this suite.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(KernelCorrectness);

}  // namespace
}  // namespace gemmkit::test
