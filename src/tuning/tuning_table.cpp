#include "tuning/tuning_table.hpp"

#include <iterator>

namespace gemmkit::tuning {
namespace {

// Generated from src/tuning/sgemm_table.csv by cmake/tuning_table.cmake.
constexpr TunedKernel kRows[] = {
#include "sgemm_tuning_table.inc"
    {nullptr, nullptr},  // end marker: keeps the array non-empty when the CSV has no rows
};
constexpr size_t kCount = std::size(kRows) - 1;

}  // namespace

std::span<const TunedKernel> tuned_table() { return {kRows, kCount}; }

const char* tuned_kernel_for(const std::string& cls) {
    for (const TunedKernel& row : tuned_table())
        if (cls == row.shape_class) return row.kernel;
    return nullptr;
}

}  // namespace gemmkit::tuning
