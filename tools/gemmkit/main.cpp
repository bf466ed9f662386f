// gemmkit — list, verify, benchmark, tune and explain the GEMM kernels.
#include <cstdio>
#include <exception>

#include "commands.hpp"

namespace {

const char kUsage[] =
    "usage: gemmkit <command> [options]\n"
    "\n"
    "commands:\n"
    "  list                 the registered kernels and what each serves at full speed\n"
    "  verify               check kernels against a double-precision reference\n"
    "  bench                verify, then time kernels against cuBLAS (default: the ladder suite)\n"
    "  tune                 time the FP32 configurations (default: steps 11+) per shape class;\n"
    "                       --write FILE records the winners for auto (src/tuning/sgemm_table.csv)\n"
    "  explain [KERNEL]     registers, shared memory, spills, occupancy, arithmetic intensity\n"
    "  plan                 what auto runs for --mnk shapes of --type (f32 tf32 f16 bf16 f64) and --ops, and\n"
    "                       why, on --device h100|h200 (built-in facts, no GPU needed) or current;\n"
    "                       --corpus prints the golden plan corpus (tests/host/plan_corpus.txt)\n"
    "  info                 the device: SMs, clocks, memory, theoretical peaks\n"
    "  bandwidth            SAXPY and copies, 1 MiB to 4 GiB (--mib LIST): GB/s, % of theoretical DRAM\n"
    "  rowmean-matvec       case study: batched row means + mat-vec, cpu and v1..v5 (--lmn LxMxN, --versions)\n"
    "  profile TARGET       Nsight Compute on one launch of a kernel (or rowmean.v1..v5), summarized;\n"
    "                       --mnk / --lmn pick the size, --write FILE keeps ncu's full report\n"
    "\n"
    "options:\n"
    "  --kernels GLOB[,GLOB]   kernels by name pattern, e.g. 'sgemm.*' (default: all)\n"
    "  --mnk S[,S...]          shapes: N (N^3) or MxNxK\n"
    "  --m L --n L --k L       size lists: N, A:B:xF (geometric), A:B:+S; n and k follow m if absent\n"
    "  --ops all|NN,NT,TN,TT   op(A) op(B) combinations (verify default: all; bench default: NN)\n"
    "  --c-type same|f32       verify, bench: C of FP16/BF16 kernels in their A/B type (default) or FP32\n"
    "  --warmup W --iters I    untimed and timed calls per contender (default 3, 20)\n"
    "  --max-seconds S         bench: stop repeating a slow kernel after S seconds (default 3);\n"
    "                          tune: after S seconds per candidate\n"
    "  --l2-flush write|read   bench, tune, rowmean-matvec: evict the L2 before each timed call by a memset\n"
    "                          of twice its size (default), or by reading that much (no dirty lines left)\n"
    "  --seed S                random inputs' seed (default 2024)\n"
    "  --csv FILE --json FILE  bench (csv also bandwidth, rowmean-matvec): also write the results there\n"
    "  --samples FILE          bench: also write every timed call's time, in call order (kernel and cuBLAS)\n"
    "  --write FILE            tune: write the winners as a tuning table; profile: keep ncu's report\n"
    "  --classes GLOB[,GLOB]   tune: only these shape classes, e.g. '*/NN'; --write keeps FILE's other rows\n"
    "  --mib LIST              bandwidth: buffer sizes in MiB (size-list grammar, e.g. 1:4096:x2)\n"
    "  --lmn S[,S]             rowmean-matvec, profile rowmean.*: sizes LxMxN (default 512x512x1024,1024^3)\n"
    "  --versions GLOB[,GLOB]  rowmean-matvec: which of cpu, v1..v5 (default: all)\n"
    "  --type T                plan: f32, tf32, f16, bf16, f16.f32c, bf16.f32c (C in FP32) or f64 (default f16)\n"
    "  --device D              plan: h100 (default), h200, or current (the GPU's own facts)\n"
    "  --quiet                 no progress on stderr; verify prints failures only\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace gemmkit::cli;
    Options o;
    std::string err;
    if (!parse_options(argc, argv, &o, &err)) {
        std::fprintf(stderr, "gemmkit: %s\n\n%s", err.c_str(), kUsage);
        return 2;
    }
    try {
        if (o.command == "list") return cmd_list(o);
        if (o.command == "verify") return cmd_verify(o);
        if (o.command == "bench") return cmd_bench(o);
        if (o.command == "tune") return cmd_tune(o);
        if (o.command == "explain") return cmd_explain(o);
        if (o.command == "info") return cmd_info(o);
        if (o.command == "bandwidth") return cmd_bandwidth(o);
        if (o.command == "rowmean-matvec") return cmd_rowmean_matvec(o);
        if (o.command == "profile") return cmd_profile(o);
        if (o.command == "plan") return cmd_plan(o);
        if (o.command == "help" || o.command.empty()) {
            std::fputs(kUsage, o.command.empty() ? stderr : stdout);
            return o.command.empty() ? 2 : 0;
        }
        std::fprintf(stderr, "gemmkit: unknown command '%s'\n\n%s", o.command.c_str(), kUsage);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gemmkit %s: %s\n", o.command.c_str(), e.what());
        return 1;
    }
}
