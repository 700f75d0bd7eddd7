#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "clusterscore/clustering.h"
#include "clusterscore/error.h"
#include "detail/hash.h"
#include "detail/intern_column.h"
#include "detail/interner.h"
#include "detail/prefetch.h"
#include "join_parts.h"

namespace clusterscore {
namespace join_detail {

// A weight with every digit it has.
std::string fmt_weight(double w) {
  std::ostringstream s;
  s.precision(17);
  s << w;
  return s.str();
}

[[noreturn]] void duplicate(const std::string& role, const IdColumn& col, size_t first,
                            size_t row) {
  throw InputError(role, int64_t(row),
                   "item " + col.repr(row) + " appears twice (rows " + std::to_string(first) +
                       " and " + std::to_string(row) + ")");
}

size_t first_row_with(const IdColumn& col, size_t row) {
  detail::Interner one(col.is_string(), 1);
  one.insert(col, row);
  for (size_t r = 0; r < row; ++r)
    if (one.find(col, r) != kNone) return r;
  return row;
}

void check_weights(const ItemsInput& t) {
  if (!t.weights) return;
  for (size_t r = 0; r < t.items.size; ++r) {
    const double w = t.weights[r];
    if (!good_weight(w))
      throw InputError("items", int64_t(r),
                       "weight " + fmt_weight(w) + " of item " + t.items.repr(r) +
                           " is not a finite number > 0");
  }
}

}  // namespace join_detail

namespace {

using detail::Interner;
using join_detail::check_weights;
using join_detail::duplicate;
using join_detail::first_row_with;
using join_detail::fmt_weight;

// Far enough ahead that the slot's cache line arrives before it is needed.
using detail::kPrefetch;

void check_same_kind(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items) {
  const bool s = a.items.is_string();
  if (b.items.is_string() != s || (items && items->items.is_string() != s))
    throw std::invalid_argument("clusterscore: item ids must be all integers or all strings");
}

// Dense ids of every row's item (kNone if unknown); prefetches the table ahead.
BigVector<uint32_t> find_all(const Interner& ids, const IdColumn& col) {
  BigVector<uint32_t> found(col.size);
  for (size_t r = 0; r < col.size; ++r) {
    if (r + kPrefetch < col.size) ids.prefetch(col, r + kPrefetch);
    found[r] = ids.find(col, r);
  }
  return found;
}

void add_items_table(const ItemsInput& t, const Interner& ids, JoinedClusterings* j) {
  check_weights(t);
  j->items_row.assign(j->n_items(), kNone);
  j->items_table_rows = t.items.size;
  const BigVector<uint32_t> found = find_all(ids, t.items);
  // A second pass writes the per-item arrays, prefetching ahead: the writes land at
  // random places, and a lookup followed by a dependent miss would serialise them.
  for (size_t r = 0; r < found.size(); ++r) {
    if (r + kPrefetch < found.size() && found[r + kPrefetch] != kNone) {
      detail::prefetch_for_write(&j->items_row[found[r + kPrefetch]]);
      detail::prefetch_for_write(&j->weight[found[r + kPrefetch]]);
    }
    const uint32_t item = found[r];
    if (item == kNone) {
      ++j->items_table_unmatched;
      continue;
    }
    if (j->items_row[item] != kNone) duplicate("items", t.items, j->items_row[item], r);
    j->items_row[item] = uint32_t(r);
    if (t.weights) j->weight[item] = t.weights[r];
  }
  if (j->items_table_unmatched > 0) {
    // An unmatched row may still repeat another unmatched row: find such duplicates too.
    Interner seen(t.items.is_string(), size_t(j->items_table_unmatched));
    for (size_t r = 0; r < t.items.size; ++r) {
      if (found[r] != kNone) continue;
      if (!seen.insert(t.items, r).second)
        duplicate("items", t.items, first_row_with(t.items, r), r);
    }
  }
}

// Adds B's rows: items already seen (from A) get their B cluster, new items are appended.
void add_b(const ClusteringInput& b, Interner& ids, JoinedClusterings* j) {
  const BigVector<uint32_t> b_row_cluster =
      detail::intern_column(b.clusters, &j->b_cluster_first_row);
  BigVector<uint32_t> found(b.items.size);
  for (size_t r = 0; r < b.items.size; ++r) {
    if (r + kPrefetch < b.items.size) ids.prefetch(b.items, r + kPrefetch);
    found[r] = ids.insert(b.items, r).first;
  }
  j->a_cluster.resize(ids.size(), kNone);
  j->b_cluster.assign(ids.size(), kNone);
  for (size_t r = 0; r < found.size(); ++r) {
    if (r + kPrefetch < found.size())
      detail::prefetch_for_write(&j->b_cluster[found[r + kPrefetch]]);
    uint32_t& cluster = j->b_cluster[found[r]];
    if (cluster != kNone) duplicate(b.role, b.items, first_row_with(b.items, r), r);
    cluster = b_row_cluster[r];
  }
}

uint64_t hash_id(const IdColumn& c, size_t row) {
  return c.is_string() ? detail::hash_bytes(c.str(row)) : detail::mix64(uint64_t(c.ints[row]));
}

}  // namespace

// A fingerprint is its row count's hash plus a hash per row (mod 2^64): parts add up once
// each part's own count hash is taken out.
uint64_t combine_fingerprints(const std::vector<uint64_t>& parts, const std::vector<uint64_t>& rows,
                              bool items) {
  if (parts.size() != rows.size())
    throw std::invalid_argument("clusterscore: one row count per fingerprint is needed");
  uint64_t n = 0, h = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    n += rows[p];
    h += parts[p] - detail::mix64(rows[p] + items);
  }
  return h + detail::mix64(n + items);
}

