#include "nvtx_range.hpp"

#include <nvtx3/nvToolsExt.h>

namespace gemmkit::cli {

NvtxRange::NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }

}  // namespace gemmkit::cli
