// The Hopper steps' registry rows (levels 6-14 of the f16 and bf16 families, 7-9 of tf32):
// add_hopper_kernels adds them in registry order from registry_*.cu, which share out their kernels
// so that no one file takes long to compile (docs/plan.md#build-time). This file compiles step
// 05's kernels, which the f16 and bf16 steps fall back to, and beside them steps 07-09's kernels
// with FP32 C: in a file without step 05's kernels, nvcc compiles their NT ones differently.
#include <map>
#include <mutex>

#include "kernels/hopper/registry_steps.cuh"
#include "kernels/tensor/05_tuned.cuh"

namespace gemmkit::tensor {

void add_hopper_kernels(std::vector<KernelInfo>* table) {
    detail::add_hopper_steps_06_09(table);
    detail::add_hopper_steps_10_12(table);
    detail::add_hopper_steps_13_14(table);
    detail::add_hopper_tf32_steps(table);
}

}  // namespace gemmkit::tensor

namespace gemmkit::hopper {

cudaError_t launch_pipeline_fallback(const Problem& p, PipelineTiles tiles, cudaStream_t stream) {
    return tensor::launch_tuned(p, tiles, stream);
}

// Steps 07-09's kernels with FP32 C (registry_06_09.cu adds their rows).
template cudaError_t launch_step_typed<tensor::detail::TmaRingStep, tensor::half, float>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::TmaRingStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::WarpSpecializedStep, tensor::half, float>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::WarpSpecializedStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::PersistentStep, tensor::half, float>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::PersistentStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);

namespace {
// 1 in the image of a pass that compiled the kernels' bodies (sm_90a), 0 in any other. The other
// registry_*.cu files are compiled for the same architectures: this file's image speaks for theirs.
__device__ int hopper_code_flag = GEMMKIT_HOPPER_CODE;
}  // namespace

bool hopper_code_loaded() {
    static std::mutex mutex;
    static std::map<int, bool> loaded;  // by device ordinal
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = loaded.find(device);
    if (it == loaded.end()) {
        // The first GEMM on a device may come while a stream is being captured into a graph: read
        // the flag on a stream of its own, which waits for no other, in relaxed capture mode
        // (which permits these calls in this thread while another stream captures).
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        cudaThreadExchangeStreamCaptureMode(&mode);
        int flag = 0;
        cudaStream_t own = nullptr;
        bool read = cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking) == cudaSuccess;
        read = read && cudaMemcpyFromSymbolAsync(&flag, hopper_code_flag, sizeof flag, 0, cudaMemcpyDeviceToHost,
                                                 own) == cudaSuccess;
        read = read && cudaStreamSynchronize(own) == cudaSuccess;
        if (own != nullptr) cudaStreamDestroy(own);
        if (!read) cudaGetLastError();  // no image for this device: not an error of the next launch
        cudaThreadExchangeStreamCaptureMode(&mode);
        it = loaded.emplace(device, read && flag == 1).first;
    }
    return it->second;
}

}  // namespace gemmkit::hopper
