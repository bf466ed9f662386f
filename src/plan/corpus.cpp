#include "plan/corpus.hpp"

#include <cstdint>

#include "plan/plan.hpp"

namespace gemmkit {
namespace {

struct TypeOf {
    const char* name;
    gemmkit_dtype ab, c;
    gemmkit_compute compute;
    bool fast_accum = false;  // FP8: Scaling::fast_accum
};
constexpr TypeOf kTypes[] = {
    {"f32", GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F},
    {"tf32", GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32},
    {"f16", GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F},
    {"bf16", GEMMKIT_R_16BF, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F},
    {"f16.f32c", GEMMKIT_R_16F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F},
    {"bf16.f32c", GEMMKIT_R_16BF, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F},
    {"f64", GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F},
};
// FP8 (gemmkit_gemm_scaled_ex's calls): E4M3 A and B, C in BF16, per-tensor scales; ".fast" asks
// for fast_accum. Only op(A) = T, op(B) = N runs, so they have a block of their own below.
constexpr TypeOf kFp8Types[] = {
    {"e4m3", GEMMKIT_R_8F_E4M3, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, false},
    {"e4m3.fast", GEMMKIT_R_8F_E4M3, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, true},
};

// Fake operand addresses, 256-byte aligned and far apart (the plan reads only their alignment).
constexpr uintptr_t kFakeA = uintptr_t{1} << 40, kFakeB = uintptr_t{2} << 40, kFakeC = uintptr_t{3} << 40;

struct Shape {
    int64_t m, n, k;
};

}  // namespace

bool problem_of(const PlanCase& c, Problem* p, std::string* why) {
    const TypeOf* t = nullptr;
    for (const TypeOf& candidate : kTypes)
        if (c.type == candidate.name) t = &candidate;
    for (const TypeOf& candidate : kFp8Types)
        if (c.type == candidate.name) t = &candidate;
    if (t == nullptr) {
        *why = "type = '" + c.type + "': use f32, tf32, f16, bf16, f16.f32c, bf16.f32c, f64, e4m3 or e4m3.fast";
        return false;
    }
    Problem q;
    q.transa = c.transa, q.transb = c.transb;
    q.m = c.m, q.n = c.n, q.k = c.k;
    q.a_type = q.b_type = t->ab;
    q.c_type = t->c;
    q.compute = t->compute;
    q.scaling.fast_accum = t->fast_accum;
    q.A = reinterpret_cast<const void*>(kFakeA);
    q.B = reinterpret_cast<const void*>(kFakeB);
    q.C = reinterpret_cast<void*>(kFakeC);
    q.lda = stored_rows_a(q) + c.pad;
    q.ldb = stored_rows_b(q) + c.pad;
    q.ldc = q.m + c.pad;
    if (q.lda < 1) q.lda = 1;
    if (q.ldb < 1) q.ldb = 1;
    if (q.ldc < 1) q.ldc = 1;
    q.alpha = 1.0;
    q.beta = c.beta ? 1.0 : 0.0;
    if (c.batch != 1) {
        q.batch.count = c.batch;
        q.batch.stride_a = q.lda * (q.transa == GEMMKIT_OP_N ? q.k : q.m);
        q.batch.stride_b = q.ldb * (q.transb == GEMMKIT_OP_N ? q.n : q.k);
        q.batch.stride_c = q.ldc * q.n;
    }
    *p = q;
    return true;
}

std::string case_name(const PlanCase& c) {
    return c.type + " " + ops_name(c.transa, c.transb) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
           std::to_string(c.k) + " pad" + std::to_string(c.pad) + " beta" + (c.beta ? "1" : "0") +
           (c.batch != 1 ? " batch " + std::to_string(c.batch) : "");
}

std::vector<PlanCase> plan_corpus() {
    // Every type, NN and TN.
    const Shape common[] = {
        // cubes: one tile to many rounds, and unaligned
        {64, 64, 64}, {256, 256, 256}, {384, 384, 384}, {512, 512, 512}, {640, 640, 640}, {768, 768, 768},
        {1000, 1000, 1000}, {1024, 1024, 1024}, {1280, 1280, 1280}, {1536, 1536, 1536}, {2048, 2048, 2048},
        {3072, 3072, 3072}, {4096, 4096, 4096}, {4097, 4097, 4097}, {8192, 8192, 8192},
        // matrix x few vectors, and few rows
        {4096, 1, 4096}, {4096, 16, 4096}, {14336, 16, 4096}, {4096, 32, 4096}, {4096, 64, 4096},
        {14336, 64, 4096}, {8192, 64, 8192}, {1024, 64, 8192}, {4096, 128, 4096}, {16, 4096, 4096},
        {128, 4096, 4096}, {64, 2112, 7168},
        // deep k on a small C
        {512, 512, 8192}, {256, 256, 16384}, {64, 64, 16384}, {128, 128, 32768}, {64, 64, 65536},
        // wide k = 1024, and rectangles
        {8192, 8192, 1024}, {2048, 2048, 1024}, {16384, 16384, 1024}, {3000, 5000, 2000},
        {1000, 1000, 5000}, {200, 250, 12000},
        // tiny and odd
        {1, 1, 1}, {7, 33, 129}, {33, 7, 1},
    };
    // Every type, all four ops, packed and with odd leading dimensions (copies), and beta != 0.
    const Shape edges[] = {{1000, 1000, 1000}, {4097, 4097, 4097}, {4096, 16, 4096}, {3000, 5000, 2000},
                           {2049, 2049, 2049}, {8196, 8196, 1024}};
    // 16-bit and TF32: an A of 192 MiB and more whose columns start on odd multiples of 16 bytes.
    const Shape large_a[] = {{12296, 4096, 12296}};
    // Every type, NN and TN: strided batches (issue 41's, as torch.bmm sends them, and odd ones).
    struct BatchShape {
        int64_t batch;
        Shape s;
    };
    const BatchShape batches[] = {{64, {512, 512, 128}}, {64, {128, 512, 512}}, {512, {128, 128, 128}},
                                  {1024, {64, 64, 64}},  {16, {2048, 2048, 2048}}, {3, {7, 33, 129}},
                                  {8, {4096, 16, 4096}}, {2, {4096, 4096, 4096}}};

    // FP8, op(A) = T and op(B) = N (A and B K-major): the FP8 issue's rows (#42), and odd m and n.
    const Shape fp8_shapes[] = {{4096, 4096, 4096},  {8192, 8192, 8192}, {4096, 7168, 16384}, {4096, 4096, 7168},
                                {128, 7168, 16384}, {64, 2112, 7168},   {1000, 17, 4096},    {7, 33, 128}};

    std::vector<PlanCase> cases;
    const gemmkit_op N = GEMMKIT_OP_N, T = GEMMKIT_OP_T;
    for (const TypeOf& t : kTypes)
        for (const Shape& s : common)
            for (gemmkit_op a : {N, T}) cases.push_back({t.name, a, N, s.m, s.n, s.k, 0, false});
    for (const TypeOf& t : kTypes)
        for (const Shape& s : edges)
            for (gemmkit_op a : {N, T})
                for (gemmkit_op b : {N, T}) {
                    cases.push_back({t.name, a, b, s.m, s.n, s.k, 0, false});
                    cases.push_back({t.name, a, b, s.m, s.n, s.k, 1, false});
                    cases.push_back({t.name, a, b, s.m, s.n, s.k, 0, true});
                }
    for (const char* type : {"f16", "bf16", "tf32"})
        for (const Shape& s : large_a)
            for (gemmkit_op a : {N, T}) cases.push_back({type, a, N, s.m, s.n, s.k, 0, false});
    for (const TypeOf& t : kTypes)
        for (const BatchShape& b : batches)
            for (gemmkit_op a : {N, T}) cases.push_back({t.name, a, N, b.s.m, b.s.n, b.s.k, 0, false, b.batch});
    for (const TypeOf& t : kFp8Types)
        for (const Shape& s : fp8_shapes) cases.push_back({t.name, T, N, s.m, s.n, s.k, 0, false});
    return cases;
}

std::string corpus_text(const DeviceFacts& d) {
    std::string out;
    for (const PlanCase& c : plan_corpus()) {
        Problem p;
        std::string why;
        Plan plan;
        out += case_name(c) + ": ";
        if (!problem_of(c, &p, &why) || !plan_gemm(p, d, nullptr, &plan, &why))
            out += "no plan (" + why + ")\n";
        else
            out += plan_summary(plan) + "\n";
    }
    return out;
}

}  // namespace gemmkit
