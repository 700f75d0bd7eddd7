// Polling the installed InterruptCheck from the core's loops.
#pragma once

#include <cstddef>

#include "clusterscore/interrupt.h"

namespace clusterscore::detail {

// Throws Interrupted if the installed check asks to stop.
void poll_interrupt();

// In a loop over i: polls once every 2^22 iterations, a mask and a branch otherwise.
inline void poll_every(size_t i) {
  if ((i & ((size_t(1) << 22) - 1)) == 0) poll_interrupt();
}

}  // namespace clusterscore::detail
