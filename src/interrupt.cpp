#include "clusterscore/interrupt.h"

#include <atomic>

#include "detail/interrupt.h"
#include "detail/parallel.h"

namespace clusterscore {
namespace {
// Atomic: installed from one thread, read from the one running a computation.
std::atomic<InterruptCheck> installed{nullptr};
}  // namespace

void set_interrupt_check(InterruptCheck check) noexcept { installed.store(check); }

namespace detail {
void poll_interrupt() {
  // Another task of a parallel_for failed: this one's result will not be used.
  if (parallel_stop_requested()) throw Interrupted();
  if (on_worker_thread()) return;  // the host's check is for the thread that called in
  const InterruptCheck check = installed.load(std::memory_order_relaxed);
  if (check != nullptr && check()) throw Interrupted();
}
}  // namespace detail

}  // namespace clusterscore
