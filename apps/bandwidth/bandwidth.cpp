#include "bandwidth/bandwidth.hpp"

#include <cmath>
#include <stdexcept>

namespace gemmkit::bandwidth {
namespace {

// 4096 MiB: the largest default size (8 GiB of x and y), a few seconds on any current GPU.
constexpr int64_t kDefaultMaxMib = 4096;

// 16 TiB per buffer: far beyond any GPU, and small enough that 2 x size never overflows.
constexpr int64_t kMaxMib = int64_t{1} << 24;

int64_t budget_bytes(int64_t free_bytes) {
    return static_cast<int64_t>(kMemoryFraction * static_cast<double>(free_bytes));
}

}  // namespace

const char* op_name(Op op) {
    switch (op) {
        case Op::kSaxpy: return "saxpy";
        case Op::kCopyKernel: return "copy.kernel";
        case Op::kCopyMemcpy: return "copy.memcpy";
    }
    throw std::invalid_argument("op_name: not an Op");
}

int64_t bytes_per_element(Op op) {
    constexpr int64_t kFloat = sizeof(float);
    switch (op) {
        case Op::kSaxpy: return 3 * kFloat;  // read x, read y, write y
        case Op::kCopyKernel:
        case Op::kCopyMemcpy: return 2 * kFloat;  // read x, write y
    }
    throw std::invalid_argument("bytes_per_element: not an Op");
}

int64_t bytes_moved(Op op, int64_t elements) {
    if (elements < 0) throw std::invalid_argument("bytes_moved: " + std::to_string(elements) + " elements");
    return bytes_per_element(op) * elements;
}

int rotation_sets(int64_t set_bytes, int64_t l2_bytes) {
    if (set_bytes <= 0) throw std::invalid_argument("rotation_sets: a set of " + std::to_string(set_bytes) + " bytes");
    if (l2_bytes <= 0 || set_bytes >= 2 * l2_bytes) return 1;
    return static_cast<int>(1 + (2 * l2_bytes + set_bytes - 1) / set_bytes);
}

int64_t footprint_bytes(int64_t size_bytes, int64_t l2_bytes) {
    const int64_t set_bytes = kBuffersPerSet * size_bytes;
    return rotation_sets(set_bytes, l2_bytes) * set_bytes;
}

std::vector<int64_t> default_sizes_mib(int64_t free_bytes, int64_t l2_bytes) {
    std::vector<int64_t> mib;
    for (int64_t m = 1; m <= kDefaultMaxMib && footprint_bytes(m * kMiB, l2_bytes) <= budget_bytes(free_bytes); m *= 2)
        mib.push_back(m);
    return mib;
}

bool check_sizes_mib(const std::vector<int64_t>& mib, int64_t free_bytes, int64_t l2_bytes, std::string* err) {
    if (mib.empty()) return *err = "no sizes given", false;
    for (int64_t m : mib) {
        if (m < 1) return *err = "size " + std::to_string(m) + " MiB: sizes are at least 1 MiB", false;
        if (m > kMaxMib) return *err = "size " + std::to_string(m) + " MiB is beyond any GPU's memory", false;
        const int64_t need = footprint_bytes(m * kMiB, l2_bytes), budget = budget_bytes(free_bytes);
        if (need > budget)
            return *err = "size " + std::to_string(m) + " MiB needs " + std::to_string(need / kMiB) +
                          " MiB of buffers, more than 40% of the free memory (" + std::to_string(budget / kMiB) +
                          " of " + std::to_string(free_bytes / kMiB) + " MiB)",
                   false;
    }
    return true;
}

double gb_per_s(int64_t bytes, double ms) {
    if (bytes < 0 || !(ms > 0) || !std::isfinite(ms))
        throw std::invalid_argument("gb_per_s: " + std::to_string(bytes) + " bytes in " + std::to_string(ms) + " ms");
    return static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

double theoretical_gb_per_s(const analysis::DeviceInfo& d) {
    return analysis::theoretical_peaks(d).dram_bandwidth / 1e9;
}

double percent_of_peak(double gbps, double peak_gbps) { return peak_gbps > 0 ? 100.0 * gbps / peak_gbps : 0; }

}  // namespace gemmkit::bandwidth
