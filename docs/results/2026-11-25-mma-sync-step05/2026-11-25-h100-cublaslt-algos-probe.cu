// Probe: every cuBLASLt algorithm (and its tile and stage configurations) for one GEMM shape on
// this GPU, timed; to find what NVIDIA's own kernels without wgmma (mma.sync / DMMA / DFMA)
// reach here. Prints "type algo tile stages ms tflops" for each configuration that runs, and
// with --replay FILE runs the configurations listed in FILE once each (for ncu, which names the
// kernels). Build: nvcc -O2 -arch=sm_90a probe.cu -lcublasLt -o probe
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

struct TypeCase {
    const char* name;
    cudaDataType_t ab, c, scale;
    cublasComputeType_t compute;
    int bytes;
};

static const TypeCase kTypes[] = {
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2},
    {"f16", CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4},
    {"f64", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8},
};

struct Problem {
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a, b, c;
    void *A, *B, *C, *work, *flush;
    size_t work_bytes = 64 << 20, flush_bytes = 256 << 20;
    int n;
    const TypeCase* t;
    double alpha_d = 1.0, beta_d = 0.0;
    float alpha_f = 1.0f, beta_f = 0.0f;
    const void* alpha() const { return t->scale == CUDA_R_64F ? (const void*)&alpha_d : (const void*)&alpha_f; }
    const void* beta() const { return t->scale == CUDA_R_64F ? (const void*)&beta_d : (const void*)&beta_f; }
};

static void setup(Problem& p, const TypeCase& t, int n) {
    p.t = &t;
    p.n = n;
    size_t bytes = size_t(n) * n * t.bytes;
    CHECK_CUDA(cudaMalloc(&p.A, bytes));
    CHECK_CUDA(cudaMalloc(&p.B, bytes));
    CHECK_CUDA(cudaMalloc(&p.C, bytes));
    CHECK_CUDA(cudaMalloc(&p.work, p.work_bytes));
    CHECK_CUDA(cudaMalloc(&p.flush, p.flush_bytes));
    CHECK_CUDA(cudaMemset(p.A, 0x3c, bytes));  // small finite values in every type
    CHECK_CUDA(cudaMemset(p.B, 0x3c, bytes));
    cublasLtMatmulDescCreate(&p.desc, t.compute, t.scale);
    cublasLtMatrixLayoutCreate(&p.a, t.ab, n, n, n);
    cublasLtMatrixLayoutCreate(&p.b, t.ab, n, n, n);
    cublasLtMatrixLayoutCreate(&p.c, t.c, n, n, n);
}

static void teardown(Problem& p) {
    cudaFree(p.A); cudaFree(p.B); cudaFree(p.C); cudaFree(p.work); cudaFree(p.flush);
    cublasLtMatmulDescDestroy(p.desc);
    cublasLtMatrixLayoutDestroy(p.a); cublasLtMatrixLayoutDestroy(p.b); cublasLtMatrixLayoutDestroy(p.c);
}

static bool run_once(Problem& p, const cublasLtMatmulAlgo_t* algo) {
    return cublasLtMatmul(p.lt, p.desc, p.alpha(), p.A, p.a, p.B, p.b, p.beta(), p.C, p.c, p.C, p.c, algo, p.work,
                          p.work_bytes, 0) == CUBLAS_STATUS_SUCCESS;
}

// Median of `reps` calls, L2 flushed before each; negative when the call fails.
static double time_ms(Problem& p, const cublasLtMatmulAlgo_t* algo, int reps) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    std::vector<float> ms;
    for (int r = 0; r < reps + 1; ++r) {
        cudaMemsetAsync(p.flush, r, p.flush_bytes);
        cudaEventRecord(e0);
        if (!run_once(p, algo)) { cudaGetLastError(); return -1; }
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t; cudaEventElapsedTime(&t, e0, e1);
        if (r > 0) ms.push_back(t);  // the first call warms up
    }
    cudaEventDestroy(e0); cudaEventDestroy(e1);
    if (cudaGetLastError() != cudaSuccess) return -1;
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

