// Registry rows of Hopper steps 10-12 (cluster multicast, TMA store, stream-K) of the f16 and
// bf16 families.
#include "kernels/hopper/registry_steps.cuh"

namespace gemmkit::tensor::detail {

void add_hopper_steps_10_12(std::vector<KernelInfo>* table) {
    add_step<ClusterMulticastStep>(table, "f16.10_cluster_multicast", "bf16.10_cluster_multicast", 10,
                                   "clusters of 2 CTAs along m: each loads half of the shared B slab, multicast to both");
    add_step<TmaStoreStep>(table, "f16.11_tma_store", "bf16.11_tma_store", 11,
                           "epilogue through swizzled shared memory and TMA stores (beta 0)");
    add_step<StreamKStep>(table, "f16.12_stream_k", "bf16.12_stream_k", 12,
                          "stream-K: the last round of tiles shared out along k; partial sums through L2");
}

}  // namespace gemmkit::tensor::detail
