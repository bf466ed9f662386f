// A named NVTX range for the lifetime of a scope, so Nsight Systems timelines show which
// benchmarked call each kernel belongs to. NVTX is header-only and costs nothing when no
// profiler is attached.
#pragma once

#include <string>

namespace gemmkit::cli {

class NvtxRange {
public:
    explicit NvtxRange(const std::string& name);
    ~NvtxRange();
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace gemmkit::cli
