// gemmkit profile TARGET: Nsight Compute on exactly one launch of one kernel, summarized.
// TARGET is a registered kernel (its first launch inside `gemmkit bench`, the verification run)
// or a case-study version rowmean.v1 .. rowmean.v5 (inside `gemmkit rowmean-matvec`).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "commands.hpp"
#include "ncu_report.hpp"
#include "rowmean_matvec/versions.hpp"

namespace gemmkit::cli {
namespace {

// Sections and metrics behind the summary: speed of light, occupancy, launch resources,
// memory hit rates, scheduler state; bank conflicts as raw counters.
const char kNcuSelection[] =
    "--section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis "
    "--section SchedulerStats --section WarpStateStats "
    "--metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

std::string find_on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path != nullptr ? path : "");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
        if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return "";
}

// Single quotes for the shell, with embedded quotes closed and escaped.
std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string self_path() {
    std::error_code ec;
    const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("gemmkit") : p.string();
}

std::string shape_text(const Shape& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

// TARGET names exactly one kernel, or a case-study version rowmean.v1 .. rowmean.v5; else *err
// says why. Needs no device.
bool check_target(const Options& o, const std::string& target, std::string* err) {
    if (target.rfind("rowmean.", 0) == 0) {
        for (const rowmean::Version& v : rowmean::versions())
            if (target.substr(8) == v.name) return true;
        *err = "'" + target + "' is not a version of the case study: rowmean.v1 .. rowmean.v5";
        return false;
    }
    Options sel = o;
    sel.kernels = target;
    const size_t matches = selected_kernels(sel).size();
    if (matches == 1) return true;
    *err = "'" + target + "' matches " + std::to_string(matches) +
           " kernels; name exactly one (gemmkit list), or rowmean.v1 .. rowmean.v5";
    return false;
}

// What to run under ncu and how ncu recognizes the kernel, for a TARGET check_target accepted;
// false with *err if the kernel's function name cannot be read.
bool plan_target(const Options& o, const std::string& target, std::string* child, std::string* filter,
                 std::string* err) {
    const std::string self = quote(self_path());
    if (target.rfind("rowmean.", 0) == 0) {
        const std::string version = target.substr(8);
        const std::string lmn = o.lmn.empty() ? "512x512x1024" : shape_text(o.lmn.front());
        *child = self + " rowmean-matvec --versions " + quote(version) + " --lmn " + lmn +
                 " --warmup 0 --iters 1 --quiet";
        *filter = "--kernel-name-base function -k " + quote("regex:rowmean_" + version);
        return true;
    }
    Options sel = o;
    sel.kernels = target;
    const auto kernels = selected_kernels(sel);  // one: check_target
    const char* mangled = nullptr;
    if (cudaFuncGetName(&mangled, kernels[0]->entry()) != cudaSuccess || mangled == nullptr) {
        *err = std::string("cannot read the function name of ") + kernels[0]->name;
        return false;
    }
    const std::string mnk = o.shapes.empty() ? "4096" : shape_text(o.shapes.front());
    // The registry's entry is the NN instance with 16-byte loads: what an aligned NN bench runs.
    *child = self + " bench --kernels " + quote(kernels[0]->name) + " --mnk " + mnk + " --warmup 0 --iters 1 --quiet";
    *filter = "--kernel-name-base mangled -k " + quote(mangled);
    return true;
}

void line(const char* label, const std::string& value) {
    if (!value.empty()) std::printf("  %-26s %s\n", label, value.c_str());
}

std::string with_unit(const NcuReport& r, const std::string& name) {
    std::string unit;
    const std::string v = r.value(name, &unit);
    return v.empty() ? "" : v + (unit.empty() ? "" : " " + unit);
}

}  // namespace

int cmd_profile(const Options& o) {
    std::string child, filter, err;
    if (o.positional.empty()) err = "name a kernel (gemmkit list) or rowmean.v1 .. rowmean.v5";
    if (!err.empty() || !check_target(o, o.positional[0], &err)) {
        std::fprintf(stderr, "gemmkit profile: %s (see gemmkit profile --help)\n", err.c_str());
        return 2;
    }
    const std::string ncu = find_on_path("ncu");
    if (ncu.empty()) {
        std::fprintf(stderr,
                     "ncu (Nsight Compute) is not on PATH: gemmkit profile needs it to read the hardware counters.\n");
        return 1;
    }
    if (!require_device("profile")) return 1;
    if (!plan_target(o, o.positional[0], &child, &filter, &err)) {
        std::fprintf(stderr, "gemmkit profile: %s\n", err.c_str());
        return 1;
    }
    // --clock-control none: measure at the clocks the GPU runs anyway, as the bench does.
    const std::string command = quote(ncu) + " --clock-control none --target-processes all --launch-count 1 " + filter +
                                " " + kNcuSelection + " " + child + " 2>&1";
    const std::string report_path =
        o.write.empty() ? (std::filesystem::temp_directory_path() / ("gemmkit-profile-" + std::to_string(getpid()) + ".txt")).string()
                      : o.write;
    if (!o.quiet) std::fprintf(stderr, "running: %s\n", command.c_str());
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        std::fprintf(stderr, "gemmkit profile: cannot start ncu\n");
        return 1;
    }
    std::string text;
    char buf[4096];
    while (size_t got = std::fread(buf, 1, sizeof buf, pipe)) text.append(buf, got);
    const int status = pclose(pipe);
    std::ofstream(report_path) << text;

    const NcuReport r = parse_ncu_report(text);
    if (r.kernel.empty()) {
        std::fprintf(stderr, "gemmkit profile: ncu profiled no kernel (exit status %d); its output is in %s\n", status,
                     report_path.c_str());
        return 1;
    }
    std::printf("%s\n", r.kernel.c_str());
    line("duration", with_unit(r, "Duration"));
    line("SM throughput", with_unit(r, "Compute (SM) Throughput"));
    line("memory throughput", with_unit(r, "Memory Throughput"));
    line("DRAM throughput", with_unit(r, "DRAM Throughput"));
    line("achieved occupancy", with_unit(r, "Achieved Occupancy"));
    line("theoretical occupancy", with_unit(r, "Theoretical Occupancy"));
    line("registers/thread", with_unit(r, "Registers Per Thread"));
    line("static shared memory", with_unit(r, "Static Shared Memory Per Block"));
    line("dynamic shared memory", with_unit(r, "Dynamic Shared Memory Per Block"));
    line("shared ld bank conflicts", with_unit(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
    line("shared st bank conflicts", with_unit(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
    line("L1/TEX hit rate", with_unit(r, "L1/TEX Hit Rate"));
    line("L2 hit rate", with_unit(r, "L2 Hit Rate"));
    line("issue slots busy", with_unit(r, "Issue Slots Busy"));
    line("no eligible warp", with_unit(r, "No Eligible"));
    if (!r.findings.empty()) {
        std::printf("  ncu findings:\n");
        size_t shown = 0;
        for (const NcuFinding& f : r.findings)
            if (f.kind != "INF" && shown++ < 5)
                std::printf("    %s %s%s\n", f.kind.c_str(), f.text.c_str(),
                            f.estimate.empty() ? "" : (" [" + f.estimate + "]").c_str());
    }
    std::printf("  full report: %s\n", report_path.c_str());
    return 0;
}

}  // namespace gemmkit::cli
