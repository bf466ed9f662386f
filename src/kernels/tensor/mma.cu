// Registry rows of the mma.sync steps (03-06).
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {

void add_mma_kernels(std::vector<KernelInfo>* table) { (void)table; }

}  // namespace gemmkit::tensor
