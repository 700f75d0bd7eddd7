// How far ahead loops that read or write at random prefetch: far enough to keep a dozen
// or so cache misses in flight, near enough that prefetched lines are still in L1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "clusterscore/ids.h"

namespace clusterscore::detail {

inline constexpr size_t kPrefetch = 16;
inline constexpr size_t kLineBytes = 64;

// Fetches the line holding `p` ahead of a read, or of a write. Every prefetch in the core
// goes through these, so that an algorithm's body says what it fetches, not how. Must be
// inlined: GCC deems a function whose only effect is a prefetch pure and drops calls.
[[gnu::always_inline]] inline void prefetch(const void* p) { __builtin_prefetch(p); }
[[gnu::always_inline]] inline void prefetch_for_write(const void* p) { __builtin_prefetch(p, 1); }

// Loops that follow many sequential streams at once (more than the hardware prefetcher
// tracks) fetch each stream's line this many lines past the element they read.
inline constexpr size_t kStreamLinesAhead = 2;
template <class T>
[[gnu::always_inline]] inline void prefetch_lines_ahead(const T* p, size_t lines) {
  prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + lines * kLineBytes));
}
// Loops over cells that read their columns' marginals (cells come row by row, so their
// columns at random) and do little else: their misses are fetched 64 cells ahead, as 16
// ahead keeps too few in flight.
inline constexpr size_t kColumnAhead = 4 * kPrefetch;

// Loops that read arrays in order while they also wait on misses at random (or read a
// stream that restarts often: a partition, a block) stall on those arrays too: the
// hardware prefetcher follows them late. They call prefetch_stream(data, i) as they read
// element i, which fetches the line kStreamBytes further on. That line may lie
// past the array: its address is made as an integer, so no pointer past the array is
// formed. Must be inlined: GCC deems a function whose only effect is a prefetch pure and
// drops calls.
inline constexpr size_t kStreamBytes = 2048;
template <class T>
[[gnu::always_inline]] inline void prefetch_stream(const T* data, size_t i) {
  prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(data + i) + kStreamBytes));
}

// For loops that compare string ids at random rows: fetches where the row's offset is,
// and then (once that offset is in cache) where its bytes start.
inline void prefetch_offset(const IdColumn& c, size_t row) {
  if (c.type == IdColumn::Type::kString32)
    prefetch(&c.offsets32[row]);
  else
    prefetch(&c.offsets64[row]);
}
inline void prefetch_bytes(const IdColumn& c, size_t row) { prefetch(c.str(row).data()); }

}  // namespace clusterscore::detail
