#include "clusterscore/progress.h"

#include <atomic>

#include "clusterscore/interrupt.h"
#include "detail/progress.h"

namespace clusterscore {
namespace {
// Atomic: installed from one thread, read from the one running a computation.
std::atomic<ProgressReport> installed{nullptr};
}  // namespace

void set_progress_report(ProgressReport report) noexcept { installed.store(report); }

namespace detail {
void report_progress(uint64_t done, uint64_t total) {
  const ProgressReport report = installed.load(std::memory_order_relaxed);
  if (report != nullptr && report(done, total)) throw Interrupted();
}
}  // namespace detail

}  // namespace clusterscore
