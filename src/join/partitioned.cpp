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
#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>

#include "detail/hash.h"
#include "detail/interrupt.h"
#include "detail/line_scatter.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/progress.h"
#include "detail/radix_partition.h"
#include "input/dense_ids.h"
#include "input/intern_column.h"
#include "join/parts.h"

namespace clusterscore::join_detail {
namespace {

using detail::kPrefetch;
using detail::prefetch_bytes;
using detail::prefetch_offset;

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

// Each row's dense cluster index, numbered in order of first appearance, and each
// cluster's first row: interned from the cluster ids, or the caller's codes, which are
// numbered that way already (checked: a code past the next new one is an error).
BigVector<uint32_t> cluster_index(const ClusteringInput& c, BigVector<uint64_t>* first_row) {
  if (!c.cluster_codes) return detail::intern_column(c.clusters, first_row);
  const size_t n = c.clusters.size;
  BigVector<uint32_t> out(c.cluster_codes, c.cluster_codes + n);
  for (size_t r = 0; r < n; ++r) {
    detail::poll_every(r);
    if (out[r] < first_row->size()) continue;
    if (out[r] != first_row->size())
      throw std::invalid_argument("clusterscore: cluster codes not in order of first appearance");
    first_row->push_back(r);
  }
  return out;
}

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
size_t part_of(uint64_t hash, unsigned bits) { return size_t((hash >> 1) >> (63 - bits)); }

// Room per partition for a scatter without counting first, or 0 where counting is
// cheaper than the slack. A partition of a uniform hash holds mean ± sqrt(mean) rows:
// 8 standard deviations more are never needed unless ids repeat (an error, reported once
// the partitions are joined), and then the scatter starts again after counting.
size_t room_per_partition(size_t rows, unsigned bits) {
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
  // Throws for a row whose id repeats an earlier row's; false if the hashes only collided.
  bool report_repeat(const std::string& role, const IdColumn& ids, const FirstRepeat& repeat) {
    if (!repeat.found()) return true;
    const size_t first = first_row_with(ids, repeat.row);
    if (first == repeat.row) return false;  // no earlier row holds the same bytes
    duplicate(role, ids, first, repeat.row);
  }

  // Joins partition by partition, leaving in each entry of A's partitions what its item
  // was found to have. B's partitions stay in pb_ if some items are only in B, with what
  // each of those was found to have at the front of its partition (see add_b).
  // Partitions are independent: each thread joins whole ones through a table of its own.
  // What they share is combined so that no result depends on which thread did what: the
  // B-only bits by atomic or, the first repeats by minimum, the unmatched rows by sum.
  void join_partitions(unsigned bits, Partitions& pa, const Partitions& pt) {
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

  // The per-item arrays of A's items, in A's row order: each row's partition is found
  // again, and partitions are read front to back, so every read is sequential in one of
  // the partitions. B-only items are appended later: room is reserved for exactly them
  // (a cached block given to a reservation stays resident even where it is not used).
  void unpartition(const Partitions& pa, unsigned bits) {
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

  // String ids: compares each item of A with the B and items-table rows its hash matched,
  // and turns the B rows in b_cluster into B's clusters; false at the first pair that
  // differs. Those rows are read at random: their offsets are fetched 2 * kAhead items
  // ahead, and their bytes kAhead items ahead, once the offsets are in cache.
  bool compare_strings(const BigVector<uint32_t>& b_row_cluster) {
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

  // Partitions for the largest input: sized for A and B alone, a small truth against a
  // small clustering put a big items table into a few partitions, whose tables grew far
  // out of cache.
  unsigned partition_bits(size_t partition_rows) const {
    const size_t rows = std::max({a_.items.size, b_.items.size, t_ ? t_->items.size : 0});
    unsigned bits = 0;
    while (bits < 16 && (rows >> bits) > partition_rows) ++bits;
    return bits;
  }

  // Calls on(e, tuple, slot) for each entry e of partition p in order, with its tuple (a
  // copy: `on` may overwrite the entry) and the table slot of its hash, new (no Seen bits)
  // if absent. Slots are fetched kPrefetch entries ahead, in a loop of its own that need
  // not check for the partition's end. The entries themselves are fetched 2 KiB ahead
  // (detail::prefetch_stream): a partition is a stream of ~200 KB that the hardware
  // prefetcher picks up late, and the loop stalled on loading them (1 KiB ahead did less,
  // 4 KiB no better).
  template <class On>
  [[gnu::always_inline]] static void each_entry(const Partitions& part, size_t p, PartTable& table,
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
  void add_a(Partitions& pa, size_t p, PartWorker& w) {
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
  void add_b(size_t p, PartWorker& w, Partitions& pa) {
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

  void add_items(const Partitions& pt, size_t p, PartWorker& w, Partitions& pa) {
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

  // Numbers the items found only in B after A's, in B's row order, each with its B
  // cluster, items-table row and weight. Those rows are visited in order, and each one's
  // Found is the next at the front of its partition: one sequential stream per partition.
  // Each written at random to its place instead, many B-only items (a small truth against
  // a big clustering) missed the cache once each.
  void append_b_only(const BigVector<uint32_t>& b_row_cluster, unsigned bits) {
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
  void gather_weights() {
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

  // String ids: whether each B-only item's bytes equal those of the items-table row its
  // hash matched. B's rows come in order; the items table's are read at random, fetched
  // ahead as in compare_strings(). A pass of its own: compared inside append_b_only(),
  // the two kinds of misses stalled each other, and the join took much longer.
  bool compare_b_only_strings() const {
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

  // Calls on(r) for each B-only row r in increasing order, until it returns false;
  // returns whether it never did.
  template <class On>
  bool each_b_only_row(On on) const {
    for (size_t w = 0; w < b_only_.size(); ++w)
      for (uint64_t left = b_only_[w]; left != 0; left &= left - 1)
        if (!on(64 * w + size_t(std::countr_zero(left)))) return false;
    return true;
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

bool join_partitioned(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items,
                      size_t partition_rows, StringHashFn weak_hash, JoinedClusterings* j,
                      uint64_t string_seed) {
  if (partition_rows == 0) throw std::invalid_argument("clusterscore: partition_rows is 0");
  if (!a.items.is_string()) return PartitionedJoin(IntHash{}, a, b, items, j).run(partition_rows);
  return PartitionedJoin(StringHash{weak_hash, string_seed}, a, b, items, j).run(partition_rows);
}

}  // namespace clusterscore::join_detail
