// Writing a warpgroup's 64 x N accumulator tile to C with alpha and beta (register epilogue).
#pragma once

#include "kernels/tensor/types.cuh"

namespace gemmkit::hopper {

// What the epilogue needs of a problem (A and B travel as tensor maps).
template <class TC>
struct OutputArgs {
    int m, n, k;
    TC* C;
    int64_t ldc;
    float alpha, beta;
    bool tma_store;  // step 6: C is written through shared memory and TMA (launch decides)
    // C that TMA cannot write (beta 0): staged as for TMA, then copied out by the warpgroup's own
    // stores (launch decides; epilogue_tma.cuh, copy_out_staged_piece).
    bool staged_store;
    // A batch (problem.hpp, Batch; steps 10 and on): its problems, how far C moves a problem
    // (elements), and whether A and B do (1) or every problem reads matrix 0 of their maps (0).
    int batch;
    int64_t stride_c;
    int a_step, b_step;
    EpilogueArgs<TC> epi;  // the fused epilogue (inactive: none)
};

template <class TC>
OutputArgs<TC> make_output_args(const Problem& p) {
    return {static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), static_cast<TC*>(p.C), p.ldc,
            static_cast<float>(p.alpha), static_cast<float>(p.beta), false, false, static_cast<int>(p.batch.count),
            p.batch.stride_c, p.batch.stride_a != 0, p.batch.stride_b != 0, make_epilogue_args<TC>(p)};
}

// The fused epilogue on a Hopper tile, in two parts (docs/epilogues.md#hopper):
// - RowBias: the bias, added as the accumulators are scaled (a thread's values of a wgmma
//   tile lie on two rows, row and row + 8, so it reads two values), before C's rounding;
// - finish_value (epilogue_ops.cuh): aux and the activation, applied afterwards to the values
//   as rounded to C's type, in a loop that is not unrolled, over the staged piece in shared
//   memory or over the thread's own stores in C.
struct RowBias {
    float b[2] = {0.0f, 0.0f};  // rows row and row + 8

    template <class TC>
    __device__ __forceinline__ RowBias(const OutputArgs<TC>& out, int z, int row) {
        if (out.epi.bias == nullptr) return;
        EpilogueArgs<TC> e = out.epi;
        e.select(z);
        b[0] = bias_of<float>(e, row, out.m);
        b[1] = bias_of<float>(e, row + 8, out.m);
    }
};

// The activations a 16-bit tile without aux applies in registers as it scales its accumulators:
// ReLU, and the tanh GELU and SiLU as 0.5 v (1 + tanh(v (c1 + c3 v^2))) with one tanh.approx
// (SiLU: v sigmoid(v) = 0.5 v (1 + tanh(v / 2))). A few instructions a value, without branches,
// so the unrolled packing loops stay small. The erf GELU, aux, and FP32 C (whose accuracy
// tanh.approx would not meet) take the second part instead (finishes). Measured: the second
// part alone cost 20-25% on the BF16 layers of docs/epilogues.md#measured.
struct RegisterActivation {
    float c1 = 0.0f, c3 = 0.0f;
    bool relu = false;

    __device__ __forceinline__ explicit RegisterActivation(int activation) {
        relu = activation == GEMMKIT_ACTIVATION_RELU;
        c1 = activation == GEMMKIT_ACTIVATION_GELU_TANH ? 0.7978845608f : 0.5f;  // sqrt(2 / pi)
        c3 = activation == GEMMKIT_ACTIVATION_GELU_TANH ? 0.0356774081f : 0.0f;  // 0.044715 sqrt(2 / pi)
    }
    __device__ __forceinline__ float operator()(float v) const {
        const float half = 0.5f * v, t = tanh_approx(v * fmaf(c3, v * v, c1));
        return relu ? (v < 0.0f ? 0.0f : v) : fmaf(half, t, half);
    }
};

// Whether the tile applies the epilogue's activation in registers (RegisterActivation).
template <class TC>
__device__ __forceinline__ bool activates_in_registers(const OutputArgs<TC>& out) {
    const int a = out.epi.activation;
    return sizeof(TC) == 2 && out.epi.aux == nullptr &&
           (a == GEMMKIT_ACTIVATION_RELU || a == GEMMKIT_ACTIVATION_GELU_TANH || a == GEMMKIT_ACTIVATION_SILU);
}

// Whether the values a tile stored, or staged, still need the second part (aux or an activation
// that activates_in_registers did not apply).
template <class TC>
__device__ __forceinline__ bool finishes(const OutputArgs<TC>& out) {
    return finishes(out.epi) && !activates_in_registers(out);
}

// Stores the accumulators of wgmma m64nN (fragment layout in ptx/wgmma.cuh) of the warpgroup
// whose tile starts at C(row0, col0) of problem z of the batch, with the bias, then finishes
// them (aux, activation) in a second, rolled pass over the same elements, which this thread has
// just written; elements outside m x n are skipped. With kColumnFloor, so are the columns
// before first_col (the grouped GEMM's tiles may start before their group: grouped_schedule.hpp).
template <int N, bool kColumnFloor = false, class TC>
__device__ __forceinline__ void store_warpgroup_tile(const float (&d)[N / 2], const OutputArgs<TC>& out, int z,
                                                     int row0, int col0, int first_col = 0) {
    TC* const cz = out.C + z * out.stride_c;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
    const int row = row0 + 16 * warp + lane / 4, col = col0 + 2 * (lane % 4);
    const RowBias bias(out, z, row);
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const int i = row + 8 * h, jj = col + 8 * j + c;
                if (i < out.m && jj < out.n && (!kColumnFloor || jj >= first_col))
                    tensor::store_scaled(cz, out.ldc, i, jj, d[4 * j + 2 * h + c], out.alpha, out.beta, bias.b[h]);
            }
        }
    }
    EpilogueArgs<TC> e = out.epi;
    e.select(z);
    finish_stored(e, cz, out.ldc, out.m, out.n, N / 2, [&](int v) {  // d[v]: v = 4j + 2h + c
        const int jj = col + 8 * (v / 4) + v % 2;
        // A row past m is skipped: so is a column before the floor.
        return make_int2(kColumnFloor && jj < first_col ? out.m : row + 8 * (v / 2 % 2), jj);
    });
}

}  // namespace gemmkit::hopper
