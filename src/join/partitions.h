// The join's first phase (join/partitioned_join.h): each id column scattered into radix
// partitions by a hash of its ids, and each clustering's rows numbered by cluster.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "detail/big_vector.h"
#include "detail/hash.h"
#include "detail/interrupt.h"
#include "detail/line_scatter.h"
#include "detail/radix_partition.h"
#include "input/clustering.h"

namespace clusterscore::join_detail {

// Internal linkage: this is join/partitioned.cpp's own code (it alone includes this header and
// the others of its kind), and GCC inlines and specialises a function called once only
// where it has internal linkage.
namespace {

using detail::StringHashFn;

// How a column's ids are hashed. Integers: mix64, a bijection, so equal hashes are equal
// ids. Strings: 64 bits of the bytes, so a match needs its bytes compared.
struct IntHash {
  static constexpr bool kExact = true;
  uint64_t operator()(const IdColumn& c, size_t r) const {
    return detail::mix64(uint64_t(c.ints[r]));
  }
};
struct StringHash {
  static constexpr bool kExact = false;
  StringHashFn weak;  // a test's, or null: hash_id_bytes with `seed`, inlined
  uint64_t seed;
  uint64_t operator()(const IdColumn& c, size_t r) const {
    return weak ? weak(c.str(r)) : detail::hash_id_bytes(c.str(r), seed);
  }
};

struct Tuple {
  uint64_t hash;   // of the id
  uint32_t row;    // in its own column
  uint32_t extra;  // B, integer ids: the row's dense cluster index; unused otherwise
};

// What an item of A is found to have; overwrites its tuple once the tuple is in the table.
struct Found {
  uint32_t b_cluster;  // string ids: B's row until compare_strings() makes it a cluster
  uint32_t items_row;
};

union Entry {
  Tuple tuple;
  Found found;
};
static_assert(sizeof(Entry) == sizeof(Tuple));

// One column's rows grouped by partition, in row order within each partition. The items
// table's weights are not in its records: gathered by row once the join is done
// (gather_weights), they cost a pass of random reads instead of 8 bytes a row at the
// join's peak.
struct Partitions {
  BigBuffer<Entry> entries;
  std::vector<size_t> begin;  // partition p is entries[begin[p], end[p])
  std::vector<size_t> end;
  // If asked for: where each partition's next entry was as rows 0, mark_rows,
  // 2·mark_rows, … were placed. From these, rows can be found again a stretch at a time
  // on any thread.
  std::vector<std::vector<size_t>> marks;
  size_t mark_rows = 0;

  bool empty() const { return begin.empty(); }
  size_t size(size_t p) const { return empty() ? 0 : end[p] - begin[p]; }
};

// The partition of `hash`: its top `bits` bits (0 to 16), in two shifts so that 0 bits
// (one partition) needs no branch.
inline size_t part_of(uint64_t hash, unsigned bits) { return size_t((hash >> 1) >> (63 - bits)); }

// Room per partition for a scatter without counting first, or 0 where counting is
// cheaper than the slack. A partition of a uniform hash holds mean ± sqrt(mean) rows:
// 8 standard deviations more are never needed unless ids repeat (an error, reported once
// the partitions are joined), and then the scatter starts again after counting.
inline size_t room_per_partition(size_t rows, unsigned bits) {
  const size_t mean = rows >> bits;
  if (bits == 0 || mean < 256) return 0;
  size_t sd = 1;
  while (sd * sd < mean) ++sd;
  return mean + 8 * sd + 64;
}

// Rows between two of Partitions::marks: at most kMostMarks of them (each is a position
// per partition, up to 512 KiB), and stretches of at least kMarkRows rows.
constexpr size_t kMarkRows = size_t(1) << 20, kMostMarks = 16;

// Stable scatter of rows into partitions laid out by `out.begin` (which it consumes), each
// row's tuple with extra[r] if `extra` is not null; false if a partition outgrew its room
// (`out.end` then is not meaningful).
template <class Hash>
bool scatter(const Hash& hash, const IdColumn& ids, const uint32_t* extra, unsigned bits,
             const std::vector<size_t>& limit, Partitions* out) {
  // Through local pointers: writing through `out` is slower, as the compiler cannot keep
  // them in registers. Written a cache line at a time (detail/line_scatter.h), or plainly
  // on AMD processors (LineScatter's choice).
  std::vector<size_t> next = out->begin;
  size_t* const at_next = next.data();
  const size_t* const at_limit = limit.data();
  detail::LineScatter<Entry> entries(out->entries.data(), out->begin);
  out->marks.clear();
  const size_t stretch = out->mark_rows ? out->mark_rows : std::max<size_t>(ids.size, 1);
  for (size_t mark = 0; mark < ids.size; mark += stretch) {
    if (out->mark_rows) out->marks.push_back(next);
    const size_t end = std::min(ids.size, mark + stretch);
    for (size_t r = mark; r < end; ++r) {
      detail::poll_every(r);
      const uint64_t h = hash(ids, r);
      const size_t p = part_of(h, bits);
      if (at_next[p] == at_limit[p]) [[unlikely]]
        return false;
      Entry e;
      e.tuple = Tuple{h, uint32_t(r), extra ? extra[r] : 0};
      entries.put(p, at_next[p]++, e);
    }
  }
  entries.finish(next);
  out->end = std::move(next);
  return true;
}

// One pass into partitions with room to spare (saving a first pass that counts the rows
// of each partition); two, counting first (placed as detail/radix_partition.h places), when
// rows are few or a partition overflows. One stretch: the columns are partitioned on threads
// of their own. `marked`: with Partitions::marks.
template <class Hash>
Partitions partition(const Hash& hash, const IdColumn& ids, const uint32_t* extra, unsigned bits,
                     bool marked = false) {
  Partitions out;
  const size_t n = ids.size, parts = size_t(1) << bits;
  const size_t mark_rows = marked ? std::max(kMarkRows, (n + kMostMarks - 1) / kMostMarks) : 0;
  if (const size_t room = room_per_partition(n, bits)) {
    out.entries = BigBuffer<Entry>(parts * room);
    out.mark_rows = mark_rows;
    out.begin.resize(parts);
    std::vector<size_t> limit(parts);
    for (size_t p = 0; p < parts; ++p) out.begin[p] = p * room, limit[p] = (p + 1) * room;
    if (scatter(hash, ids, extra, bits, limit, &out)) return out;
  }
  out = Partitions{};  // the overflowed buffers go before new ones are taken
  std::vector<std::vector<size_t>> count(1, std::vector<size_t>(parts, 0));
  for (size_t r = 0; r < n; ++r) ++count[0][part_of(hash(ids, r), bits)];
  const std::vector<size_t> start = detail::place(count, parts).start;
  out.entries = BigBuffer<Entry>(n);
  out.mark_rows = mark_rows;
  out.begin.assign(start.begin(), start.end() - 1);
  if (!scatter(hash, ids, extra, bits, {start.begin() + 1, start.end()}, &out))
    throw std::logic_error("clusterscore: partition counts were wrong");
  return out;
}

// Each row's dense cluster index, numbered in order of first appearance, and each
// cluster's first row: interned from the cluster ids, or the caller's codes, which are
// numbered that way already (checked: a code past the next new one is an error).
BigVector<uint32_t> cluster_index(const ClusteringInput& c, BigVector<uint64_t>* first_row);

}  // namespace
}  // namespace clusterscore::join_detail
