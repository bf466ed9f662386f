// One launcher for the SIMT steps (FP32 01-10, FP64 01-05): a block for each bm
// x bn tile of C (the problems of a batch along z), the kernel instantiated for
// the problem's ops and, in the steps with a 16-byte variant, for whether A and
// B allow 16-byte loads. Each step's launcher names only its tile, its block
// and its kernel.
#pragma once

#include "kernels/launch_common.cuh"

namespace gemmkit {

template <class T>
cudaError_t launch_tile_kernel(void (*kernel)(GemmArgs<T>), const Problem &p,
                               int bm, int bn, dim3 block,
                               cudaStream_t stream) {
  kernel<<<batch_grid(dim3(ceil_div(p.m, bm), ceil_div(p.n, bn)), p), block, 0,
           stream>>>(make_args<T>(p));
  return cudaGetLastError();
}

// pick(ta, tb): the kernel for the ops (Bool<true> for op T).
template <class T, class Pick>
cudaError_t launch_tiles(const Problem &p, int bm, int bn, dim3 block,
                         cudaStream_t stream, Pick pick) {
  return with_ops(p, [&](auto ta, auto tb) {
    return launch_tile_kernel<T>(pick(ta, tb), p, bm, bn, block, stream);
  });
}

// pick(ta, tb, vec): the kernel for the ops and for vec, whether A and B allow
// 16-byte loads (with_ops_and_vec).
template <class T, class Pick>
cudaError_t launch_tiles_vec(const Problem &p, int bm, int bn, dim3 block,
                             cudaStream_t stream, Pick pick) {
  return with_ops_and_vec<T>(p, [&](auto ta, auto tb, auto vec) {
    return launch_tile_kernel<T>(pick(ta, tb, vec), p, bm, bn, block, stream);
  });
}

} // namespace gemmkit
