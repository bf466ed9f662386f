// Probe: does a TMA load (2D tiled, 16-bit, 128B swizzle) accept a box whose inner start
// coordinate is off a 16-byte boundary? Loads a 64 x 8 box at inner coordinate x0 and checks
// every element against global memory (un-swizzling the 128B pattern).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>

__global__ void load_box(const __grid_constant__ CUtensorMap map, int x0, int y0, uint16_t* out) {
    __shared__ alignas(1024) uint16_t tile[8 * 64];
    __shared__ alignas(8) uint64_t bar;
    uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(b));
        asm volatile("fence.mbarrier_init.release.cluster;\n");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(b), "r"(8 * 64 * 2));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                     ::"r"(s), "l"(reinterpret_cast<uint64_t>(&map)), "r"(x0), "r"(y0), "r"(b) : "memory");
        asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}\n" ::"r"(b));
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 8 * 64; i += blockDim.x) {
        int row = i / 64, col = i % 64;                      // logical (row = y, col = x)
        int chunk = (col / 8) ^ (row % 8);                   // 128B swizzle: 16-byte chunk index XOR row
        out[i] = tile[row * 64 + chunk * 8 + col % 8];
    }
}

int main() {
    const int ld = 4104, rows = 64;  // 16-bit elements; stride 8208 bytes (16-byte multiple)
    uint16_t* g; cudaMalloc(&g, ld * rows * 2);
    uint16_t h[ld * rows]; for (int i = 0; i < ld * rows; ++i) h[i] = static_cast<uint16_t>(i * 7 + 3);
    cudaMemcpy(g, h, sizeof h, cudaMemcpyHostToDevice);
    CUtensorMap map;
    cuuint64_t dims[2] = {4097, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)ld * 2};
    cuuint32_t box[2] = {64, 8}, es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, g, dims, strides, box, es,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { printf("encode failed %d\n", r); return 1; }
    uint16_t* out; cudaMallocManaged(&out, 8 * 64 * 2);
    for (int x0 : {0, 8, 1, 3, 5, 7, 100}) {
        cudaMemset(out, 0, 8 * 64 * 2);
        load_box<<<1, 128>>>(map, x0, 0, out);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("x0=%d: %s\n", x0, cudaGetErrorString(e)); return 1; }
        int bad = 0;
        for (int i = 0; i < 8 * 64; ++i) { int y = i / 64, x = x0 + i % 64; if (out[i] != h[y * ld + x]) ++bad; }
        printf("x0=%d: %d of 512 elements wrong\n", x0, bad);
    }
    return 0;
}
