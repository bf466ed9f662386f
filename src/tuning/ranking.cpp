#include "tuning/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gemmkit::tuning {
namespace {

// The geometric mean of positive values (rank_candidates checks them; never empty there).
double geometric_mean(const std::vector<double>& values) {
    double log_sum = 0;
    for (double x : values) log_sum += std::log(x);
    return std::exp(log_sum / static_cast<double>(values.size()));
}

}  // namespace

std::vector<RankedCandidate> rank_candidates(const std::vector<CandidateTimes>& candidates,
                                             const std::vector<double>& cublas_tflops) {
    auto all_positive = [](const std::vector<double>& v) {
        return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
    };
    if (cublas_tflops.empty() || !all_positive(cublas_tflops))
        throw std::invalid_argument("rank_candidates: cublas_tflops needs one positive value per representative");
    std::vector<RankedCandidate> out;
    for (const CandidateTimes& c : candidates) {
        if (c.tflops.size() != cublas_tflops.size() || !all_positive(c.tflops))
            throw std::invalid_argument("rank_candidates: " + c.kernel +
                                        " needs one positive TFLOP/s per representative");
        double worst = c.tflops[0] / cublas_tflops[0];
        for (size_t i = 1; i < c.tflops.size(); ++i) worst = std::min(worst, c.tflops[i] / cublas_tflops[i]);
        out.push_back({c.kernel, worst, geometric_mean(c.tflops), false});
    }
    double best_worst = 0;
    for (const RankedCandidate& r : out) best_worst = std::max(best_worst, r.worst_ratio);
    for (RankedCandidate& r : out) r.off_a_cliff = 100.0 * (best_worst - r.worst_ratio) > kCliffPoints;
    // Stable: of exact ties, the candidate listed first (the registry's order) stays first.
    std::stable_sort(out.begin(), out.end(), [](const RankedCandidate& a, const RankedCandidate& b) {
        if (a.off_a_cliff != b.off_a_cliff) return !a.off_a_cliff;
        return a.geomean_tflops > b.geomean_tflops;
    });
    return out;
}

}  // namespace gemmkit::tuning
