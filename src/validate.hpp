// Argument checks, as cuBLAS documents them, done on the host before any device work.
#pragma once

#include "problem.hpp"

namespace gemmkit {

// GEMMKIT_SUCCESS, or GEMMKIT_INVALID_VALUE with a message naming the argument.
// `alpha_null`/`beta_null` say whether the caller's host pointers were NULL
// (then p.alpha/p.beta hold nothing meaningful).
gemmkit_status validate(const Problem& p, bool alpha_null, bool beta_null);

// Reads a caller's epilogue descriptor (NULL: none) into *out, checking what the descriptor
// alone decides: its size (version), the activation, and bias and aux of C's type `c_type`.
// validate() checks the rest (alignment, ld_aux, strides) with the problem.
gemmkit_status read_epilogue(const gemmkit_epilogue* d, gemmkit_dtype c_type, Epilogue* out);

// Reads a caller's scaling descriptor (gemmkit_gemm_scaled_ex; NULL: per-tensor, no scales) into
// *out, checking its size (version), its mode (block scaling is not served: NOT_SUPPORTED) and
// the scale pointers' alignment, and that A and B are FP8.
gemmkit_status read_scaling(const gemmkit_scaling* d, gemmkit_dtype a_type, gemmkit_dtype b_type, Scaling* out);

struct QuantizeArgs;  // kernels/fp8/quantize.hpp

// gemmkit_quantize_fp8's arguments, all that they decide alone (no device): INVALID_VALUE or
// NOT_SUPPORTED naming the argument; *nothing where there is nothing to do (k or mn of 0: as in
// cuBLAS, no pointer is read then).
gemmkit_status validate_quantize(const QuantizeArgs& a, bool* nothing);

// gemmkit_quantize_fp8_blocks's: a.block_mn 1 or 128 (else INVALID_VALUE), then
// validate_quantize's checks, the scales one a block (quantize_scale_count).
gemmkit_status validate_quantize_blocks(const QuantizeArgs& a, bool* nothing);

}  // namespace gemmkit
