// gemmkit dist-bench's ranks (dist_bench.cpp); the launcher is cmd_dist_bench.cpp.
#pragma once

#include <string>

#include "cli_args.hpp"

namespace gemmkit::cli {

// A fresh NCCL unique id, as hex text for the ranks' environment.
bool make_nccl_id(std::string* hex, std::string* err);

// One rank of `ranks`: joins the communicator of `id_hex`, measures, and (rank 0) prints.
int run_dist_bench_rank(const Options& o, int rank, int ranks, const char* id_hex);

}  // namespace gemmkit::cli
