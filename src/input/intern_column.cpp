#include "input/intern_column.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "detail/hash.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/radix_partition.h"
#include "input/id_chunks.h"
#include "input/interner.h"
#include "input/representatives.h"

namespace clusterscore::detail {
namespace {

// Integer ids spanning a range under 4 × rows: [*lo, *lo + *span] maps directly.
bool dense_range(const IdColumn& col, int64_t* lo, size_t* span) {
  if (col.is_string() || col.size == 0 || col.valid != nullptr) return false;
  // Values only: cheaper than minmax_element's positions. Four lanes, so that four
  // min/max chains run at once.
  const int64_t* const v = col.ints;
  int64_t mn4[4] = {v[0], v[0], v[0], v[0]}, mx4[4] = {v[0], v[0], v[0], v[0]};
  size_t r = 0;
  for (; r + 4 <= col.size; r += 4)
    for (size_t k = 0; k < 4; ++k) {
      mn4[k] = std::min(mn4[k], v[r + k]);
      mx4[k] = std::max(mx4[k], v[r + k]);
    }
  for (; r < col.size; ++r) mn4[0] = std::min(mn4[0], v[r]), mx4[0] = std::max(mx4[0], v[r]);
  const int64_t mn = std::min({mn4[0], mn4[1], mn4[2], mn4[3]});
  const int64_t mx = std::max({mx4[0], mx4[1], mx4[2], mx4[3]});
  const unsigned __int128 width = (unsigned __int128)(mx - (__int128)mn);
  *lo = mn;
  *span = size_t(width);
  return width < (unsigned __int128)(4 * col.size + 1024) && width < kNone;
}

// Short strings packed with their length (and a null key) are exact keys, numbered with the
// golden-ratio hash: packed strings differ in their low bytes, which Mix64 would spend more
// operations on.
using ShortKeyTable = DenseIds<Golden>;

// A null's key: packed strings have their length (at most 7) in the top byte.
constexpr uint64_t kNullKey = ~uint64_t(0);

// Ids of a string column whose values are all at most 7 bytes long, packed into exact
// keys; nullopt as soon as a longer one is met. Rows whose 8 bytes from their start lie
// within the character data read them at once and mask (a variable-length copy per row
// cost more than all the rest); the last few rows copy their bytes.
//
// Rows [begin, end) into out[], numbered through `table`; false at the first value longer
// than 7 bytes. kWhole: every row's 8 bytes from its start lie within the character data.
template <bool kWhole, class Offset>
bool intern_short_rows(const IdColumn& col, const Offset* offsets, size_t begin, size_t end,
                       ShortKeyTable* table, uint32_t* out, BigVector<uint64_t>* first_row) {
  const uint8_t* const valid = col.valid;
  const char* const chars = col.chars;
  ShortKeyTable::KeyView view = table->key_view();
  for (size_t r = begin; r < end; ++r) {
    const Offset at = offsets[r], len = offsets[r + 1] - at;
    uint64_t key = 0;
    if (valid != nullptr && valid[r] == 0) {
      key = kNullKey;  // whatever bytes its slot spans
    } else if (len > 7) {
      return false;
    } else if constexpr (kWhole && std::endian::native == std::endian::little) {
      std::memcpy(&key, chars + at, 8);
      key &= len == 0 ? 0 : ~uint64_t(0) >> (64 - 8 * len);
      key |= uint64_t(len) << 56;
    } else {
      std::memcpy(&key, chars + at, size_t(len));
      key |= uint64_t(len) << 56;
    }
    uint32_t id = view.find(key);
    if (id == kNone) {
      id = table->insert(key).first;
      first_row->push_back(r);
      view = table->key_view();
    }
    out[r] = id;
  }
  return true;
}

// A plain loop over locals: written as a lambda over the table, it reloaded the table's
// fields from memory every row. The lookup and the insert on a miss are written out here
// and in intern_keys() and intern_hashed(): a helper shared by the three, taking the view
// by pointer, made GCC keep the view in memory again.
template <class Offset>
bool intern_short(const IdColumn& col, const Offset* offsets, BigVector<uint64_t>* first_row,
                  uint32_t* out) {
  const size_t n = col.size;
  size_t whole = n;  // rows before `whole` may read 8 bytes
  while (whole > 0 && offsets[whole - 1] + 8 > offsets[n]) --whole;
  ShortKeyTable table;
  return intern_short_rows<true>(col, offsets, 0, whole, &table, out, first_row) &&
         intern_short_rows<false>(col, offsets, whole, n, &table, out, first_row);
}

bool intern_short(const IdColumn& col, BigVector<uint64_t>* first_row, uint32_t* out) {
  if (!col.is_string()) return false;
  const size_t firsts = first_row->size();
  const bool done = col.type == IdColumn::Type::kString32
                        ? intern_short(col, col.offsets32, first_row, out)
                        : intern_short(col, col.offsets64, first_row, out);
  if (!done) first_row->resize(firsts);
  return done;
}

// Assigns ids in order of first appearance; nulls share one id of their own.
template <class Find>
void assign(const IdColumn& col, BigVector<uint64_t>* first_row, uint32_t* out, Find find) {
  uint32_t null_id = kNone;
  for (size_t r = 0; r < col.size; ++r) {
    uint32_t id;
    bool inserted;
    if (col.is_null(r)) {
      inserted = null_id == kNone;
      if (inserted) null_id = uint32_t(first_row->size());
      id = null_id;
    } else {
      std::tie(id, inserted) = find(r);
    }
    if (inserted) first_row->push_back(r);
    out[r] = id;
  }
}

// Integer ids in a column without nulls: the interner's ids are the ids, with no null id to number
// around (about twice as fast as going through assign()). A big table
// outgrows the caches (a million distinct ids take 32 MB), so its slots are prefetched, twice the
// usual distance ahead as the loop does little else.
constexpr size_t kInternAhead = 2 * kPrefetch;
// The dense path (in intern_column) reads even less per row: see there.
constexpr size_t kDenseAhead = 4 * kPrefetch;

template <class KeyOf>
void intern_keys(size_t n, Interner* interner, BigVector<uint64_t>* first_row, uint32_t* const o,
                 KeyOf key_of) {
  Interner::KeyView view = interner->key_view();
  for (size_t r = 0; r < n; ++r) {
    poll_every(r);
    if (r + kInternAhead < n) view.prefetch(key_of(r + kInternAhead));
    const uint64_t key = key_of(r);
    uint32_t id = view.find(key);
    if (id == kNone) {
      id = interner->insert_key(key).first;
      first_row->push_back(r);
      view = interner->key_view();
    }
    o[r] = id;
  }
}

// Strings without nulls, by a 64-bit hash of their bytes: the integer path's table, with
// each hash computed once, kInternAhead rows ahead, into a ring. Ids that only share a
// hash would share an id, so every row is then compared with its id's bytes (fetched
// ahead in two steps); nullopt at the first that differs. Several times faster than the
// interner's byte comparisons, and faster than comparing each row with its id's first
// row in the column.
bool intern_hashed(const IdColumn& col, BigVector<uint64_t>* first_row, StringHashFn weak_hash,
                   uint32_t* const o) {
  const size_t n = col.size, firsts = first_row->size();
  uint64_t ring[kInternAhead];
  for (size_t r = 0; r < std::min(n, kInternAhead); ++r)
    ring[r] = hash_string(weak_hash, col.str(r));
  Interner interner(false, n / 8 + 16);
  Representatives rep;
  Interner::KeyView view = interner.key_view();  // as in intern_keys()
  for (size_t r = 0; r < n; ++r) {
    poll_every(r);
    const uint64_t key = ring[r % kInternAhead];
    if (r + kInternAhead < n) {
      const uint64_t ahead = hash_string(weak_hash, col.str(r + kInternAhead));
      ring[r % kInternAhead] = ahead;
      view.prefetch(ahead);
    }
    uint32_t id = view.find(key);
    if (id == kNone) {
      id = interner.insert_key(key).first;
      first_row->push_back(r);
      rep.add(col.str(r));
      view = interner.key_view();
    }
    o[r] = id;
  }
  constexpr size_t kAhead = 2 * kPrefetch;
  for (size_t r = 0; r < n; ++r) {
    if (r + 2 * kAhead < n) rep.prefetch_end(o[r + 2 * kAhead]);
    if (r + kAhead < n) rep.prefetch_bytes(o[r + kAhead]);
    if (rep.of(o[r]) != col.str(r)) {
      first_row->resize(firsts);
      return false;
    }
  }
  return true;
}

// One thread's interning, into out[0, col.size): the cheapest of the ways above that
// applies.
void intern_serial(const IdColumn& col, BigVector<uint64_t>* first_row, StringHashFn weak_hash,
                   uint32_t* const o) {
  int64_t lo = 0;
  size_t span = 0;
  if (dense_range(col, &lo, &span)) {
    const size_t n = col.size, base = first_row->size();
    BigVector<uint32_t> id_of(span + 1, kNone);  // per value: its id - base, or kNone
    // A branch on whether a value is new, mispredicted for each new value. Without it,
    // every row would write its row to firsts[next], which only a new value keeps: a
    // store whose address waits on the table's load, which on some processors halved
    // the loop's speed.
    BigVector<uint64_t> firsts(std::min(n, span + 1));
    uint32_t* const ids = id_of.data();
    uint64_t* const first = firsts.data();
    const int64_t* const v = col.ints;
    const uint32_t offset = uint32_t(base);
    uint32_t next = 0;
    // id_of is read at random and outgrows the caches, and the loop does so little per
    // row that its misses must be fetched far ahead (64 rows, not 16). A plain loop:
    // through a lambda, the compiler kept its captures in memory.
    for (size_t r = 0; r < n; ++r) {
      poll_every(r);
      prefetch_stream(v, r);  // the values too: their stream is interleaved with misses
      if (r + kDenseAhead < n) detail::prefetch(&ids[size_t(v[r + kDenseAhead] - lo)]);
      uint32_t& slot = ids[size_t(v[r] - lo)];
      uint32_t id = slot;
      if (id == kNone) {
        id = next++;
        slot = id;
        first[id] = r;
      }
      o[r] = id + offset;
    }
    first_row->insert(first_row->end(), first, first + next);
    return;
  }
  if (!col.is_string() && col.valid == nullptr) {
    Interner interner(false, col.size / 8 + 16);
    intern_keys(col.size, &interner, first_row, o, [&](size_t r) { return uint64_t(col.ints[r]); });
    return;
  }
  if (intern_short(col, first_row, o)) return;
  if (col.valid == nullptr && intern_hashed(col, first_row, weak_hash, o)) return;
  // Ids are numbered after the null id may have taken one: map interner ids to output ids.
  std::vector<uint32_t> ids;
  auto number = [&](std::pair<uint32_t, bool> got) {
    if (got.second) ids.push_back(uint32_t(first_row->size()));
    return std::pair<uint32_t, bool>{ids[got.first], got.second};
  };
  // Strings with nulls or whose hashes collided; integers with nulls.
  Interner interner(col.is_string(), col.size / 8 + 16);
  assign(col, first_row, o, [&](size_t r) {
    if (r + kPrefetch < col.size && !col.is_null(r + kPrefetch))
      interner.prefetch(col, r + kPrefetch);
    return number(interner.insert(col, r));
  });
}

// Rows [begin, end) of `col` as a column of their own (string offsets still index `col`'s
// characters).
IdColumn rows_of(const IdColumn& col, size_t begin, size_t end) {
  IdColumn part = col;
  part.size = end - begin;
  if (col.ints) part.ints += begin;
  if (col.offsets32) part.offsets32 += begin;
  if (col.offsets64) part.offsets64 += begin;
  if (col.valid) part.valid += begin;
  return part;
}

// The values of `col` at `rows`, in that order, as a column of their own.
ConcatenatedIds gather_rows(const IdColumn& col, const BigVector<uint64_t>& rows) {
  ConcatenatedIds out;
  if (col.valid) {
    out.valid.reserve(rows.size());
    for (uint64_t r : rows) out.valid.push_back(col.valid[r]);
  }
  if (!col.is_string()) {
    out.ints.reserve(rows.size());
    for (uint64_t r : rows) out.ints.push_back(col.ints[r]);
    out.column = IdColumn::of_ints(out.ints.data(), rows.size());
  } else {
    out.offsets.reserve(rows.size() + 1);
    out.offsets.push_back(0);
    for (uint64_t r : rows) {
      const std::string_view v = col.str(r);
      out.chars.insert(out.chars.end(), v.begin(), v.end());
      out.offsets.push_back(int64_t(out.chars.size()));
    }
    out.column = IdColumn::of_strings(out.chars.data(), out.offsets.data(), rows.size());
  }
  if (col.valid) out.column.valid = out.valid.data();
  return out;
}

// Below this many rows a column is interned on one thread.
constexpr size_t kParallelRows = size_t(1) << 21;

// Whether the column's first kProbeRows rows hold at most half as many values: then the
// column likely holds far fewer values than rows, and interning it in parts pays. With
// a value in most rows (cluster ids at random), each part holds most of the column's
// values, and merging them is a second interning as long as the first (measured: 1.5e6
// values in 1e7 rows took 1.2-2x longer on 2 threads than on one).
constexpr size_t kProbeRows = size_t(1) << 16;
bool few_values(const IdColumn& col, StringHashFn weak_hash) {
  const IdColumn probe = rows_of(col, 0, std::min(col.size, kProbeRows));
  BigVector<uint64_t> first;
  BigVector<uint32_t> ids(probe.size);
  intern_serial(probe, &first, weak_hash, ids.data());
  return first.size() * 2 <= kProbeRows;
}

// Each part of the rows interned on a thread of its own, into its rows of `out`; then the
// parts' values, each part's in its order of first appearance, interned in part order on
// one thread (which numbers them in the column's order of first appearance: a value's
// first row is in the first part holding it, at that part's first row of it); then every
// row's id mapped in place to the column's, on every thread. The same ids as one
// thread's, at the cost of a second interning of each part's distinct values.
void intern_parts(const IdColumn& col, size_t parts, BigVector<uint64_t>* first_row,
                  StringHashFn weak_hash, uint32_t* const out) {
  const size_t n = col.size;
  const auto begin = [&](size_t p) { return n * p / parts; };
  std::vector<BigVector<uint64_t>> local_first(parts);
  parallel_for(parts, [&](size_t, size_t p) {
    intern_serial(rows_of(col, begin(p), begin(p + 1)), &local_first[p], weak_hash, out + begin(p));
  });
  BigVector<uint64_t> rows;  // each part's distinct values' first rows, in the column
  for (size_t p = 0; p < parts; ++p)
    for (uint64_t r : local_first[p]) rows.push_back(begin(p) + r);
  BigVector<uint64_t> merged_first;
  BigVector<uint32_t> merged(rows.size());
  intern_serial(gather_rows(col, rows).column, &merged_first, weak_hash, merged.data());
  for (uint64_t m : merged_first) first_row->push_back(rows[m]);
  parallel_for(parts, [&](size_t, size_t p) {
    size_t at = 0;  // where part p's values start in `merged`
    for (size_t q = 0; q < p; ++q) at += local_first[q].size();
    const uint32_t* const id = merged.data() + at;
    for (size_t r = begin(p); r < begin(p + 1); ++r) {
      poll_every(r);
      out[r] = id[out[r]];
    }
  });
}

// Integer ids without nulls, most of them distinct over many rows (random 64-bit ids):
// the rows sent to parts by their value's hash, so that a value's rows all lie in one
// part, each part's in row order; each part interned on a thread of its own, in a table
// a few hundred times smaller than one for the column, which stays in a core's cache; then
// the values numbered by their first rows (a set bit per first row, counted). The ids and
// first rows of intern_serial(), whose one table outgrows the caches and misses them on
// nearly every row; 20 bytes a row while it works. `first_row` must be empty.
constexpr int kHashPartBits = 8;
void intern_by_hash(const IdColumn& col, BigVector<uint64_t>* first_row, uint32_t* const out) {
  struct Entry {
    uint64_t value, row;
  };
  const size_t n = col.size, parts = size_t(1) << kHashPartBits;
  // The low bits of the hash: the tables index slots by its top bits (dense_ids.h).
  const auto part = [](int64_t v) { return size_t(mix64(uint64_t(v)) & (parts - 1)); };
  const size_t stretches = std::clamp<size_t>(n >> 16, 1, 64);
  const auto cut = [&](size_t s) { return n * s / stretches; };
  std::vector<std::vector<size_t>> count(stretches, std::vector<size_t>(parts, 0));
  parallel_for(stretches, [&](size_t, size_t s) {
    for (size_t r = cut(s); r < cut(s + 1); ++r) ++count[s][part(col.ints[r])];
  });
  const Placement placed = place(count, parts);
  BigVector<Entry> by_part(n);
  scatter(by_part.data(), placed, [&](size_t s, auto put) {
    for (size_t r = cut(s); r < cut(s + 1); ++r)
      put(part(col.ints[r]), Entry{uint64_t(col.ints[r]), r});
  });
  std::vector<BigVector<uint64_t>> firsts(parts);  // per part, its values' first rows
  BigVector<uint32_t> local(n);  // per entry, its value's number among its part's values
  parallel_for(parts, [&](size_t, size_t p) {
    const size_t begin = placed.start[p], end = placed.start[p + 1];
    Interner interner(false, (end - begin) / 2 + 16);
    intern_keys(end - begin, &interner, &firsts[p], local.data() + begin,
                [&](size_t k) { return by_part[begin + k].value; });
    for (uint64_t& first : firsts[p]) first = by_part[begin + first].row;  // entry → row
  });
  // A value's id: how many first rows come before its own.
  BigVector<uint64_t> is_first((n + 63) / 64, 0);
  size_t values = 0;
  for (const BigVector<uint64_t>& f : firsts) {
    values += f.size();
    for (uint64_t r : f) is_first[r / 64] |= uint64_t(1) << (r % 64);
  }
  first_row->reserve(values);
  std::vector<uint32_t> before(is_first.size());
  uint32_t seen = 0;
  for (size_t w = 0; w < is_first.size(); ++w) {
    before[w] = seen;
    seen += uint32_t(std::popcount(is_first[w]));
    for (uint64_t bits = is_first[w]; bits != 0; bits &= bits - 1)
      first_row->push_back(w * 64 + size_t(std::countr_zero(bits)));
  }
  parallel_for(parts, [&](size_t, size_t p) {
    std::vector<uint32_t> id(firsts[p].size());
    for (size_t k = 0; k < id.size(); ++k) {
      const uint64_t r = firsts[p][k];
      id[k] = before[r / 64] +
              uint32_t(std::popcount(is_first[r / 64] & ((uint64_t(1) << (r % 64)) - 1)));
    }
    for (size_t i = placed.start[p]; i < placed.start[p + 1]; ++i) {
      poll_every(i);
      out[by_part[i].row] = id[local[i]];
    }
  });
}

}  // namespace

BigVector<uint32_t> intern_column(const IdColumn& col, BigVector<uint64_t>* first_row) {
  return intern_column(col, first_row, nullptr);
}

BigVector<uint32_t> intern_column(const IdColumn& col, BigVector<uint64_t>* first_row,
                                  StringHashFn weak_hash) {
  if (!first_row->empty()) throw std::logic_error("clusterscore: intern_column() appends to none");
  BigVector<uint32_t> out(col.size);
  const size_t parts = workers_for(col.size / (kParallelRows / 2));
  int64_t lo = 0;
  size_t span = 0;
  if (parts < 2) {
    intern_serial(col, first_row, weak_hash, out.data());
  } else if (few_values(col, weak_hash)) {
    intern_parts(col, parts, first_row, weak_hash, out.data());
  } else if (!col.is_string() && col.valid == nullptr && !dense_range(col, &lo, &span)) {
    intern_by_hash(col, first_row, out.data());
  } else {
    intern_serial(col, first_row, weak_hash, out.data());
  }
  return out;
}

}  // namespace clusterscore::detail
