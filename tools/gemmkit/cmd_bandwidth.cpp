// gemmkit bandwidth: SAXPY, our float4 copy kernel and cudaMemcpyAsync over buffer sizes from 1 MiB
// to several GiB, each verified bit-exact first, then timed call by call; GB/s and % of the
// device's theoretical DRAM bandwidth.
//
// Timing does not use time_interleaved: its L2 flush (a memset of 2 x L2) leaves up to a whole L2
// of dirty lines whose write-back the next timed call pays for: up to 50 MiB on an H100, a quarter
// more traffic than the 192 MiB of a 64 MiB SAXPY. Instead each call runs on the next of several
// buffer sets, so the lines a call finds in L2 are earlier calls' of the same op, as in any
// back-to-back stream of it.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "analysis/device_info.hpp"
#include "bandwidth/bandwidth.hpp"
#include "bandwidth/device_check.hpp"
#include "bandwidth/ops.hpp"
#include "bench_timer.hpp"
#include "commands.hpp"
#include "common/check.hpp"
#include "gemmkit_version.hpp"
#include "nvtx_range.hpp"
#include "verify/matrix_init.hpp"
#include "writers.hpp"

namespace gemmkit::cli {
namespace {

using bandwidth::Op;

struct Row {
    Op op = Op::kSaxpy;
    int64_t mib = 0, elements = 0;
    int sets = 1;
    bool fits_l2 = false;       // the call's working set (x and y) fits in the L2
    std::string status = "ok";  // or "FAILED: ..."
    Timing t;
    double gbps = 0, best_gbps = 0, pct_peak = 0;  // from the median and the fastest call
};

// One size's buffers: `sets` pairs (x, y), used round-robin so a pair's data has left the L2
// before its next call (bandwidth::rotation_sets).
struct BufferSets {
    std::vector<DeviceBuffer<float>> x, y;
    size_t next = 0;
};

BufferSets make_sets(int64_t elements, int sets, uint64_t seed, cudaStream_t stream) {
    BufferSets b;
    for (int s = 0; s < sets; ++s) {
        b.x.emplace_back(static_cast<size_t>(elements));
        b.y.emplace_back(static_cast<size_t>(elements));
        // Real numbers everywhere, not whatever cudaMalloc left (set 0 is refilled by each op's check).
        verify::fill_uniform(b.x.back().data(), elements, 2 * seed, stream);
        verify::fill_uniform(b.y.back().data(), elements, 2 * seed + 1, stream);
    }
    return b;
}

class EventPair {
public:
    EventPair() {
        CUDA_CHECK(cudaEventCreate(&start));
        if (cudaError_t e = cudaEventCreate(&stop); e != cudaSuccess) {
            cudaEventDestroy(start);
            CUDA_CHECK(e);
        }
    }
    ~EventPair() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    EventPair(const EventPair&) = delete;
    EventPair& operator=(const EventPair&) = delete;
    cudaEvent_t start = nullptr, stop = nullptr;
};

// plan.warmup untimed calls, then up to plan.iters calls each alone between two events (after 3,
// stop once plan.max_seconds of GPU time is spent), each on the next buffer set.
Timing time_op(Op op, BufferSets& sets, int64_t elements, int max_blocks, const TimingPlan& plan,
               const std::string& name, EventPair& ev, cudaStream_t stream) {
    auto call = [&] {
        const size_t s = sets.next++ % sets.x.size();
        const NvtxRange range(name);
        CUDA_CHECK(bandwidth::launch_op(
            op, bandwidth::StreamArgs{elements, bandwidth::kSaxpyAlpha, sets.x[s].data(), sets.y[s].data(), max_blocks},
            stream));
    };
    for (int w = 0; w < plan.warmup; ++w) call();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> samples;
    double spent_ms = 0;
    for (int i = 0; i < plan.iters && !(i >= 3 && spent_ms > plan.max_seconds * 1e3); ++i) {
        CUDA_CHECK(cudaEventRecord(ev.start, stream));
        call();
        CUDA_CHECK(cudaEventRecord(ev.stop, stream));
        CUDA_CHECK(cudaEventSynchronize(ev.stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
        samples.push_back(ms);
        spent_ms += ms;
    }
    return summarize(std::move(samples));
}

void print_header(const analysis::DeviceInfo& d, double peak_gbps, int64_t free_bytes, const Options& o) {
    std::printf("gemmkit bandwidth — %s\n", analysis::one_line(d).c_str());
    std::printf("memory %d MHz x %d bit: theoretical %.1f GB/s (2 transfers per clock x bus width / 8); L2 %.0f MiB; "
                "%.1f GiB free; commit %s\n",
                d.mem_clock_khz / 1000, d.bus_width_bits, peak_gbps, d.l2_bytes / 1048576.0,
                free_bytes / 1073741824.0, GEMMKIT_GIT_COMMIT);
    std::printf("saxpy y = %g*x + y moves 12 B per float (read x, read y, write y), the copies 8 (read x, write y); "
                "1 GB = 1e9 B; size = one buffer\n",
                bandwidth::kSaxpyAlpha);
    std::printf("each op verified bit-exact first (seed %llu), then %d warm-up + %d timed calls, each alone between "
                "CUDA events; GB/s and %%peak from the median\n",
                static_cast<unsigned long long>(o.seed), o.warmup, o.iters);
}

void print_table_head() {
    std::printf("\n%9s  %-12s %5s %11s %11s %9s %10s %7s\n", "size MiB", "op", "sets", "median ms", "min ms", "GB/s",
                "best GB/s", "%peak");
}

void print_row(const Row& r) {
    const char* mark = r.fits_l2 ? "*" : " ";
    if (r.status != "ok") {
        std::printf("%8lld%s  %-12s %5d  %s\n", static_cast<long long>(r.mib), mark, bandwidth::op_name(r.op), r.sets,
                    r.status.c_str());
    } else {
        std::printf("%8lld%s  %-12s %5d %11.4f %11.4f %9.1f %10.1f %6.1f%%\n", static_cast<long long>(r.mib), mark,
                    bandwidth::op_name(r.op), r.sets, r.t.median_ms, r.t.min_ms, r.gbps, r.best_gbps, r.pct_peak);
    }
    std::fflush(stdout);
}

void print_footnote(const analysis::DeviceInfo& d) {
    std::printf("\n* x and y together (2 x size) fit in the %.0f MiB L2. Each call ran on the next of `sets` buffer "
                "pairs, so a pair is reused only after >= 2 x L2 of other traffic and its data comes from DRAM, not "
                "L2. Such a call lasts microseconds, and the smaller it is, the more of them are launch latency and "
                "ramp-up rather than transfer: that is where the small sizes fall off.\n",
                d.l2_bytes / 1048576.0);
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const analysis::DeviceInfo& d, double peak_gbps) {
    std::ofstream f = open_output(path);
    f << "op,mib,elements,bytes_per_call,buffer_sets,fits_l2,status,min_ms,median_ms,max_ms,samples,gbps,best_gbps,"
         "pct_peak,peak_gbps,device,commit\n";
    for (const Row& r : rows)
        f << csv_field(bandwidth::op_name(r.op)) << ',' << r.mib << ',' << r.elements << ','
          << bandwidth::bytes_moved(r.op, r.elements) << ',' << r.sets << ',' << (r.fits_l2 ? 1 : 0) << ','
          << csv_field(r.status) << ',' << csv_number(r.t.min_ms) << ',' << csv_number(r.t.median_ms) << ','
          << csv_number(r.t.max_ms) << ',' << r.t.samples << ',' << csv_number(r.gbps) << ','
          << csv_number(r.best_gbps) << ',' << csv_number(r.pct_peak) << ',' << csv_number(peak_gbps) << ','
          << csv_field(d.name) << ',' << csv_field(GEMMKIT_GIT_COMMIT) << '\n';
    close_output(f, path);
}

}  // namespace

int cmd_bandwidth(const Options& o) {
    analysis::DeviceInfo dev;
    if (!require_device("bandwidth", &dev)) return 1;
    const double peak_gbps = bandwidth::theoretical_gb_per_s(dev);
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const auto free_i = static_cast<int64_t>(free_bytes);
    std::vector<int64_t> mib = o.mib.empty() ? bandwidth::default_sizes_mib(free_i, dev.l2_bytes) : o.mib;
    if (mib.empty()) mib = {1};  // not even 1 MiB fits: check_sizes_mib says how much memory is free
    std::string err;
    if (!bandwidth::check_sizes_mib(mib, free_i, dev.l2_bytes, &err)) {
        std::fprintf(stderr, "gemmkit bandwidth: %s\n", err.c_str());
        return 1;
    }
    const TimingPlan plan{o.warmup, o.iters, o.max_seconds};
    int blocks[std::size(bandwidth::kOps)];
    for (size_t i = 0; i < std::size(bandwidth::kOps); ++i)
        CUDA_CHECK(bandwidth::full_wave_blocks(bandwidth::kOps[i], &blocks[i]));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    EventPair events;
    print_header(dev, peak_gbps, free_i, o);
    int failures = 0, cases = 0;
    for (const std::string& f : bandwidth::verify_edge_cases(o.seed, stream, &cases)) {
        std::printf("edge case FAILED: %s\n", f.c_str());
        ++failures;
    }
    std::printf("edge cases (odd lengths, x or y off 16-byte alignment): %d of %d bit-exact\n", cases - failures,
                cases);
    print_table_head();

    std::vector<Row> rows;
    const size_t total = mib.size() * std::size(bandwidth::kOps);
    for (int64_t m : mib) {
        const int64_t elements = m * bandwidth::kMiB / static_cast<int64_t>(sizeof(float));
        const int64_t set_bytes = bandwidth::kBuffersPerSet * m * bandwidth::kMiB;
        const int sets = bandwidth::rotation_sets(set_bytes, dev.l2_bytes);
        BufferSets buffers = make_sets(elements, sets, o.seed, stream);
        for (size_t i = 0; i < std::size(bandwidth::kOps); ++i) {
            const Op op = bandwidth::kOps[i];
            const std::string name = std::string(bandwidth::op_name(op)) + " " + std::to_string(m) + " MiB";
            if (!o.quiet) std::fprintf(stderr, "[%zu/%zu] %s\n", rows.size() + 1, total, name.c_str());
            Row r;
            r.op = op;
            r.mib = m;
            r.elements = elements;
            r.sets = sets;
            r.fits_l2 = set_bytes <= dev.l2_bytes;
            const bandwidth::CheckResult check = bandwidth::verify_op(op, elements, buffers.x[0].data(),
                                                                      buffers.y[0].data(), blocks[i], o.seed, stream);
            if (!check.pass()) {
                r.status = "FAILED: " + bandwidth::describe(check);
                ++failures;
            } else {
                r.t = time_op(op, buffers, elements, blocks[i], plan, name, events, stream);
                const int64_t bytes = bandwidth::bytes_moved(op, elements);
                r.gbps = bandwidth::gb_per_s(bytes, r.t.median_ms);
                r.best_gbps = bandwidth::gb_per_s(bytes, r.t.min_ms);
                r.pct_peak = bandwidth::percent_of_peak(r.gbps, peak_gbps);
            }
            print_row(r);
            rows.push_back(r);
        }
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    bool any_in_l2 = false;
    for (const Row& r : rows) any_in_l2 = any_in_l2 || r.fits_l2;
    if (any_in_l2) print_footnote(dev);
    if (!o.csv.empty()) write_csv(o.csv, rows, dev, peak_gbps);
    if (failures > 0) std::printf("\n%d verification(s) FAILED; failed ops were not timed\n", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace gemmkit::cli
