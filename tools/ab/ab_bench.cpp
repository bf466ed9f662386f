// gemmkit-ab: two builds of libgemmkit.so in one process, one harness, one GPU: where does a
// change's time go, the library or the bench around it, the GPU or the host?
//
//   gemmkit-ab --lib-a PATH --lib-b PATH --kernel NAME[,NAME...] --type f16|bf16|tf32|f32|f64
//              --mnk S[,S...] [--iters N] [--flush write|none]
//
// `gemmkit bench` of two builds (scripts/bench-before-after) compares two harnesses as well as
// two libraries: the inputs, the checker, the flush are each build's own. Here both libraries
// are loaded (dlopen, each binding its own symbols first) and called through the stable C API,
// gemmkit_gemm_ex with a kernel name, on the same buffers, in ABBA order, L2 flushed before each
// call (a memset of twice the L2, as the bench's), NN, alpha 1, beta 0. Per shape and kernel it
// prints each library's median GPU time (CUDA events around the call), the ratio b / a, each one's
// median host time spent inside gemmkit_gemm_ex, and the largest difference between their C.
// Exit status: 0 when every call succeeded, 1 when a call failed, 2 on bad arguments or a library
// that does not load.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "common/check.hpp"
#include "gemmkit/gemmkit.h"

namespace {

using GemmEx = decltype(&gemmkit_gemm_ex);
using LastError = decltype(&gemmkit_last_error);

struct Library {
    std::string path;
    GemmEx gemm = nullptr;
    LastError last_error = nullptr;
};

struct Shape {
    int64_t m, n, k;
};

struct Options {
    std::string lib_a, lib_b, type;
    std::vector<std::string> kernels;
    std::vector<Shape> shapes;
    int iters = 20;
    bool flush = true;
};

// What a --type means for gemmkit_gemm_ex: the element types, the compute type, bytes an element.
struct TypeSpec {
    gemmkit_dtype ab, c;
    gemmkit_compute compute;
    size_t ab_bytes, c_bytes;
};

bool type_spec(const std::string& t, TypeSpec* s) {
    if (t == "f16") *s = {GEMMKIT_R_16F, GEMMKIT_R_16F, GEMMKIT_COMPUTE_32F, 2, 2};
    else if (t == "bf16") *s = {GEMMKIT_R_16BF, GEMMKIT_R_16BF, GEMMKIT_COMPUTE_32F, 2, 2};
    else if (t == "tf32") *s = {GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F_FAST_TF32, 4, 4};
    else if (t == "f32") *s = {GEMMKIT_R_32F, GEMMKIT_R_32F, GEMMKIT_COMPUTE_32F, 4, 4};
    else if (t == "f64") *s = {GEMMKIT_R_64F, GEMMKIT_R_64F, GEMMKIT_COMPUTE_64F, 8, 8};
    else return false;
    return true;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

// "N" (N^3) or "MxNxK", each at least 1.
bool parse_shape(const std::string& s, Shape* out) {
    long long m = 0, n = 0, k = 0;
    char tail = 0;
    if (std::sscanf(s.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) == 3) *out = {m, n, k};
    else if (std::sscanf(s.c_str(), "%lld%c", &m, &tail) == 1) *out = {m, m, m};
    else return false;
    return out->m > 0 && out->n > 0 && out->k > 0;
}

int usage_error(const std::string& message) {
    std::fprintf(stderr, "gemmkit-ab: %s\n(usage: gemmkit-ab --lib-a PATH --lib-b PATH --kernel NAME[,NAME...] "
                         "--type f16|bf16|tf32|f32|f64 --mnk S[,S...] [--iters N] [--flush write|none])\n",
                 message.c_str());
    return 2;
}

// Parses argv into o; an error message names the option, and nothing runs.
bool parse(int argc, char** argv, Options* o, std::string* why) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) {
            *why = arg + " needs a value";
            return false;
        }
        const std::string v = argv[++i];
        if (arg == "--lib-a") o->lib_a = v;
        else if (arg == "--lib-b") o->lib_b = v;
        else if (arg == "--kernel") o->kernels = split(v);
        else if (arg == "--type") o->type = v;
        else if (arg == "--iters") o->iters = std::atoi(v.c_str());
        else if (arg == "--flush" && (v == "write" || v == "none")) o->flush = v == "write";
        else if (arg == "--mnk") {
            for (const std::string& s : split(v)) {
                Shape shape;
                if (!parse_shape(s, &shape)) {
                    *why = "--mnk: '" + s + "' is not N or MxNxK with sizes of at least 1";
                    return false;
                }
                o->shapes.push_back(shape);
            }
        } else {
            *why = "unknown option or value: " + arg + " " + v;
            return false;
        }
    }
    TypeSpec unused;
    if (o->lib_a.empty() || o->lib_b.empty()) *why = "--lib-a and --lib-b are required";
    else if (o->kernels.empty()) *why = "--kernel names at least one kernel (gemmkit list)";
    else if (!type_spec(o->type, &unused)) *why = "--type must be f16, bf16, tf32, f32 or f64, not '" + o->type + "'";
    else if (o->shapes.empty()) *why = "--mnk names at least one shape";
    else if (o->iters < 1) *why = "--iters must be at least 1";
    return why->empty();
}

