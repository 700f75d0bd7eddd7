// The join's second phase (join/partitioned_join.h): partitions joined one by one, on any
// thread, through a table of their own.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <vector>

#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/progress.h"
#include "join/partitioned_join.h"

namespace clusterscore::join_detail {

// Internal linkage: see join/partitions.h.
namespace {

// Joins partition by partition, leaving in each entry of A's partitions what its item
// was found to have. B's partitions stay in pb_ if some items are only in B, with what
// each of those was found to have at the front of its partition (see add_b).
// Partitions are independent: each thread joins whole ones through a table of its own.
// What they share is combined so that no result depends on which thread did what: the
// B-only bits by atomic or, the first repeats by minimum, the unmatched rows by sum.
template <class Hash>
inline void PartitionedJoin<Hash>::join_partitions(unsigned bits, Partitions& pa,
                                                   const Partitions& pt) {
  b_only_.assign((b_.items.size + 63) / 64, 0);
  const size_t parts = size_t(1) << bits;
  std::vector<PartWorker> workers(detail::workers_for(parts));
  detail::parallel_for(parts, [&](size_t w, size_t p) {
    if (p % 64 == 0) detail::poll_interrupt();
    detail::report_every(p, parts);
    PartWorker& worker = workers[w];
    // Sized for the largest input: when A is a small truth, most ids are B's own, or
    // the items table's.
    worker.table.next_partition(std::max({pa.size(p), pb_.size(p), pt.size(p)}),
                                pa.size(p) + pb_.size(p) + pt.size(p));
    add_a(pa, p, worker);
    add_b(p, worker, pa);
    add_items(pt, p, worker, pa);
  });
  for (const PartWorker& w : workers) {
    a_repeat_.note(w.a_repeat.row);
    b_repeat_.note(w.b_repeat.row);
    t_repeat_.note(w.t_repeat.row);
    j_->items_table_unmatched += w.items_unmatched;
  }
  for (uint64_t word : b_only_) b_only_count_ += size_t(std::popcount(word));
  if (b_only_count_ == 0) pb_ = Partitions{};  // as soon as it is not needed
}

// Calls on(e, tuple, slot) for each entry e of partition p in order, with its tuple (a
// copy: `on` may overwrite the entry) and the table slot of its hash, new (no Seen bits)
// if absent. Slots are fetched kPrefetch entries ahead, in a loop of its own that need
// not check for the partition's end. The entries themselves are fetched 2 KiB ahead
// (detail::prefetch_stream): a partition is a stream of ~200 KB that the hardware
// prefetcher picks up late, and the loop stalled on loading them (1 KiB ahead did less,
// 4 KiB no better).
template <class Hash>
template <class On>
inline void PartitionedJoin<Hash>::each_entry(const Partitions& part, size_t p, PartTable& table,
                                              On on) {
  const size_t begin = part.begin[p], end = part.end[p];
  const size_t ahead = end - begin > kPrefetch ? end - kPrefetch : begin;
  for (size_t e = begin; e < ahead; ++e) {
    detail::prefetch_stream(part.entries.data(), e);
    table.prefetch(part.entries[e + kPrefetch].tuple.hash);
    const Tuple x = part.entries[e].tuple;
    on(e, x, table.find_or_add(x.hash));
  }
  for (size_t e = ahead; e < end; ++e) {
    const Tuple x = part.entries[e].tuple;
    on(e, x, table.find_or_add(x.hash));
  }
}

// Puts partition p of A in the table, turning each entry into "nothing found yet" as it
// goes (a repeat's first row is found again by a scan, as for B).
template <class Hash>
inline void PartitionedJoin<Hash>::add_a(Partitions& pa, size_t p, PartWorker& w) {
  each_entry(pa, p, w.table, [&](size_t e, const Tuple& x, Slot& s) {
    pa.entries[e].found = {kNone, kNone};
    if (s.in(kInA)) {
      w.a_repeat.note(x.row);
      return;
    }
    s.row = uint32_t(e);
    s.tag |= kInA;
  });
}

// A B item found in A goes to its A entry. One that is not (B-only) gets a Found of its
// own at the front of the partition, in row order, for the items table to fill and
// append_b_only() to read: the front never passes the entry being read.
template <class Hash>
inline void PartitionedJoin<Hash>::add_b(size_t p, PartWorker& w, Partitions& pa) {
  size_t front = pb_.begin[p];
  each_entry(pb_, p, w.table, [&](size_t, const Tuple& x, Slot& s) {
    if (s.in(kInB)) {
      w.b_repeat.note(x.row);
      return;
    }
    s.tag |= kInB;
    if (s.in(kInA)) {
      pa.entries[s.row].found.b_cluster = Hash::kExact ? x.extra : x.row;
    } else {
      s.row = uint32_t(front);
      pb_.entries[front++].found = {kNone, kNone};  // b_cluster is set from B's row
      // Another thread's partition may set a bit of the same word.
      std::atomic_ref<uint64_t>(b_only_[x.row >> 6])
          .fetch_or(uint64_t(1) << (x.row & 63), std::memory_order_relaxed);
    }
  });
}

template <class Hash>
inline void PartitionedJoin<Hash>::add_items(const Partitions& pt, size_t p, PartWorker& w,
                                             Partitions& pa) {
  if (pt.empty()) return;  // no items table
  each_entry(pt, p, w.table, [&](size_t, const Tuple& x, Slot& s) {
    if (s.in(kInItems)) {
      w.t_repeat.note(x.row);
      return;
    }
    s.tag |= kInItems;
    if (s.in(kInA) || s.in(kInB)) {  // the row of its A entry, or of its B-only Found
      Found& f = (s.in(kInA) ? pa : pb_).entries[s.row].found;
      f.items_row = x.row;
    } else {
      s.row = x.row;
      ++w.items_unmatched;
    }
  });
}

}  // namespace
}  // namespace clusterscore::join_detail
