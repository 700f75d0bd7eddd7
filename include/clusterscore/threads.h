// How many threads the core's parallel parts use. Results never depend on it: work is
// split into tasks by key (partitions of the ids, columns, resamples), each task's output
// is computed by one thread, and outputs are combined in a fixed order, so every number
// is bit-identical for 1 thread or 64.
#pragma once

namespace clusterscore {

// Uses up to `n` threads (at most 1024), the caller's among them, in every later call; 0
// (the default) means one per core the machine has. Not to be changed while a computation runs.
void set_threads(unsigned n) noexcept;

// The number of threads in use: `n` as set, or the cores counted for 0.
unsigned threads() noexcept;

}  // namespace clusterscore
