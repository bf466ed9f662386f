// `gemmkit bandwidth` arithmetic: which sizes to run, how many bytes an op moves, GB/s and % of the
// device's theoretical DRAM bandwidth. Pure host code, tested without a device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/device_info.hpp"

namespace gemmkit::bandwidth {

// The three measured ops, each over n floats: y = a*x + y, then x -> y by our kernel and by the driver.
enum class Op { kSaxpy, kCopyKernel, kCopyMemcpy };
inline constexpr Op kOps[] = {Op::kSaxpy, Op::kCopyKernel, Op::kCopyMemcpy};

// "saxpy", "copy.kernel", "copy.memcpy"
const char* op_name(Op op);

// DRAM bytes one element costs: SAXPY reads x and y and writes y (12); a copy reads and writes (8).
int64_t bytes_per_element(Op op);

// bytes_per_element(op) * elements; throws std::invalid_argument for elements < 0.
int64_t bytes_moved(Op op, int64_t elements);

inline constexpr int64_t kMiB = int64_t{1} << 20;

// a of y = a*x + y: not a power of two, so a*x rounds and only a fused multiply-add (one
// rounding, as in the kernel) reproduces the output bit for bit.
inline constexpr float kSaxpyAlpha = 0.7f;

// Every op uses two buffers (x and y) of the size, so a call's working set is 2 x size.
inline constexpr int kBuffersPerSet = 2;

// Buffer sets a size needs so that a set is reused only after at least 2 x L2 of other sets'
// traffic, i.e. every call reads DRAM, not the L2 the previous call filled: 1 when one set
// (set_bytes) is itself >= 2 x L2, else 1 + ceil(2 x L2 / set_bytes). set_bytes > 0.
int rotation_sets(int64_t set_bytes, int64_t l2_bytes);

// Device bytes a size takes with its rotation: rotation_sets x 2 buffers x size_bytes.
int64_t footprint_bytes(int64_t size_bytes, int64_t l2_bytes);

// All buffers together stay within 40% of the free memory: the rest is the driver's, other
// processes', and headroom for the fill and verification kernels.
inline constexpr double kMemoryFraction = 0.4;

// 1, 2, 4, ... 4096 MiB, stopping before the first size whose footprint exceeds 40% of
// free_bytes (empty when not even 1 MiB fits).
std::vector<int64_t> default_sizes_mib(int64_t free_bytes, int64_t l2_bytes);

// A --mib list is usable: not empty, every size >= 1 MiB, each footprint within 40% of
// free_bytes. Otherwise false, with *err naming the size and why.
bool check_sizes_mib(const std::vector<int64_t>& mib, int64_t free_bytes, int64_t l2_bytes, std::string* err);

// Decimal GB/s (1 GB = 1e9 bytes), the unit DRAM bandwidth is specified in. Throws
// std::invalid_argument unless bytes >= 0 and ms > 0 (a zero time is a timing bug).
double gb_per_s(int64_t bytes, double ms);

// 2 transfers per memory clock x bus width / 8, as `gemmkit info` reports it, in GB/s.
double theoretical_gb_per_s(const analysis::DeviceInfo& d);

// 100 x gbps / peak_gbps; 0 when the peak is unknown (<= 0), as `gemmkit info` shows unknown peaks.
double percent_of_peak(double gbps, double peak_gbps);

}  // namespace gemmkit::bandwidth
