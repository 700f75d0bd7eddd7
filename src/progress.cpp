#include "clusterscore/progress.h"

#include <atomic>

#include "clusterscore/interrupt.h"
#include "detail/parallel.h"
#include "detail/progress.h"

namespace clusterscore {
namespace {
// Atomic: installed from one thread, read from the one running a computation.
std::atomic<ProgressReport> installed{nullptr};
}  // namespace

void set_progress_report(ProgressReport report) noexcept { installed.store(report); }

namespace detail {
void report_progress(uint64_t done, uint64_t total) {
  if (on_worker_thread()) return;  // the caller's thread reports for all
  const ProgressReport report = installed.load(std::memory_order_relaxed);
  if (report != nullptr && report(done, total)) throw Interrupted();
}
}  // namespace detail

}  // namespace clusterscore
