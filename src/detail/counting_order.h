// A stable counting sort by a small key: the one behind every "by key, stably" ordering of
// records that fits in memory at once (the bootstrap's cells and entries by cluster and by
// cell, the matching's open cells by row). Keys too spread for it: radix_partition.h.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace clusterscore::detail {

// What counting_order() returns: the records in order, and where each key's records start.
struct CountingOrder {
  std::vector<size_t> order;  // the records i < n whose key is not kSkip, by key, stably
  std::vector<size_t> start;  // per key, its first place in `order`; keys + 1 entries
};

inline constexpr size_t kSkip = std::numeric_limits<size_t>::max();

// The records i < n ordered by key(i) in [0, keys) (kSkip: left out), each key's in order of
// i. O(n + keys).
template <class Key>
CountingOrder counting_order(size_t n, size_t keys, Key key) {
  CountingOrder out;
  out.start.assign(keys + 1, 0);
  for (size_t i = 0; i < n; ++i)
    if (const size_t k = key(i); k != kSkip) ++out.start[k + 1];
  for (size_t k = 0; k < keys; ++k) out.start[k + 1] += out.start[k];
  out.order.resize(out.start[keys]);
  std::vector<size_t> at(out.start.begin(), out.start.end() - 1);
  for (size_t i = 0; i < n; ++i)
    if (const size_t k = key(i); k != kSkip) out.order[at[k]++] = i;
  return out;
}

}  // namespace clusterscore::detail
