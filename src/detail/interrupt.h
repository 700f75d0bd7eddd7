// Polling the installed InterruptCheck from the core's loops.
#pragma once

#include <cstddef>

#include "clusterscore/interrupt.h"

namespace clusterscore::detail {

// Throws Interrupted if the installed check asks to stop.
void poll_interrupt();

// In a loop over i: polls once every 2^Shift iterations, a mask and a branch otherwise.
// 2^22 suits loops doing a few nanoseconds per item; a loop whose iteration costs more
// (an auction bid scans a row) polls more often, to keep each stretch well under a second.
template <unsigned Shift = 22>
inline void poll_every(size_t i) {
  if ((i & ((size_t(1) << Shift) - 1)) == 0) poll_interrupt();
}

}  // namespace clusterscore::detail
