// What the bench derives from a median time: TFLOP/s, and the device's peak for a type group.
// Shared by `gemmkit bench` (cmd_bench.cpp) and its shape suite (bench_shapes.cpp).
#pragma once

#include "analysis/device_info.hpp"
#include "cli_args.hpp"
#include "verify/verify.hpp"

namespace gemmkit::cli {

inline double tflops_of(const Shape& s, double ms) {
    return ms > 0 ? 2.0 * s.m * s.n * s.k / (ms * 1e-3) / 1e12 : 0;
}

// The device's peak for a type group: CUDA cores for FP32, tensor cores for TF32 and FP16/BF16,
// DMMA for FP64 where the device has it (else its FP64 CUDA cores).
inline double peak_of(const analysis::Peaks& peaks, const verify::Types& t) {
    if (t.compute == GEMMKIT_COMPUTE_32F_FAST_TF32) return peaks.tf32_tensor;
    if (t.ab == GEMMKIT_R_16F || t.ab == GEMMKIT_R_16BF) return peaks.fp16_tensor;
    if (t.ab == GEMMKIT_R_64F) return peaks.fp64_tensor > 0 ? peaks.fp64_tensor : peaks.fp64;
    return peaks.fp32;
}

inline double pct_of_peak(double tflops, double peak) { return peak > 0 ? 100.0 * tflops * 1e12 / peak : 0; }

}  // namespace gemmkit::cli
