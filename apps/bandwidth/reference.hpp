// The CPU twin of the SAXPY kernel and the bit-exact check that verifies the bandwidth ops:
// which elements to read back, and how to compare them. Pure host code, tested without a device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmkit::bandwidth {

// fmaf(a, x, y): a*x + y with one rounding, exactly what the kernel's fmaf (one FFMA) computes,
// so the two agree bit for bit. a*x then + y would round twice and differ in the last bit.
float saxpy_value(float a, float x, float y);

// out[i] = saxpy_value(a, x[i], y[i]); throws std::invalid_argument if x and y differ in length.
std::vector<float> saxpy_reference(float a, const std::vector<float>& x, const std::vector<float>& y);

// Elements [first, first + count) of an array.
struct IndexRun {
    int64_t first = 0, count = 0;
    bool operator==(const IndexRun&) const = default;
};

// Arrays up to 64 MiB (16 Mi floats) are checked whole: copying them back takes milliseconds.
inline constexpr int64_t kCheckAllElements = (int64_t{64} << 20) / sizeof(float);
// Beyond that: the first and last 1024 (the head, the grid-stride wrap and the scalar tail) and
// 4096 seeded random ones in between (a fault touching 0.1% of the elements is caught with
// probability 1 - 0.999^4096 = 98%).
inline constexpr int64_t kCheckEdge = 1024;
inline constexpr int64_t kCheckRandom = 4096;

// The elements to check of an n-element array (n >= 1, else std::invalid_argument): [0, n) when
// n <= kCheckAllElements, else head, sorted random indices (same seed, same indices), tail;
// ascending, non-overlapping, adjacent indices merged into one run.
std::vector<IndexRun> check_runs(int64_t n, uint64_t seed);

// Sum of the runs' counts.
int64_t elements_in(const std::vector<IndexRun>& runs);

struct CheckResult {
    int64_t checked = 0, mismatches = 0;
    int64_t first_index = -1;  // array index of the first mismatch
    float want = 0, got = 0;   // at first_index
    bool pass() const { return checked > 0 && mismatches == 0; }
};

// want and got hold the runs' elements in run order (elements_in(runs) each, else
// std::invalid_argument); equal means equal bits, so a NaN or a -0 for +0 is a mismatch.
CheckResult compare_bits(const std::vector<IndexRun>& runs, const std::vector<float>& want,
                         const std::vector<float>& got);

// "6144 of 6144 elements bit-exact", or
// "3 of 6144 elements differ; first y[17] = 0x3f800000 (1), want 0x3f800001 (1.00000012)"
std::string describe(const CheckResult& r);

}  // namespace gemmkit::bandwidth