static bool make_algo(Problem& p, int id, uint32_t tile, uint32_t stages, cublasLtMatmulAlgo_t* algo) {
    const TypeCase& t = *p.t;
    if (cublasLtMatmulAlgoInit(p.lt, t.compute, t.scale, t.ab, t.ab, t.c, t.c, id, algo) != CUBLAS_STATUS_SUCCESS) return false;
    cublasLtMatmulAlgoConfigSetAttribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile));
    cublasLtMatmulAlgoConfigSetAttribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof(stages));
    cublasLtMatmulHeuristicResult_t check{};
    if (cublasLtMatmulAlgoCheck(p.lt, p.desc, p.a, p.b, p.c, p.c, algo, &check) != CUBLAS_STATUS_SUCCESS) return false;
    return check.workspaceSize <= p.work_bytes;
}

static std::vector<uint32_t> cap_ids(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
    size_t bytes = 0;
    cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes);
    std::vector<uint32_t> ids(std::max<size_t>(1, bytes / 4), 0);
    if (bytes) cublasLtMatmulAlgoCapGetAttribute(&algo, attr, ids.data(), bytes, &bytes);
    return ids;
}

int main(int argc, char** argv) {
    int n = 4096;
    const char* replay = nullptr;
    const char* only = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--replay") && i + 1 < argc) replay = argv[++i];
        else if (!strcmp(argv[i], "--type") && i + 1 < argc) only = argv[++i];
    }
    cublasLtHandle_t lt;
    cublasLtCreate(&lt);
    if (replay) {  // lines: type algo tile stages
        FILE* f = fopen(replay, "r");
        char name[16]; int id; unsigned tile, stages;
        while (f && fscanf(f, "%15s %d %u %u", name, &id, &tile, &stages) == 4) {
            for (const TypeCase& t : kTypes) {
                if (strcmp(t.name, name)) continue;
                Problem p; p.lt = lt; setup(p, t, n);
                cublasLtMatmulAlgo_t algo;
                if (make_algo(p, id, tile, stages, &algo)) run_once(p, &algo);
                CHECK_CUDA(cudaDeviceSynchronize());
                printf("replayed %s %d %u %u\n", name, id, tile, stages);
                teardown(p);
            }
        }
        return 0;
    }
    printf("type algo tile stages ms tflops\n");
    for (const TypeCase& t : kTypes) {
        if (only && strcmp(only, t.name)) continue;
        Problem p; p.lt = lt; setup(p, t, n);
        const double flop = 2.0 * n * n * double(n);
        double ref = time_ms(p, nullptr, 9);  // cuBLASLt's own choice (heuristic, no algo)
        printf("%s heuristic - - %.4f %.1f\n", t.name, ref, flop / ref / 1e9);
        int ids[256], count = 0;
        cublasLtMatmulAlgoGetIds(lt, t.compute, t.scale, t.ab, t.ab, t.c, t.c, 256, ids, &count);
        for (int i = 0; i < count; ++i) {
            cublasLtMatmulAlgo_t algo;
            if (cublasLtMatmulAlgoInit(lt, t.compute, t.scale, t.ab, t.ab, t.c, t.c, ids[i], &algo) != CUBLAS_STATUS_SUCCESS) continue;
            std::vector<uint32_t> tiles = cap_ids(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
            std::vector<uint32_t> stages = cap_ids(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
            double best = 1e30;
            for (uint32_t tile : tiles)
                for (uint32_t st : stages) {
                    if (!make_algo(p, ids[i], tile, st, &algo)) continue;
                    double quick = time_ms(p, &algo, 1);
                    if (quick < 0 || quick > 1.5 * best) continue;  // far off this algo's best: skip
                    double ms = time_ms(p, &algo, 5);
                    if (ms < 0) continue;
                    best = std::min(best, ms);
                    printf("%s %d %u %u %.4f %.1f\n", t.name, ids[i], tile, st, ms, flop / ms / 1e9);
                    fflush(stdout);
                }
        }
        teardown(p);
    }
    return 0;
}
