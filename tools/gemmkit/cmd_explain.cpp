#include <cstdio>

#include "analysis/device_info.hpp"
#include "analysis/kernel_report.hpp"
#include "analysis/occupancy.hpp"
#include "commands.hpp"
#include "registry.hpp"

namespace gemmkit::cli {

// The analysis the seed articles do by hand, per kernel. Resources and occupancy need a
// device (the runtime reads them from the loaded module); the tile arithmetic does not. With
// --mnk, first the plan `auto` makes for those shapes (gemmkit plan), then its kernels.
int cmd_explain(const Options& o) {
    Options sel = o;
    if (!o.positional.empty()) sel.kernels = o.positional[0];
    std::vector<const KernelInfo*> kernels;
    if (!o.shapes.empty() && o.positional.empty()) {
        DeviceFacts facts;
        if (!plan_facts(o.device, "explain", &facts)) return 2;
        kernels = print_plans(o, facts);
        std::printf("\n");
    } else {
        kernels = selected_kernels(sel);
    }
    if (kernels.empty()) {
        std::fprintf(stderr, "gemmkit explain: no kernel matches '%s' (gemmkit list shows the names)\n",
                     sel.kernels.c_str());
        return 1;
    }
    analysis::DeviceInfo dev;
    std::string dev_err;
    const bool have_device = find_device(&dev, &dev_err);
    analysis::SmLimits lim;
    if (have_device) analysis::sm_limits_for(dev.sm, &lim);
    int status = 0;
    for (const KernelInfo* k : kernels) {
        const TileShape& t = k->tile;
        std::printf("%s — %s\n", k->name, k->description);
        std::printf("  threads/block         %d\n", t.threads);
        if (t.BM == 1 && t.BN == 1)
            std::printf("  tile                  none: every operand element comes from global memory (L1/L2)\n");
        else
            std::printf("  tile                  BM=%d BN=%d BK=%d\n", t.BM, t.BN, t.BK);
        std::printf("  arithmetic intensity  %.2f FLOP/B of global traffic = 2*BM*BN / ((BM+BN) * %zu B)\n",
                    analysis::tile_arithmetic_intensity(t, dtype_size(k->dtype)), dtype_size(k->dtype));
        std::printf("  full speed for        %s\n", k->fast_path);
        analysis::KernelResources r;
        std::string err;
        if (!have_device) {
            std::printf("  registers, shared memory, spills, occupancy: need a CUDA GPU; none is usable here: %s\n",
                        dev_err.c_str());
        } else if (!analysis::kernel_resources(*k, &r, &err)) {
            std::printf("  resources: %s\n", err.c_str());
            status = 1;
        } else {
            const size_t smem = r.static_smem + r.dynamic_smem;
            const analysis::Occupancy occ = analysis::theoretical_occupancy(lim, t.threads, r.regs_per_thread, smem);
            std::printf("  registers/thread      %d\n", r.regs_per_thread);
            std::printf("  shared memory         %zu B static + %zu B dynamic per block\n", r.static_smem,
                        r.dynamic_smem);
            std::printf("  local memory          %zu B/thread%s\n", r.local_bytes,
                        r.local_bytes == 0 ? " (no spills)" : "  <-- spills or a stack array");
            std::printf("  occupancy (sm_%d)     %d blocks/SM, %d of %d warps = %.1f%%, limited by %s\n", dev.sm,
                        occ.blocks_per_sm, occ.active_warps, lim.max_warps_per_sm, 100.0 * occ.fraction, occ.limiter);
        }
        std::printf("\n");
    }
    return status;
}

}  // namespace gemmkit::cli