uint64_t fingerprint(const ClusteringInput& c) {
  uint64_t h = detail::mix64(c.items.size);
  for (size_t r = 0; r < c.items.size; ++r)
    h += detail::mix64(hash_id(c.items, r) ^ (hash_id(c.clusters, r) * 0x9E3779B97F4A7C15ull));
  return h;
}

uint64_t fingerprint(const ItemsInput& t) {
  uint64_t h = detail::mix64(t.items.size + 1);
  for (size_t r = 0; r < t.items.size; ++r) {
    uint64_t w = 0;
    if (t.weights) std::memcpy(&w, &t.weights[r], sizeof w);
    h += detail::mix64(hash_id(t.items, r) ^ detail::mix64(w));
  }
  return h;
}

namespace {

// The exact join of string ids through one table of them: a lookup compares bytes with
// the id it matches, three or four dependent cache misses at random: several times
// slower than the partitioned join.
// Only used when join_partitioned() found two string ids with the same hash.
void join_exact(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items,
                JoinedClusterings* j) {
  Interner ids(a.items.is_string(), std::max(a.items.size, b.items.size));
  j->a_cluster = detail::intern_column(a.clusters, &j->a_cluster_first_row);
  for (size_t r = 0; r < a.items.size; ++r) {
    if (r + kPrefetch < a.items.size) ids.prefetch(a.items, r + kPrefetch);
    auto [id, inserted] = ids.insert(a.items, r);
    if (!inserted) duplicate(a.role, a.items, id, r);
  }
  add_b(b, ids, j);
  j->weight.assign(j->n_items(), 1.0);
  if (items) add_items_table(*items, ids, j);
}

// Units (ItemsInput::counts): each item's count and Σw², from its items-table row.
void add_units(const ItemsInput& t, JoinedClusterings* j) {
  if (!t.weights || !t.weights_sq)
    throw std::invalid_argument("clusterscore: units need their weights and squared weights");
  for (size_t r = 0; r < t.items.size; ++r) {
    if (t.counts[r] == 0)
      throw InputError("items", int64_t(r), "unit " + t.items.repr(r) + " holds no item (count 0)");
    const double q = t.weights_sq[r];
    if (!(std::isfinite(q) && q >= 0))
      throw InputError("items", int64_t(r),
                       "unit " + t.items.repr(r) + ": its sum of squared weights " + fmt_weight(q) +
                           " is not a finite number >= 0");
  }
  j->count.resize(j->n_items());
  j->weight_sq.resize(j->n_items());
  for (size_t i = 0; i < j->n_items(); ++i) {
    const uint32_t r = j->items_row[i];
    if (r == kNone) {
      const bool in_a = i < j->a_rows;
      const std::string& role = in_a ? j->role_a : j->role_b;
      throw InputError(role, -1, "with units, every item needs a row in the items table");
    }
    j->count[i] = t.counts[r];
    j->weight_sq[i] = t.weights_sq[r];
  }
}

JoinedClusterings empty_join(const ClusteringInput& a, const ClusteringInput& b) {
  JoinedClusterings j;
  j.role_a = a.role;
  j.role_b = b.role;
  j.a_rows = a.items.size;
  j.b_rows = b.items.size;
  return j;
}

}  // namespace

namespace join_detail {
JoinedClusterings join_with(const ClusteringInput& a, const ClusteringInput& b,
                            const ItemsInput* items, StringHashFn weak_hash) {
  check_same_kind(a, b, items);
  if (a.items.size != a.clusters.size || b.items.size != b.clusters.size)
    throw std::invalid_argument("clusterscore: item and cluster columns differ in length");
  if (std::max({a.items.size, b.items.size, items ? items->items.size : 0}) >= kNone)
    throw std::length_error("clusterscore: more than 2^32-2 rows");
  JoinedClusterings j = empty_join(a, b);
  if (!join_partitioned(a, b, items, kPartitionRows, weak_hash, &j)) {
    j = empty_join(a, b);  // two string ids had the same hash
    join_exact(a, b, items, &j);
  }
  if (items && items->counts) add_units(*items, &j);
  return j;
}
}  // namespace join_detail

JoinedClusterings join(const ClusteringInput& a, const ClusteringInput& b,
                       const ItemsInput* items) {
  return join_detail::join_with(a, b, items, nullptr);
}

}  // namespace clusterscore
