// The case study's GPU versions, in order. The CLI verifies and times them from this table and a
// profiler selects one by name (--versions v3) and its kernels by their names (ncu --kernel-name
// regex:rowmean_v3_). The `cpu` row is the reference itself (cpu_reference.hpp), not listed here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "rowmean_matvec/args.hpp"

namespace gemmkit::rowmean {

// A __global__ function of a version: its source name (unique: "rowmean_<version>_...kernel")
// and its host entry (for cudaFuncGetAttributes). The table takes both from one token, so the
// name cannot drift from the function.
struct KernelRef {
    const char* name;
    const void* entry;
};

struct Version {
    const char* name;                      // "v1" ... "v5", what --versions matches
    const char* description;               // the technique, one line
    std::vector<KernelRef> kernels;        // its own kernels, in launch order
    bool calls_sgemm;                      // v5: also the kernel gemmkit_sgemm picks (auto)
    bool (*supports)(const Sizes& s, std::string* why);  // false: *why names the limit
    int64_t (*workspace_floats)(const Sizes& s);         // device floats in Args::workspace
    // Launches on `stream`: X, W read; Y (and the workspace) written. Asynchronous: the launch
    // error, or for v5 gemmkit_sgemm's status as a CUDA error (then gemmkit_last_error() says why).
    cudaError_t (*run)(const Args& a, cudaStream_t stream);
};

const std::vector<Version>& versions();

// Exact name; nullptr if none.
const Version* find_version(const std::string& name);

}  // namespace gemmkit::rowmean
