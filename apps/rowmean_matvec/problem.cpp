#include "rowmean_matvec/problem.hpp"

#include <limits>
#include <utility>

namespace gemmkit::rowmean {

bool validate(const Sizes& s, std::string* why) {
    constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
    const std::pair<const char*, int64_t> sizes[] = {{"L", s.L}, {"M", s.M}, {"N", s.N}};
    for (const auto& [name, value] : sizes) {
        if (value < 1)
            return *why = std::string(name) + " = " + std::to_string(value) + ": every size must be at least 1", false;
        if (value > kIntMax)
            return *why = std::string(name) + " = " + std::to_string(value) + ": sizes are limited to " +
                          std::to_string(kIntMax) + " (the kernels index with int)",
                   false;
    }
    // 4 * N * L * M must not overflow int64: X alone would be more than 2^62 bytes.
    constexpr int64_t kMaxElements = (int64_t{1} << 62) / static_cast<int64_t>(sizeof(float));
    if (s.L * s.M > kMaxElements / s.N)
        return *why = "N x L x M = " + std::to_string(s.N) + " x " + std::to_string(s.L) + " x " +
                      std::to_string(s.M) + ": X would exceed 2^62 bytes",
               false;
    return true;
}

bool exact_in_float(const Sizes& s) {
    const bool m_power_of_two = s.M > 0 && (s.M & (s.M - 1)) == 0;
    // 4*L*M <= 2^24, written as a division so that no product can overflow.
    return m_power_of_two && s.L > 0 && s.L <= (int64_t{1} << 22) / s.M;
}

std::string to_string(const Sizes& s) {
    return std::to_string(s.L) + "x" + std::to_string(s.M) + "x" + std::to_string(s.N);
}

}  // namespace gemmkit::rowmean
