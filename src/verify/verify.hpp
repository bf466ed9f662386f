// One verification: random seeded inputs, poisoned output, run a kernel through the
// library, compare with a double-precision reference (CPU for small sizes, cuBLAS FP64
// for large ones). Every type the library knows: FP32, TF32 compute, FP16/BF16, FP64.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gemmkit/gemmkit.h"
#include "problem.hpp"
#include "reference/cublas_gemm.hpp"
#include "registry.hpp"
#include "verify/compare.hpp"

namespace gemmkit::verify {

struct Case {
    gemmkit_op transa = GEMMKIT_OP_N, transb = GEMMKIT_OP_N;
    int64_t m = 0, n = 0, k = 0;
    int64_t ld_pad = 0;     // lda, ldb, ldc exceed the stored rows by this much
    int64_t offset = 0;     // A, B, C start this many elements into their buffers (misaligns them)
    double alpha = 1.0, beta = 0.0;
    bool nan_in_c = false;  // C starts as NaN (only meaningful with beta == 0: must not propagate)
    uint64_t seed = 1;
    gemmkit_dtype ab_type = GEMMKIT_R_32F, c_type = GEMMKIT_R_32F;  // A and B share a type
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;
};

// The plain case: op combination, sizes and seed; alpha = 1, beta = 0, tight leading dimensions, FP32.
inline Case make_case(gemmkit_op transa, gemmkit_op transb, int64_t m, int64_t n, int64_t k, uint64_t seed) {
    Case c;
    c.transa = transa;
    c.transb = transb;
    c.m = m;
    c.n = n;
    c.k = k;
    c.seed = seed;
    return c;
}

// The types of one GEMM: A and B, C, and the compute mode.
struct Types {
    gemmkit_dtype ab = GEMMKIT_R_32F, c = GEMMKIT_R_32F;
    gemmkit_compute compute = GEMMKIT_COMPUTE_32F;
    bool operator==(const Types&) const = default;
};

inline Types types_of(const Case& c) { return {c.ab_type, c.c_type, c.compute}; }
inline Case with_types(Case c, const Types& t) {
    c.ab_type = t.ab;
    c.c_type = t.c;
    c.compute = t.compute;
    return c;
}

// Short and unambiguous: "f32", "f16", "bf16->f32", "tf32", "f64"; an unusual compute mode
// is appended ("f32 c64f").
std::string types_name(const Types& t);

// The types a registry row is verified and timed with: A/B = row.dtype, compute = row.compute,
// C = A/B's type, or FP32 for FP16/BF16 rows when c_f32 (`--c-type f32`).
Types types_of(const KernelInfo& row, bool c_f32);

// Kernels that share their types, so one Checker (inputs and reference) serves them all.
struct KernelGroup {
    Types types;
    std::vector<const KernelInfo*> kernels;
};

// `rows` split by types_of(row, c_f32); groups in order of first appearance, rows in their order.
std::vector<KernelGroup> group_by_types(const std::vector<const KernelInfo*>& rows, bool c_f32);

// The Problem a Checker builds from the case, without its pointers: for asking a kernel
// whether it supports the case before any allocation. alpha and beta are the values the
// library receives (rounded to float unless compute is FP64).
Problem problem_of(const Case& c);

// "NT 127x129x33 ld+3 off+1 alpha=0.5 beta=2 seed=7" — one line that says exactly what ran;
// types other than plain FP32 lead it: "bf16->f32 NT 127x129x33 ...".
std::string describe(const Case& c);

struct Outcome {
    gemmkit_status status = GEMMKIT_SUCCESS;  // what the library returned
    std::string message;                       // gemmkit_last_error() when status != SUCCESS
    CompareResult result;                      // valid when status == SUCCESS
    bool cpu_reference = false;                // which reference was used
    int64_t outside_writes = 0;                // elements of C's buffer outside the m x n window that changed
    bool pass() const { return status == GEMMKIT_SUCCESS && result.pass && outside_writes == 0; }
};

// Products up to this many multiply-adds use the CPU reference; larger ones cuBLAS FP64.
constexpr double kCpuReferenceMaxMacs = 1 << 28;

// One case's inputs on the device (in the case's types) and its reference, computed once
// from exactly the values the kernel reads (A and B rounded to TF32 under TF32 compute), so
// several kernels (or timing runs) can share them. Throws std::runtime_error if the harness
// itself fails (allocation, copies, cuBLAS).
class Checker {
public:
    Checker(const Case& c, const ref::Cublas& blas, cudaStream_t stream);
    ~Checker();
    Checker(const Checker&) = delete;
    Checker& operator=(const Checker&) = delete;

    // Restores C to its starting contents, runs `kernel` (a registry name or "auto")
    // through gemmkit_gemm_ex with the case's types, and compares with the reference in C's type.
    Outcome run(const char* kernel);

    // The problem on the device buffers (for timing; C is overwritten).
    const Problem& problem() const { return problem_; }
    bool cpu_reference() const { return cpu_reference_; }

private:
    struct Buffers;
    struct Reference;
    void reset_c();
    const Reference& reference(Tf32Inputs tf32);

    Case case_;
    const ref::Cublas& blas_;
    cudaStream_t stream_;
    std::unique_ptr<Buffers> buf_;
    Problem problem_;
    bool cpu_reference_ = false;
};

// How `kernel` (a registry name, or "auto" on the current device) hands FP32 A and B of p to the
// tensor cores: exact unless p's compute is GEMMKIT_COMPUTE_32F_FAST_TF32, then rounded or
// truncated to TF32 (KernelInfo::truncates_tf32).
Tf32Inputs tf32_inputs_of(const char* kernel, const Problem& p);

// Checker(c, blas, stream).run(kernel): one case, one kernel.
Outcome run_case(const char* kernel, const Case& c, const ref::Cublas& blas, cudaStream_t stream);

}  // namespace gemmkit::verify
