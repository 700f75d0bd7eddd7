// The host's two hooks into a running computation: the interrupt check and the progress
// report. Each is installed from one thread and read by the one running a computation
// (atomics), and called on the thread that called into the core only.
#include "clusterscore/interrupt.h"

#include <atomic>

#include "clusterscore/progress.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/progress.h"

namespace clusterscore {
namespace {
std::atomic<InterruptCheck> installed_check{nullptr};
std::atomic<ProgressReport> installed_report{nullptr};
}  // namespace

void set_interrupt_check(InterruptCheck check) noexcept { installed_check.store(check); }
void set_progress_report(ProgressReport report) noexcept { installed_report.store(report); }

namespace detail {

void poll_interrupt() {
  // Another task of a parallel_for failed: this one's result will not be used.
  if (parallel_stop_requested()) throw Interrupted();
  if (on_worker_thread()) return;
  const InterruptCheck check = installed_check.load(std::memory_order_relaxed);
  if (check != nullptr && check()) throw Interrupted();
}

void report_progress(uint64_t done, uint64_t total) {
  if (on_worker_thread()) return;
  const ProgressReport report = installed_report.load(std::memory_order_relaxed);
  if (report != nullptr && report(done, total)) throw Interrupted();
}

}  // namespace detail
}  // namespace clusterscore
