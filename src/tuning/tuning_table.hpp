// The tuning table: the fastest FP32 kernel per shape class, as `gemmkit tune` measured it.
// Its source is sgemm_table.csv next to this file; CMake turns it into a C++ table at
// configure time (cmake/tuning_table.cmake), and rebuilding after an edit regenerates it.
#pragma once

#include <span>
#include <string>

namespace gemmkit::tuning {

struct TunedKernel {
    const char* shape_class;  // shape_class.hpp's key
    const char* kernel;       // a registry name; plan_gemm checks it exists and fits
};

// Every row of sgemm_table.csv, in file order.
std::span<const TunedKernel> tuned_table();

// The kernel recorded for `cls`, or nullptr if the table has no row for it.
const char* tuned_kernel_for(const std::string& cls);

}  // namespace gemmkit::tuning
