// How far ahead loops that read or write at random prefetch: far enough to keep a dozen
// or so cache misses in flight, near enough that prefetched lines are still in L1.
#pragma once

#include <cstddef>

namespace clusterscore::detail {

inline constexpr size_t kPrefetch = 16;

}  // namespace clusterscore::detail
