// How `gemmkit tune` ranks a class's candidates from the times it measured on the class's
// representatives: by geometric-mean TFLOP/s, among the candidates that fall off no cliff. A
// candidate falls off one when its worst ratio to cuBLAS over the representatives is more than
// kCliffPoints below the best candidate's worst ratio. (H100, tiles<=64/k<=1024/aligned/TT: by
// geometric mean 64x128 and 128x64 tied, 64x128 ahead by 4.6% at 1024^3 and behind by 4.8% at
// 1000^3, where it ran at 89.4% of cuBLAS against 94.2%. Ranking by the worst ratio alone chose
// tiles that win on the ragged 4072^3 and lose on 4096^3: NT 4096^3 99.2 -> 96.5%, NN
// 2048x2048x1024 94.8 -> 92.1%.)
#pragma once

#include <string>
#include <vector>

namespace gemmkit::tuning {

// Twice the run-to-run noise of a ratio to cuBLAS at large sizes (about 1.5 points), in points.
constexpr double kCliffPoints = 3.0;

struct CandidateTimes {
    std::string kernel;
    std::vector<double> tflops;  // one per representative, in the class's order
};

struct RankedCandidate {
    std::string kernel;
    double worst_ratio;     // min over representatives of tflops / cuBLAS's tflops there
    double geomean_tflops;  // geometric mean of tflops over the representatives
    bool off_a_cliff;       // worst_ratio more than kCliffPoints below the best one
};

// Best first: the candidates off no cliff by geometric mean, then the others by geometric mean.
// cublas_tflops has one entry per representative, as does every candidate's tflops
// (std::invalid_argument otherwise, or when a time is not positive).
std::vector<RankedCandidate> rank_candidates(const std::vector<CandidateTimes>& candidates,
                                             const std::vector<double>& cublas_tflops);

}  // namespace gemmkit::tuning
