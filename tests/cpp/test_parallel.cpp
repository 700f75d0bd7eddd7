// parallel_for: every task once, per-worker scratch space safe, the lowest failing task's
// error rethrown, and a host's interrupt check still heard while only workers run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "clusterscore/interrupt.h"
#include "clusterscore/threads.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"

using namespace clusterscore;

namespace {
struct Threads {
  explicit Threads(unsigned n) { set_threads(n); }
  ~Threads() { set_threads(0); }
};
}  // namespace

TEST(Parallel, RunsEveryTaskOnceOnAtMostTheThreadsSet) {
  for (unsigned t : {1u, 2u, 3u, 8u}) {
    const Threads threads(t);
    const size_t n = 1000;
    std::vector<std::atomic<int>> runs(n);
    const size_t workers = detail::workers_for(n);
    EXPECT_EQ(workers, t);
    std::vector<size_t> per_worker(workers, 0);  // no lock: one task at a time per worker
    detail::parallel_for(n, [&](size_t w, size_t i) {
      ASSERT_LT(w, workers);
      ++runs[i];
      ++per_worker[w];
    });
    size_t total = 0;
    for (size_t w : per_worker) total += w;
    EXPECT_EQ(total, n);
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
  EXPECT_GE(threads(), 1u);  // 0: the machine's cores
}

TEST(Parallel, NestedCallsRunOnTheirOwnThread) {
  const Threads threads(2);
  std::atomic<size_t> inner{0};
  detail::parallel_for(4, [&](size_t, size_t) {
    if (detail::on_worker_thread()) EXPECT_EQ(detail::workers_for(100), 1u);
    detail::parallel_for(10, [&](size_t w, size_t) {
      if (detail::on_worker_thread()) EXPECT_EQ(w, 0u);
      ++inner;
    });
  });
  EXPECT_EQ(inner.load(), 40u);
}

TEST(Parallel, RethrowsTheLowestFailingTasksError) {
  const Threads threads(2);
  for (int trial = 0; trial < 20; ++trial) {
    try {
      detail::parallel_for(50, [&](size_t, size_t i) {
        if (i == 7) throw std::invalid_argument("seven");
        if (i == 3) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          throw std::out_of_range("three");
        }
      });
      FAIL() << "no exception";
    } catch (const std::out_of_range& e) {
      EXPECT_STREQ(e.what(), "three");
    } catch (const std::invalid_argument&) {
      // 7 failed before 3 was claimed: 3 never ran. Tasks are claimed in order, so 3 was
      // claimed before 7; it can only have been skipped if it had not started yet.
      ADD_FAILURE() << "task 3 was claimed first and must have run";
    }
  }
}

TEST(Parallel, OneCallsFailureStopsNoOtherHostThreadsCall) {
  const Threads threads(2);
  for (int trial = 0; trial < 10; ++trial) {
    std::atomic<bool> failing_started{false};
    std::atomic<size_t> done{0};
    std::thread other([&] {
      detail::parallel_for(200, [&](size_t, size_t) {
        while (!failing_started.load()) std::this_thread::yield();
        detail::poll_interrupt();  // where a task hears that its own call failed
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        ++done;
      });
    });
    EXPECT_THROW(detail::parallel_for(50,
                                      [&](size_t, size_t i) {
                                        failing_started.store(true);
                                        if (i == 0) throw std::runtime_error("this call's");
                                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                      }),
                 std::runtime_error);
    other.join();
    EXPECT_EQ(done.load(), 200u);
  }
}

namespace {
std::atomic<int> host_polls{0};
bool stop_after_a_few() { return ++host_polls >= 3; }
}  // namespace

TEST(Parallel, TheCallerHearsTheHostWhileWorkersRun) {
  const Threads threads(2);
  host_polls = 0;
  set_interrupt_check(&stop_after_a_few);
  const auto start = std::chrono::steady_clock::now();
  std::atomic<bool> worker_ran{false};
  // The caller's task ends once the worker has claimed the other; the worker's polls (as
  // core loops do) for up to 10 s, never calling the host itself: only the caller's
  // polling while it waits can stop it.
  EXPECT_THROW(detail::parallel_for(
                   2,
                   [&](size_t, size_t) {
                     if (!detail::on_worker_thread()) {
                       while (!worker_ran.load() &&
                              std::chrono::steady_clock::now() - start < std::chrono::seconds(5))
                         std::this_thread::yield();
                       return;
                     }
                     worker_ran = true;
                     while (std::chrono::steady_clock::now() - start < std::chrono::seconds(10))
                       detail::poll_interrupt();
                   }),
               Interrupted);
  set_interrupt_check(nullptr);
  EXPECT_TRUE(worker_ran.load());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_GE(host_polls.load(), 3);
  EXPECT_FALSE(detail::parallel_stop_requested());  // cleared for the next call
}
