// String ids' matches compared byte for byte (join/partitioned_join.h): a hash of 64 bits
// may match two different ids.
#pragma once

#include <cstddef>

#include "detail/interrupt.h"
#include "detail/prefetch.h"
#include "join/partitioned_join.h"

namespace clusterscore::join_detail {

// Internal linkage: see join/partitions.h.
namespace {

// String ids: compares each item of A with the B and items-table rows its hash matched,
// and turns the B rows in b_cluster into B's clusters; false at the first pair that
// differs. Those rows are read at random: their offsets are fetched 2 * kAhead items
// ahead, and their bytes kAhead items ahead, once the offsets are in cache.
template <class Hash>
inline bool PartitionedJoin<Hash>::compare_strings(const BigVector<uint32_t>& b_row_cluster) {
  constexpr size_t kAhead = 2 * kPrefetch;
  BigVector<uint32_t>& b_of = j_->b_cluster;  // B rows, for now
  const uint32_t* t_of = t_ ? j_->items_row.data() : nullptr;
  const IdColumn& a = a_.items;
  const IdColumn& b = b_.items;
  const size_t n = a.size;
  for (size_t i = 0; i < n; ++i) {
    detail::poll_every(i);
    if (i + 2 * kAhead < n) {
      if (const uint32_t r = b_of[i + 2 * kAhead]; r != kNone) {
        prefetch_offset(b, r);
        detail::prefetch(&b_row_cluster[r]);
      }
      if (t_of && t_of[i + 2 * kAhead] != kNone) prefetch_offset(t_->items, t_of[i + 2 * kAhead]);
    }
    if (i + kAhead < n) {
      if (const uint32_t r = b_of[i + kAhead]; r != kNone) prefetch_bytes(b, r);
      if (t_of && t_of[i + kAhead] != kNone) prefetch_bytes(t_->items, t_of[i + kAhead]);
    }
    if (const uint32_t r = b_of[i]; r != kNone) {
      if (a.str(i) != b.str(r)) return false;
      b_of[i] = b_row_cluster[r];
    }
    if (t_of && t_of[i] != kNone && a.str(i) != t_->items.str(t_of[i])) return false;
  }
  return true;
}

// String ids: whether each B-only item's bytes equal those of the items-table row its
// hash matched. B's rows come in order; the items table's are read at random, fetched
// ahead as in compare_strings(). A pass of its own: compared inside append_b_only(),
// the two kinds of misses stalled each other, and the join took much longer.
template <class Hash>
inline bool PartitionedJoin<Hash>::compare_b_only_strings() const {
  if (!t_) return true;
  constexpr size_t kAhead = 2 * kPrefetch;
  const uint32_t* t_of = j_->items_row.data() + a_.items.size;
  const size_t m = b_only_count_;
  size_t k = 0;  // the item's rank among B-only items
  return each_b_only_row([&](size_t r) {
    if (k + 2 * kAhead < m && t_of[k + 2 * kAhead] != kNone)
      prefetch_offset(t_->items, t_of[k + 2 * kAhead]);
    if (k + kAhead < m && t_of[k + kAhead] != kNone) prefetch_bytes(t_->items, t_of[k + kAhead]);
    const uint32_t t_row = t_of[k++];
    return t_row == kNone || b_.items.str(r) == t_->items.str(t_row);
  });
}

}  // namespace
}  // namespace clusterscore::join_detail
