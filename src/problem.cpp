#include "problem.hpp"

namespace gemmkit {

size_t dtype_size(gemmkit_dtype t) {
    switch (t) {
        case GEMMKIT_R_32F: return 4;
        case GEMMKIT_R_64F: return 8;
        case GEMMKIT_R_16F: return 2;
        case GEMMKIT_R_16BF: return 2;
    }
    return 0;
}

const char* dtype_name(gemmkit_dtype t) {
    switch (t) {
        case GEMMKIT_R_32F: return "f32";
        case GEMMKIT_R_64F: return "f64";
        case GEMMKIT_R_16F: return "f16";
        case GEMMKIT_R_16BF: return "bf16";
    }
    return "invalid";
}

}  // namespace gemmkit
