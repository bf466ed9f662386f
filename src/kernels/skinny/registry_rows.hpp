// The few-vectors rows (few_vectors.cu): one a type, each the last step of its type's ladder.
#pragma once

#include <vector>

#include "registry.hpp"

namespace gemmkit::skinny {

void add_few_vectors_kernels(std::vector<KernelInfo>* table);

}  // namespace gemmkit::skinny
