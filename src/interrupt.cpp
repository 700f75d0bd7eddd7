#include "clusterscore/interrupt.h"

#include <atomic>

#include "detail/interrupt.h"

namespace clusterscore {
namespace {
// Atomic: installed from one thread, read from the one running a computation.
std::atomic<InterruptCheck> installed{nullptr};
}  // namespace

void set_interrupt_check(InterruptCheck check) noexcept { installed.store(check); }

namespace detail {
void poll_interrupt() {
  const InterruptCheck check = installed.load(std::memory_order_relaxed);
  if (check != nullptr && check()) throw Interrupted();
}
}  // namespace detail

}  // namespace clusterscore
