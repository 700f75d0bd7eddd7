// Weighted means of per-cell metrics over any grouping: the one function behind every
// level (overall, per cluster, per slice, per filter).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "levels/metric_table.h"

namespace clusterscore {

// The units being grouped: either the cells themselves (`cell` empty: unit k is cell k)
// or items (`cell[u]` is item u's cell, kNone for items outside T, which are skipped).
// `group[u]` in [0, n_groups) or kNone (skipped); `weight[u]`, `count[u]` and
// `weight_sq[u]` are the unit's total weight, item count (`count` empty: one item each) and
// Σw² (`weight_sq` empty: weight², one item each; only pair_sums() reads it).
struct Units {
  std::span<const uint32_t> cell;
  std::span<const uint32_t> group;
  std::span<const double> weight;
  std::span<const uint64_t> count;
  std::span<const double> weight_sq;
};

// For each group with at least one item: Σ count, Σ weight, and for each metric column
// of `per_cell`, Σ weight·value / Σ weight (compensated sums). Output names are
// per_cell.names, renamed by `rename` (pairs old → new).
// Groups come out in increasing code order. O(units × metrics).
GroupTable aggregate(const MetricTable& per_cell, const Units& units, size_t n_groups,
                     const std::vector<std::pair<std::string, std::string>>& rename = {});

// As aggregate(), with each group's compensated sums Σ weight·value in place of the means
// (the bootstrap's per-cluster sums: it scales them by how often a cluster is drawn).
// `per_cell` may have no columns (a default MetricTable): then counts and weights only.
GroupTable aggregate_totals(const MetricTable& per_cell, const Units& units, size_t n_groups);

}  // namespace clusterscore
