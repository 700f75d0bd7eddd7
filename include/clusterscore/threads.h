// How many threads the core's parallel parts use. Results never depend on it: work is
// split into tasks by key (partitions of the ids, columns, resamples), each task's output
// is computed by one thread, and outputs are combined in a fixed order, so every number
// is bit-identical for 1 thread or 64.
#pragma once

namespace clusterscore {

// The most threads set_threads() takes: every host (Python, the command line, the
// environment variable) refuses more rather than asking for thousands of threads.
inline constexpr unsigned kMostThreads = 1024;

// Uses up to `n` threads (at most kMostThreads), the caller's among them, in every later
// call; 0 (the default) means one per core the machine has. Not to be changed while a computation
// runs.
void set_threads(unsigned n) noexcept;

// The number of threads in use: `n` as set, or the cores counted for 0.
unsigned threads() noexcept;

}  // namespace clusterscore
