// The bf16 kernels of Hopper steps 13-14 (registry_13_14.cu adds their rows): launch_step_typed
// of each, which registry_steps.cuh declares extern.
#include "kernels/hopper/registry_steps.cuh"

namespace gemmkit::hopper {

template cudaError_t launch_step_typed<tensor::detail::DeferredEpilogueStep, tensor::bf16, tensor::bf16>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::DeferredEpilogueStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::SizedTilesStep, tensor::bf16, tensor::bf16>(
    const Problem&, const Plan&, cudaStream_t);
template cudaError_t launch_step_typed<tensor::detail::SizedTilesStep, tensor::bf16, float>(
    const Problem&, const Plan&, cudaStream_t);

}  // namespace gemmkit::hopper
