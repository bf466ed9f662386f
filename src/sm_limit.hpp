// The calling thread's SM limit (gemmkit_set_sm_limit, gemmkit.h): the most SMs its GEMMs plan
// for, 0 for none. current_device_facts (device_state.hpp) applies it.
#pragma once

namespace gemmkit {

void set_sm_limit(int sm_count);
int sm_limit();

}  // namespace gemmkit
