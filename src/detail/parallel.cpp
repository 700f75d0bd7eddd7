#include "detail/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "clusterscore/interrupt.h"
#include "clusterscore/threads.h"
#include "detail/interrupt.h"

namespace clusterscore {
namespace {
std::atomic<unsigned> requested{0};
thread_local bool worker_thread = false;
// Set while this thread runs a parallel_for's tasks: calls nested in them run serially,
// on this thread, rather than multiplying the threads.
thread_local bool in_region = false;
// The stop flag of the parallel_for whose tasks this thread runs (null outside one): set
// once a task of it has failed.
thread_local const std::atomic<bool>* active_stop = nullptr;
}  // namespace

void set_threads(unsigned n) noexcept { requested.store(std::min(n, kMostThreads)); }

unsigned threads() noexcept {
  const unsigned n = requested.load();
  if (n != 0) return n;
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace detail {

bool on_worker_thread() noexcept { return worker_thread; }
bool parallel_stop_requested() noexcept {
  return active_stop != nullptr && active_stop->load(std::memory_order_relaxed);
}

size_t workers_for(size_t n) {
  if (in_region) return 1;
  return std::max<size_t>(1, std::min<size_t>(threads(), n));
}

void parallel_for(size_t n, const std::function<void(size_t, size_t)>& task) {
  const size_t workers = workers_for(n);
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) task(0, i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> failed(n);
  std::exception_ptr waiting_interrupt;
  std::atomic<bool> stop{false};
  const auto run = [&](size_t worker) {
    for (size_t i; !stop.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
      try {
        task(worker, i);
      } catch (...) {
        failed[i] = std::current_exception();
        stop.store(true);
      }
    }
  };
  std::mutex m;
  std::condition_variable cv;
  size_t running = workers - 1;
  std::vector<std::thread> started;
  started.reserve(workers - 1);
  for (size_t w = 1; w < workers; ++w) {
    try {
      started.emplace_back([&, w] {
        worker_thread = in_region = true;
        active_stop = &stop;
        run(w);
        const std::lock_guard<std::mutex> lock(m);
        --running;
        cv.notify_one();
      });
    } catch (const std::system_error&) {
      // No thread to be had (a memory or process limit): the workers started and this
      // one take every task, and the results do not depend on how many run.
      const std::lock_guard<std::mutex> lock(m);
      running -= workers - w;
      break;
    }
  }
  in_region = true;
  const std::atomic<bool>* outer = active_stop;
  active_stop = &stop;
  run(0);
  active_stop = outer;
  in_region = false;
  // Out of tasks, the caller keeps polling the host's check while the workers finish: a
  // long task on a worker must still stop within a fraction of a second of Ctrl-C.
  {
    std::unique_lock<std::mutex> lock(m);
    while (running > 0) {
      if (cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return running == 0; })) break;
      if (waiting_interrupt || stop.load()) continue;
      lock.unlock();
      try {
        poll_interrupt();
      } catch (...) {
        waiting_interrupt = std::current_exception();
        stop.store(true);
      }
      lock.lock();
    }
  }
  for (std::thread& t : started) t.join();
  std::exception_ptr first_interrupt = waiting_interrupt;
  for (const std::exception_ptr& e : failed) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const Interrupted&) {
      if (!first_interrupt) first_interrupt = e;
    } catch (...) {
      std::rethrow_exception(e);
    }
  }
  if (first_interrupt) std::rethrow_exception(first_interrupt);
}

}  // namespace detail
}  // namespace clusterscore
