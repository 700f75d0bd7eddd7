// What the library reads: clusterings and an items table, as views of the caller's columns.
#pragma once

#include <cstdint>
#include <string>

#include "clusterscore/ids.h"

namespace clusterscore {

// One clustering: row r puts item items[r] in cluster clusters[r].
// `role` ("truth", "actual", "base", "exp") names it in error messages.
// `cluster_codes`, if not null, gives the clusters instead, as codes numbered in order of
// first appearance (0, then 1, ...: a caller's own interning of its cluster ids, which it
// keeps in place of them); `clusters` then only gives the row count.
struct ClusteringInput {
  std::string role;
  IdColumn items;
  IdColumn clusters;
  const uint32_t* cluster_codes = nullptr;
};

// Item attributes: row r gives item items[r] the weight weights[r]
// (all 1 when `weights` is null). Other columns are used as slices by the caller.
// An item may stand for a *unit* of several items that share both clusters and every slice
// value (another engine's group-by, e.g. Spark's): then `counts[r]` is how many, `weights[r]`
// their Σw and `weights_sq[r]` their Σw². Every metric is a function of these sums, so a
// comparison of units equals the comparison of the items they stand for; only what needs
// single items (the sampler) refuses units. With `counts`, every item of both clusterings
// needs a row, and `weights` and `weights_sq` are required.
struct ItemsInput {
  IdColumn items;
  const double* weights = nullptr;
  const uint64_t* counts = nullptr;
  const double* weights_sq = nullptr;
};

}  // namespace clusterscore
