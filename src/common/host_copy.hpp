// A device buffer's contents as a host vector (tools and tests).
#pragma once

#include <vector>

#include "gemmkit/gemmkit.hpp"

namespace gemmkit {

template <class T>
std::vector<T> to_host(const DeviceBuffer<T>& d) {
    std::vector<T> host(d.size());
    if (!host.empty()) d.copy_to_host(host.data());
    return host;
}

}  // namespace gemmkit
