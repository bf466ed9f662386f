// Argument checks, as cuBLAS documents them, done on the host before any device work.
#pragma once

#include "problem.hpp"

namespace gemmkit {

// GEMMKIT_SUCCESS, or GEMMKIT_INVALID_VALUE with a message naming the argument.
// `alpha_null`/`beta_null` say whether the caller's host pointers were NULL
// (then p.alpha/p.beta hold nothing meaningful).
gemmkit_status validate(const Problem& p, bool alpha_null, bool beta_null);

}  // namespace gemmkit
