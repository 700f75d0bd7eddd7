#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "clusterscore/error.h"
#include "detail/hash.h"
#include "input/clustering.h"
#include "input/interner.h"
#include "join/parts.h"

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
  throw InputError(role, int64_t(row), "item " + col.repr(row) + " appears twice", int64_t(first));
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
    if (!detail::is_weight(w))
      throw InputError("items", int64_t(r),
                       "weight " + fmt_weight(w) + " of item " + t.items.repr(r) +
                           " is not a finite number > 0");
  }
}

}  // namespace join_detail

namespace {

using join_detail::fmt_weight;

void check_same_kind(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items) {
  const bool s = a.items.is_string();
  if (b.items.is_string() != s || (items && items->items.is_string() != s))
    throw std::invalid_argument("clusterscore: item ids must be all integers or all strings");
}

}  // namespace

namespace {

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
                            const ItemsInput* items, StringHashFn weak_hash,
                            unsigned weak_attempts) {
  check_same_kind(a, b, items);
  if (a.items.size != a.clusters.size || b.items.size != b.clusters.size)
    throw std::invalid_argument("clusterscore: item and cluster columns differ in length");
  if (std::max({a.items.size, b.items.size, items ? items->items.size : 0}) >= kNone)
    throw std::length_error("clusterscore: more than 2^32-2 rows");
  // String ids are matched by a 64-bit hash of their bytes, every match compared: two ids
  // sharing a hash (by chance, about one input in 2^64 / (rows²/2)) make the join start
  // again with another hash of the family.
  for (unsigned attempt = 0; attempt < kJoinSeeds; ++attempt) {
    JoinedClusterings j = empty_join(a, b);
    const uint64_t seed = attempt == 0 ? detail::wy::kP0 : detail::mix64(detail::wy::kP0 + attempt);
    if (!join_partitioned(a, b, items, kPartitionRows,
                          attempt < weak_attempts ? weak_hash : nullptr, &j, seed))
      continue;
    if (items && items->counts) add_units(*items, &j);
    return j;
  }
  throw std::runtime_error("clusterscore: two different item ids share a 64-bit hash under " +
                           std::to_string(kJoinSeeds) + " seeds");
}
}  // namespace join_detail

JoinedClusterings join(const ClusteringInput& a, const ClusteringInput& b,
                       const ItemsInput* items) {
  return join_detail::join_with(a, b, items, nullptr);
}

}  // namespace clusterscore
