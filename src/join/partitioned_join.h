// The join of item ids by radix partitioning: each column is scattered into partitions by
// the top bits of a hash of the id, and each partition is joined through a hash table
// small enough to stay in L2. What each item of A gets (its B cluster, items row and
// weight) is written next to its own partitioned tuple, and one last pass over A in row
// order reads those back from the partitions' ~1,000 sequential streams. At 1e7 rows
// this replaces ~3e7 cache misses into tables of hundreds of MB with sequential scans
// and cache-resident random access.
//
// Integer ids hash through a bijection, so equal hashes are equal ids. String ids hash
// to 64 bits, where two different ids may collide: every match the hashes make is then
// compared byte for byte, in row order with the bytes fetched ahead, and a collision
// makes the caller (join.cpp) start again with another seed of the hash. Comparing each
// string once against its match costs a fraction of a table of strings' three or four
// dependent cache misses per lookup.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "detail/big_vector.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/weight.h"
#include "input/clustering.h"
#include "join/part_table.h"
#include "join/partitions.h"
#include "join/parts.h"

namespace clusterscore::join_detail {

// Internal linkage: see join/partitions.h.
namespace {

using detail::kPrefetch;
using detail::prefetch_bytes;
using detail::prefetch_offset;

template <class Hash>
class PartitionedJoin {
 public:
  PartitionedJoin(const Hash& hash, const ClusteringInput& a, const ClusteringInput& b,
                  const ItemsInput* items, JoinedClusterings* j)
      : hash_(hash), a_(a), b_(b), t_(items), j_(j) {}

  // False if string ids collided (see join_partitioned).
  bool run(size_t partition_rows) {
    const unsigned bits = partition_bits(partition_rows);
    BigVector<uint32_t> b_row_cluster;
    Partitions pa;
    Partitions pt;
    // Four independent passes over the inputs, on as many threads as there are. B's
    // partitions carry its rows' clusters (integer ids), so they follow B's clusters.
    detail::parallel_invoke(
        [&] {
          b_row_cluster = cluster_index(b_, &j_->b_cluster_first_row);
          // String ids keep B's row (in the tuple anyway) until their bytes are compared.
          const uint32_t* b_extra = Hash::kExact ? b_row_cluster.data() : nullptr;
          pb_ = partition(hash_, b_.items, b_extra, bits);
        },
        [&] { pa = partition(hash_, a_.items, nullptr, bits, true); },
        [&] { j_->a_cluster = cluster_index(a_, &j_->a_cluster_first_row); },
        [&] {
          if (!t_) return;
          pt = partition(hash_, t_->items, nullptr, bits);
          // Scanned here, beside the partitioning; check_weights() names the first bad
          // weight, after the clusterings' repeats are reported.
          t_bad_weight_ = t_->weights && !std::all_of(t_->weights, t_->weights + t_->items.size,
                                                      detail::is_weight);
        });
    join_partitions(bits, pa, pt);
    // What the items table's entries gave is in A's entries and B's partitions now: freed
    // before the per-item arrays are taken.
    pt = Partitions{};
    if (!report_repeat(a_.role, a_.items, a_repeat_)) return false;
    if (!report_repeat(b_.role, b_.items, b_repeat_)) return false;
    if (t_bad_weight_) check_weights(*t_);
    if (t_ && !report_repeat("items", t_->items, t_repeat_)) return false;
    unpartition(pa, bits);
    pa = Partitions{};
    if constexpr (!Hash::kExact)
      if (!compare_strings(b_row_cluster)) return false;
    append_b_only(b_row_cluster, bits);
    if constexpr (!Hash::kExact)
      if (!compare_b_only_strings()) return false;
    gather_weights();
    return true;
  }

 private:
  // The phases, each in its own file with why it is shaped as it is (defined `inline` there,
  // as a definition in the class is, so that the compiler inlines them alike).
  // join_partitions.h: partition by partition through a cache-resident table.
  void join_partitions(unsigned bits, Partitions& pa, const Partitions& pt);
  template <class On>
  [[gnu::always_inline]] static void each_entry(const Partitions& part, size_t p, PartTable& table,
                                                On on);
  void add_a(Partitions& pa, size_t p, PartWorker& w);
  void add_b(size_t p, PartWorker& w, Partitions& pa);
  void add_items(const Partitions& pt, size_t p, PartWorker& w, Partitions& pa);
  // join_gather.h: the per-item arrays read back from the partitions, in row order.
  void unpartition(const Partitions& pa, unsigned bits);
  void append_b_only(const BigVector<uint32_t>& b_row_cluster, unsigned bits);
  void gather_weights();
  template <class On>
  bool each_b_only_row(On on) const;
  // join_strings.h: string ids' matches compared byte for byte.
  bool compare_strings(const BigVector<uint32_t>& b_row_cluster);
  bool compare_b_only_strings() const;

  // Throws for a row whose id repeats an earlier row's; false if the hashes only collided.
  bool report_repeat(const std::string& role, const IdColumn& ids, const FirstRepeat& repeat) {
    if (!repeat.found()) return true;
    const size_t first = first_row_with(ids, repeat.row);
    if (first == repeat.row) return false;  // no earlier row holds the same bytes
    duplicate(role, ids, first, repeat.row);
  }

  // Partitions for the largest input: sized for A and B alone, a small truth against a
  // small clustering put a big items table into a few partitions, whose tables grew far
  // out of cache.
  unsigned partition_bits(size_t partition_rows) const {
    const size_t rows = std::max({a_.items.size, b_.items.size, t_ ? t_->items.size : 0});
    unsigned bits = 0;
    while (bits < 16 && (rows >> bits) > partition_rows) ++bits;
    return bits;
  }

  const Hash hash_;
  const ClusteringInput& a_;
  const ClusteringInput& b_;
  const ItemsInput* t_;
  JoinedClusterings* j_;
  // Per B row, one bit: its item is not in A. Set for those rows only: a bit set per
  // common item was a random write per B row.
  BigVector<uint64_t> b_only_;
  size_t b_only_count_ = 0;
  Partitions pb_;  // B's, while B-only items are still to be appended
  FirstRepeat a_repeat_, b_repeat_, t_repeat_;
  bool t_bad_weight_ = false;
};

}  // namespace
}  // namespace clusterscore::join_detail
