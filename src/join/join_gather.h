// The join's last phase (join/partitioned_join.h): what each item was found to have, read
// back from the partitions into per-item arrays in row order.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "join/partitioned_join.h"

namespace clusterscore::join_detail {

// Internal linkage: see join/partitions.h.
namespace {

// The per-item arrays of A's items, in A's row order: each row's partition is found
// again, and partitions are read front to back, so every read is sequential in one of
// the partitions. B-only items are appended later: room is reserved for exactly them
// (a cached block given to a reservation stays resident even where it is not used).
template <class Hash>
inline void PartitionedJoin<Hash>::unpartition(const Partitions& pa, unsigned bits) {
  const size_t n = a_.items.size, all = n + b_only_count_;
  if (all >= kNone) throw std::length_error("clusterscore: more than 2^32-2 distinct ids");
  j_->b_cluster.reserve(all);
  if (t_) j_->items_row.reserve(all);
  // Written through plain pointers: push_back() checked capacity and stored each
  // vector's end for every row. resize() leaves BigVector's elements unwritten.
  j_->b_cluster.resize(n);
  if (t_) j_->items_row.resize(n);
  uint32_t* const b_cluster = j_->b_cluster.data();
  uint32_t* const items_row = t_ ? j_->items_row.data() : nullptr;
  const Entry* const entries = pa.entries.data();
  // Each stretch of rows between two marks on any thread, from where the scatter was.
  detail::parallel_for(pa.marks.size(), [&](size_t, size_t m) {
    std::vector<size_t> next = pa.marks[m];
    const size_t end = std::min(n, (m + 1) * pa.mark_rows);
    for (size_t r = m * pa.mark_rows; r < end; ++r) {
      detail::poll_every(r);
      // The ids too (detail::prefetch_stream): their stream is interleaved with misses.
      if constexpr (Hash::kExact) detail::prefetch_stream(a_.items.ints, r);
      const size_t at = next[part_of(hash_(a_.items, r), bits)]++;
      // Too many streams for the hardware to follow: each fetches its own next lines,
      // two lines ahead.
      detail::prefetch_lines_ahead(&entries[at], detail::kStreamLinesAhead);
      const Found& f = entries[at].found;
      b_cluster[r] = f.b_cluster;
      if (items_row) items_row[r] = f.items_row;
    }
  });
}

// Numbers the items found only in B after A's, in B's row order, each with its B
// cluster, items-table row and weight. Those rows are visited in order, and each one's
// Found is the next at the front of its partition: one sequential stream per partition.
// Each written at random to its place instead, many B-only items (a small truth against
// a big clustering) missed the cache once each.
template <class Hash>
inline void PartitionedJoin<Hash>::append_b_only(const BigVector<uint32_t>& b_row_cluster,
                                                 unsigned bits) {
  if (t_) j_->items_table_rows = t_->items.size;
  // Through plain pointers, as in unpartition(): room for them was reserved there.
  const size_t n = a_.items.size, all = n + b_only_count_;
  j_->b_cluster.resize(all);
  if (t_) j_->items_row.resize(all);
  uint32_t* b_cluster = j_->b_cluster.data() + n;
  uint32_t* items_row = t_ ? j_->items_row.data() + n : nullptr;
  const Entry* const entries = pb_.entries.data();
  std::vector<size_t> next = pb_.begin;
  each_b_only_row([&](size_t r) {
    const size_t at = next[part_of(hash_(b_.items, r), bits)]++;
    detail::prefetch_lines_ahead(&entries[at], detail::kStreamLinesAhead);  // as in unpartition()
    const Found& f = entries[at].found;
    *b_cluster++ = b_row_cluster[r];
    if (items_row) *items_row++ = f.items_row;
    return true;
  });
  j_->a_cluster.resize(all, kNone);
  pb_ = Partitions{};
}

// Each item's weight: its items-table row's, or 1 (no row, or no weights). The rows are
// read in order and the weights at random, fetched kPrefetch items ahead; in stretches
// on every thread (each writes only its own items).
template <class Hash>
inline void PartitionedJoin<Hash>::gather_weights() {
  const size_t all = j_->n_items();
  j_->weight.resize(all);
  double* const weight = j_->weight.data();
  if (!t_ || !t_->weights) {
    std::fill(weight, weight + all, 1.0);
    return;
  }
  const uint32_t* const row = j_->items_row.data();
  const double* const w = t_->weights;
  constexpr size_t kStretch = size_t(1) << 20;
  detail::parallel_ranges(
      all,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          if (i + kPrefetch < end && row[i + kPrefetch] != kNone)
            detail::prefetch(&w[row[i + kPrefetch]]);
          weight[i] = row[i] == kNone ? 1.0 : w[row[i]];
        }
        detail::poll_interrupt();
      },
      kStretch);
}

// Calls on(r) for each B-only row r in increasing order, until it returns false;
// returns whether it never did.
template <class Hash>
template <class On>
inline bool PartitionedJoin<Hash>::each_b_only_row(On on) const {
  for (size_t w = 0; w < b_only_.size(); ++w)
    for (uint64_t left = b_only_[w]; left != 0; left &= left - 1)
      if (!on(64 * w + size_t(std::countr_zero(left)))) return false;
  return true;
}

}  // namespace
}  // namespace clusterscore::join_detail
