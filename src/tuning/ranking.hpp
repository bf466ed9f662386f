// How `gemmkit tune` ranks a class's candidates from the times it measured on the class's
// representatives: by geometric-mean TFLOP/s, among the candidates that fall off no cliff. A
// candidate falls off one when its worst ratio to cuBLAS over the representatives is more than
// kCliffPoints below the best candidate's worst ratio. A geometric mean alone can pick a tile
// that ties on average and falls off on one shape; the worst ratio alone chose tiles that win
// on ragged shapes and lose on aligned ones (docs/ladder/fp32.md#lab-tuning-per-op, change 3).
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
