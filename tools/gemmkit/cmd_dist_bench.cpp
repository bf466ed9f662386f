// gemmkit dist-bench: the launcher. It starts one process per GPU (this same program, told its
// rank through the environment) and hands each NCCL's unique id, so no MPI is needed; the ranks
// measure (dist_bench.cpp) and rank 0 prints. A rank that fails takes the others down with it,
// so the command never hangs.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "commands.hpp"
#ifdef GEMMKIT_HAVE_NCCL
#include "dist_bench.hpp"
#endif

namespace gemmkit::cli {

#ifndef GEMMKIT_HAVE_NCCL
int cmd_dist_bench(const Options&) {
    std::fprintf(stderr,
                 "gemmkit dist-bench: this build has no NCCL (pip install nvidia-nccl-cu13, or set NCCL_ROOT, "
                 "then re-run cmake)\n");
    return 1;
}
#else
namespace {

// This process's own command line, to start the ranks with.
std::vector<std::string> own_arguments() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (size_t start = 0; start < all.size();) {
        const size_t end = all.find('\0', start);
        args.push_back(all.substr(start, end - start));
        start = end == std::string::npos ? all.size() : end + 1;
    }
    return args;
}

// Waits for every rank; once one fails, or `seconds` pass, the rest are stopped.
int wait_for_ranks(std::vector<pid_t> pids, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    int status_of_all = 0;
    bool stopping = false;
    while (!pids.empty()) {
        for (size_t i = 0; i < pids.size();) {
            int status = 0;
            if (waitpid(pids[i], &status, WNOHANG) != pids[i]) {
                ++i;
                continue;
            }
            const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (!ok && !stopping) {
                std::fprintf(stderr, "gemmkit dist-bench: a rank failed (%s %d); stopping the others\n",
                             WIFEXITED(status) ? "exit" : "signal",
                             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
                status_of_all = 1;
            }
            pids.erase(pids.begin() + static_cast<long>(i));
        }
        if (!stopping && (status_of_all != 0 || std::chrono::steady_clock::now() > deadline)) {
            if (status_of_all == 0) std::fprintf(stderr, "gemmkit dist-bench: timed out after %d s\n", seconds);
            status_of_all = 1;
            stopping = true;
            for (pid_t p : pids) kill(p, SIGKILL);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return status_of_all;
}

}  // namespace

int cmd_dist_bench(const Options& o) {
    if (const char* rank = std::getenv("GEMMKIT_DIST_BENCH_RANK"))
        return run_dist_bench_rank(o, std::atoi(rank), std::atoi(std::getenv("GEMMKIT_DIST_BENCH_RANKS")),
                                   std::getenv("GEMMKIT_DIST_BENCH_ID"));
    if (!require_device("dist-bench")) return 1;
    int visible = 0;
    cudaGetDeviceCount(&visible);
    const int ranks = o.gpus > 0 ? o.gpus : visible;
    if (ranks > visible) {
        std::fprintf(stderr, "gemmkit dist-bench: --gpus %d, but %d GPU%s visible\n", ranks, visible,
                     visible == 1 ? " is" : "s are");
        return 2;
    }
    std::string id, err;
    if (!make_nccl_id(&id, &err)) {
        std::fprintf(stderr, "gemmkit dist-bench: %s\n", err.c_str());
        return 1;
    }
    // NVLink multicast (NVLS) stays off: on shared hosts it can take the GPUs out of service.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    const std::vector<std::string> args = own_arguments();
    std::vector<pid_t> pids;
    for (int r = 0; r < ranks; ++r) {
        const pid_t pid = fork();
        if (pid == 0) {
            setenv("GEMMKIT_DIST_BENCH_RANK", std::to_string(r).c_str(), 1);
            setenv("GEMMKIT_DIST_BENCH_RANKS", std::to_string(ranks).c_str(), 1);
            setenv("GEMMKIT_DIST_BENCH_ID", id.c_str(), 1);
            std::vector<char*> argv;
            for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            execv("/proc/self/exe", argv.data());
            std::perror("gemmkit dist-bench: execv");
            _exit(127);
        }
        if (pid < 0) {
            std::perror("gemmkit dist-bench: fork");
            for (pid_t p : pids) kill(p, SIGKILL);
            wait_for_ranks(pids, 5);
            return 1;
        }
        pids.push_back(pid);
    }
    return wait_for_ranks(pids, 540);
}
#endif

}  // namespace gemmkit::cli
