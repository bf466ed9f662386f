// One function per `gemmkit` subcommand; each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "analysis/device_info.hpp"
#include "cli_args.hpp"
#include "registry.hpp"

namespace gemmkit::cli {

int cmd_list(const Options& o);
int cmd_verify(const Options& o);
int cmd_bench(const Options& o);
int cmd_tune(const Options& o);
int cmd_explain(const Options& o);
int cmd_info(const Options& o);
int cmd_bandwidth(const Options& o);
int cmd_rowmean_matvec(const Options& o);
int cmd_profile(const Options& o);
int cmd_plan(const Options& o);
int cmd_dist_bench(const Options& o);

// bench --suite shapes: the shape corpus, auto against cuBLAS for each type (bench_shapes.cpp).
int bench_shapes(const Options& o);
// bench --suite batched: the batched corpus, auto against cuBLAS's batched calls (bench_batched.cpp).
int bench_batched(const Options& o);
// bench --suite epilogue: linear layers with a fused bias and activation against cuBLASLt's
// epilogues (bench_epilogue.cpp).
int bench_epilogue(const Options& o);
// bench --suite grouped: mixture-of-experts layers, auto's grouped GEMM against cuBLAS's loop and
// grouped calls (bench_grouped.cpp).
int bench_grouped(const Options& o);
// bench --suite fp8: FP8 GEMMs with per-tensor and outer-vector scales, gemmkit_gemm_scaled_ex
// against cuBLASLt's FP8 matmul (bench_fp8.cpp).
int bench_fp8(const Options& o);

// The facts of --device (a built-in name, or "current": the GPU's, where there is one; false and
// a message on stderr otherwise), and the plans of o's shapes, ops and type printed with their
// reasons; returns the kernels they chose (gemmkit plan, gemmkit explain --mnk).
bool plan_facts(const std::string& device, const char* command, DeviceFacts* d);
std::vector<const KernelInfo*> print_plans(const Options& o, const DeviceFacts& d);

// The device, or false with *why saying in plain words why there is none (no_device_reason).
bool find_device(analysis::DeviceInfo* info, std::string* why);

// The sentence every GPU command ends with when there is no device: "gemmkit <command> needs an
// NVIDIA GPU (sm_80 or newer); none is usable here: <why>." Returns false (and prints it) when none.
bool require_device(const char* command, analysis::DeviceInfo* info = nullptr);

// Registry entries whose names match the --kernels globs, in registry order.
std::vector<const KernelInfo*> selected_kernels(const Options& o);

}  // namespace gemmkit::cli
