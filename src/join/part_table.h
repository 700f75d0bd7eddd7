// The table each partition is joined through (join/join_partitions.h), and what a thread
// of that loop finds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "detail/hash.h"
#include "detail/prefetch.h"
#include "input/dense_ids.h"

namespace clusterscore::join_detail {

// Internal linkage: see join/partitions.h.
namespace {

// What a partition's table knows of an id: which inputs hold it and one row of it.
enum Seen : uint32_t { kInA = 1, kInB = 2, kInItems = 4, kSeenBits = 7 };
struct Slot {
  uint64_t hash;
  uint32_t row;  // its A entry's position if kInA, else its row in B if kInB, else its
                 // row in the items table
  uint32_t tag;  // (partition + 1) << 3 | Seen bits; a slot tagged for another partition
                 // is empty
  bool in(Seen s) const { return tag & s; }
};

// Open addressing with linear probing (detail::probe) on the hash's low bits (the partition took
// the high ones). Sized for a quarter full, and at most half: at 1e7 rows, half full made the
// partition loop 20% slower, for longer probes, although the table then fits in L2.
// Reused across partitions: the tags tell this partition's slots from stale ones, so the
// table is never cleared (that would be 2 MB per partition).
class PartTable {
 public:
  // Starts the next partition, sized for `expected` ids, of which there are at most
  // `most` (its rows in all inputs): so the table is never more than half full, and never
  // grows: a check for growth at every insert, and the call it made, cost measurable
  // time although it never grew.
  void next_partition(size_t expected, size_t most) {
    size_t cap = 16;
    while (cap < 4 * expected || cap < 2 * most + 2) cap <<= 1;
    if (slots_.size() < cap) slots_.assign(cap, Slot{0, 0, 0});  // tag 0: no partition's
    mask_ = cap - 1;
    tag_ += kSeenBits + 1;
  }
  [[gnu::always_inline]] void prefetch(uint64_t hash) const {
    detail::prefetch_for_write(&slots_[hash & mask_]);
  }
  // The slot of `hash`; a new one (no Seen bits, for the caller to set) if absent.
  // Inlined in the three loops that call it: as a call, it kept their state in memory.
  [[gnu::always_inline]] Slot& find_or_add(uint64_t hash) {
    const size_t i = detail::probe(
        slots_.data(), mask_, hash & mask_, [this](const Slot& s) { return !live(s); },
        [hash](const Slot& s) { return s.hash == hash; });
    if (!live(slots_[i])) slots_[i] = Slot{hash, 0, tag_};
    return slots_[i];
  }

 private:
  bool live(const Slot& s) const { return (s.tag & ~uint32_t(kSeenBits)) == tag_; }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  uint32_t tag_ = 0;  // this partition's: (partition + 1) << 3; partitions < 2^17
};

// The earliest row found to repeat an id (the row it repeats is found again by a scan).
struct FirstRepeat {
  size_t row = std::numeric_limits<size_t>::max();
  void note(size_t r) { row = std::min(row, r); }
  bool found() const { return row != std::numeric_limits<size_t>::max(); }
};

// What one thread of the partition loop keeps: its table, and what it found, combined
// with the other threads' once the loop is over.
struct PartWorker {
  PartTable table;
  FirstRepeat a_repeat, b_repeat, t_repeat;
  size_t items_unmatched = 0;
};

}  // namespace
}  // namespace clusterscore::join_detail
