// Running independent tasks on the threads set by set_threads(). Threads are started per
// call and joined before it returns (no pool outlives a computation, so none is left
// running when a host process exits); a call worth splitting takes milliseconds at
// least, against tens of microseconds to start a thread.
#pragma once

#include <cstddef>
#include <functional>

namespace clusterscore::detail {

// Calls task(worker, i) once for every i < n, on up to min(threads(), n) threads: the
// caller's is worker 0, the others 1, 2, …, each worker running one task at a time (so
// per-worker scratch space indexed by `worker` needs no lock). Called from inside a
// task, it runs every task on that task's thread, as worker 0. Tasks are claimed in
// increasing order; which worker runs which task varies from run to run, so a task's
// output may depend on i but never on `worker`.
//
// If a task throws, the tasks not yet started are skipped, the running ones stop at
// their next poll_interrupt() (which throws Interrupted on a worker thread once any task
// failed), and the exception of the lowest-numbered task that failed other than by
// Interrupted is rethrown here once every thread has joined.
void parallel_for(size_t n, const std::function<void(size_t worker, size_t i)>& task);

// The number of workers parallel_for(n, ...) uses: size per-worker scratch space by it.
size_t workers_for(size_t n);

// Runs each function once, in parallel as far as threads allow; exceptions as above.
template <class... F>
void parallel_invoke(F&&... fs) {
  const std::function<void()> all[] = {std::function<void()>(fs)...};
  parallel_for(sizeof...(F), [&](size_t, size_t i) { all[i](); });
}

// Calls body(part, lo, hi) for `parts` consecutive ranges that cover [0, n), part p being
// [n·p / parts, n·(p + 1) / parts), in parallel: for a task that owns a range (of groups,
// of columns) and reads every input, adding what falls in its range. Each range is summed
// by one task in input order, so the bits do not depend on the number of threads.
template <class F>
void parallel_parts(size_t n, size_t parts, const F& body) {
  parallel_for(parts, [&](size_t, size_t p) { body(p, n * p / parts, n * (p + 1) / parts); });
}

// Calls body(begin, end) for consecutive ranges that cover [0, n), each of `per` indices
// (the last one shorter), in parallel: for loops whose every index is computed on its own.
template <class F>
void parallel_ranges(size_t n, const F& body, size_t per = size_t(1) << 16) {
  parallel_for((n + per - 1) / per, [&](size_t, size_t r) {
    const size_t begin = r * per;
    body(begin, begin + per < n ? begin + per : n);
  });
}

// True on a thread started by parallel_for (not the caller's): such a thread neither
// calls the host's interrupt check nor reports progress.
bool on_worker_thread() noexcept;

// Set once any task of the parallel_for this thread runs tasks of has failed: its workers
// stop at their next poll. Each call has its own flag, so that host threads may call the
// core at once (a write beside a bootstrap) and one's failure stops no other.
bool parallel_stop_requested() noexcept;

}  // namespace clusterscore::detail
