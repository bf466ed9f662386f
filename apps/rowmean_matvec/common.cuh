// What every rowmean-matvec kernel file shares: launch limits. The techniques themselves live in
// the file that introduces them (v1: the shared-memory tree, v3: the warp shuffle), and later
// versions include earlier files, so diffing version N against N-1 shows only the new idea.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "rowmean_matvec/args.hpp"

namespace gemmkit::rowmean {

constexpr int kWarp = 32;
constexpr int kMaxThreads = 1024;  // per block, on every architecture gemmkit builds for
constexpr int64_t kDefaultSmemBytes = 48 * 1024;  // dynamic shared memory without an opt-in

constexpr int round_up(int x, int to) { return (x + to - 1) / to * to; }

}  // namespace gemmkit::rowmean