// Loads path with its own symbols bound first (RTLD_DEEPBIND), so that two builds of the same
// library in one process each call their own code.
bool load(const std::string& path, const char* option, Library* lib, std::string* why) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle == nullptr) {
        *why = std::string(option) + ": cannot load " + path + ": " + dlerror();
        return false;
    }
    lib->path = path;
    lib->gemm = reinterpret_cast<GemmEx>(dlsym(handle, "gemmkit_gemm_ex"));
    lib->last_error = reinterpret_cast<LastError>(dlsym(handle, "gemmkit_last_error"));
    if (lib->gemm == nullptr || lib->last_error == nullptr) {
        *why = std::string(option) + ": " + path + " lacks gemmkit_gemm_ex or gemmkit_last_error";
        return false;
    }
    return true;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Uniform values in [-1, 1) as the type's elements.
std::vector<unsigned char> random_bytes(size_t count, const TypeSpec& t, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<unsigned char> out(count * t.ab_bytes);
    for (size_t i = 0; i < count; ++i) {
        const float f = u(rng);
        unsigned char* p = &out[i * t.ab_bytes];
        if (t.ab == GEMMKIT_R_64F) {
            const double d = f;
            std::memcpy(p, &d, sizeof d);
        } else if (t.ab == GEMMKIT_R_32F) {
            std::memcpy(p, &f, sizeof f);
        } else if (t.ab == GEMMKIT_R_16BF) {
            const __nv_bfloat16 h = __float2bfloat16(f);
            std::memcpy(p, &h, sizeof h);
        } else {
            const __half h = __float2half(f);
            std::memcpy(p, &h, sizeof h);
        }
    }
    return out;
}

// C's element i as a double, for comparing the two libraries' results.
double element(const std::vector<unsigned char>& bytes, size_t i, const TypeSpec& t) {
    const unsigned char* p = &bytes[i * t.c_bytes];
    if (t.c == GEMMKIT_R_64F) {
        double d;
        std::memcpy(&d, p, sizeof d);
        return d;
    }
    if (t.c == GEMMKIT_R_32F) {
        float f;
        std::memcpy(&f, p, sizeof f);
        return f;
    }
    if (t.c == GEMMKIT_R_16BF) {
        __nv_bfloat16 h;
        std::memcpy(&h, p, sizeof h);
        return __bfloat162float(h);
    }
    __half h;
    std::memcpy(&h, p, sizeof h);
    return __half2float(h);
}

}  // namespace

// Times every shape and kernel of o on both libraries and prints a row each; returns how many
// (shape, kernel) pairs had a call fail. CUDA errors throw (CUDA_CHECK).
int run(const Options& o, const Library (&libs)[2]) {
    TypeSpec t;
    type_spec(o.type, &t);

    int l2_bytes = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0));
    const size_t flush_bytes = 2 * static_cast<size_t>(std::max(l2_bytes, 1 << 20));
    void* flush = nullptr;
    CUDA_CHECK(cudaMalloc(&flush, flush_bytes));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::mt19937 rng(2024);
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const double alpha64 = 1.0, beta64 = 0.0;
    const void* alpha = t.compute == GEMMKIT_COMPUTE_64F ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = t.compute == GEMMKIT_COMPUTE_64F ? static_cast<const void*>(&beta64) : &beta32;

    std::printf("a: %s\nb: %s\n%s, NN, alpha 1, beta 0; L2 %s before each call; ABBA order, %d calls each\n\n",
                o.lib_a.c_str(), o.lib_b.c_str(), o.type.c_str(), o.flush ? "flushed (a memset of 2 x L2)" : "not flushed",
                o.iters);
    std::printf("%-34s %18s %10s %10s %7s %10s %10s %12s\n", "kernel", "m x n x k", "a ms", "b ms", "b/a", "a host us",
                "b host us", "max |a-b|");
    int failed = 0;
    for (const Shape& s : o.shapes) {
        void *A = nullptr, *B = nullptr, *C[2] = {nullptr, nullptr};
        const size_t c_bytes = static_cast<size_t>(s.m * s.n) * t.c_bytes;
        CUDA_CHECK(cudaMalloc(&A, static_cast<size_t>(s.m * s.k) * t.ab_bytes));
        CUDA_CHECK(cudaMalloc(&B, static_cast<size_t>(s.k * s.n) * t.ab_bytes));
        for (void*& c : C) CUDA_CHECK(cudaMalloc(&c, c_bytes));
        const auto a_host = random_bytes(static_cast<size_t>(s.m * s.k), t, rng);
        const auto b_host = random_bytes(static_cast<size_t>(s.k * s.n), t, rng);
        CUDA_CHECK(cudaMemcpy(A, a_host.data(), a_host.size(), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(B, b_host.data(), b_host.size(), cudaMemcpyHostToDevice));
        for (const std::string& kernel : o.kernels) {
            std::vector<double> gpu_ms[2], host_us[2];
            bool ok = true;
            // One call of library w into its own C; its GPU and host times when timed.
            auto call = [&](int w, bool timed) {
                if (timed && o.flush) CUDA_CHECK(cudaMemsetAsync(flush, 0, flush_bytes, stream));
                if (timed) CUDA_CHECK(cudaEventRecord(start, stream));
                const auto t0 = std::chrono::steady_clock::now();
                const gemmkit_status st = libs[w].gemm(stream, GEMMKIT_OP_N, GEMMKIT_OP_N, s.m, s.n, s.k, alpha, A, t.ab,
                                                       s.m, B, t.ab, s.k, beta, C[w], t.c, s.m, t.compute, kernel.c_str());
                const auto t1 = std::chrono::steady_clock::now();
                if (st != GEMMKIT_SUCCESS) {
                    std::fprintf(stderr, "gemmkit-ab: %s: %s failed: %s\n", libs[w].path.c_str(), kernel.c_str(),
                                 libs[w].last_error());
                    ok = false;
                    return;
                }
                if (!timed) return;
                CUDA_CHECK(cudaEventRecord(stop, stream));
                CUDA_CHECK(cudaEventSynchronize(stop));
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
                gpu_ms[w].push_back(ms);
                host_us[w].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            };
            for (int w = 0; w < 3 && ok; ++w) call(0, false), call(1, false);
            for (int i = 0; i < o.iters && ok; ++i) {
                const int first = i % 2;  // a b, b a, a b, ...
                call(first, true);
                call(1 - first, true);
            }
            CUDA_CHECK(cudaStreamSynchronize(stream));
            if (!ok) {
                ++failed;
                continue;
            }
            std::vector<unsigned char> c_host[2] = {std::vector<unsigned char>(c_bytes), std::vector<unsigned char>(c_bytes)};
            for (int w = 0; w < 2; ++w) CUDA_CHECK(cudaMemcpy(c_host[w].data(), C[w], c_bytes, cudaMemcpyDeviceToHost));
            double diff = 0;
            for (size_t i = 0; i < static_cast<size_t>(s.m * s.n); ++i)
                diff = std::max(diff, std::fabs(element(c_host[0], i, t) - element(c_host[1], i, t)));
            const std::string dims = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
            const double a_ms = median(gpu_ms[0]), b_ms = median(gpu_ms[1]);
            std::printf("%-34s %18s %10.4f %10.4f %7.3f %10.1f %10.1f %12.3g\n", kernel.c_str(), dims.c_str(), a_ms, b_ms,
                        b_ms / a_ms, median(host_us[0]), median(host_us[1]), diff);
        }
        CUDA_CHECK(cudaFree(A));
        CUDA_CHECK(cudaFree(B));
        for (void* c : C) CUDA_CHECK(cudaFree(c));
    }
    return failed;
}

int main(int argc, char** argv) {
    Options o;
    std::string why;
    if (!parse(argc, argv, &o, &why)) return usage_error(why);
    Library libs[2];
    if (!load(o.lib_a, "--lib-a", &libs[0], &why) || !load(o.lib_b, "--lib-b", &libs[1], &why))
        return usage_error(why);
    try {
        return run(o, libs) == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gemmkit-ab: %s\n", e.what());
        return 1;
    }
}
