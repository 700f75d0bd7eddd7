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
// Σw² (`weight_sq` empty: weight², one item each; only the pair sums read it).
struct Units {
  std::span<const uint32_t> cell;
  std::span<const uint32_t> group;
  std::span<const double> weight;
  std::span<const uint64_t> count;
  std::span<const double> weight_sq;
};

// What the items of each cell pair with (levels/pair_terms.h): the weight of their cell (tp),
// of their actual cluster and of their truth cluster; and the truth cluster's design weight.
struct PairCell {
  double tp, actual, truth, design;
};

// The pair metrics' sums as columns of the one aggregation (docs/metrics.md, "pair metrics").
// A unit of weight w in cell k adds design·(its pair terms) to three sums, and weighs
// w·design in the means. `cell` per cell (as the metric table's rows).
struct PairInputs {
  std::span<const PairCell> cell;
  // Units are whole cells, their Σw² in Units::weight_sq, taken as they are (scale 1):
  // cell_pair_terms(); else items (or units of items), weights times `scale` (a power of
  // two: products neither overflow nor underflow, ratios do not change).
  bool over_cells = false;
  double scale = 1.0;
};
// The names of the three sums' columns, after the means: Σ pairs within a cell, within an
// actual cluster, within a truth cluster.
inline constexpr const char* kPairSumNames[3] = {"pair_together", "pair_actual", "pair_truth"};

// For each group with at least one item: Σ count, Σ weight, and for each metric column
// of `per_cell`, Σ weight·value / Σ weight (compensated sums). Output names are
// per_cell.names, renamed by `rename` (pairs old → new). With `pairs`, the means weigh
// each unit by its cell's design weight too (the weight column stays Σ weight), and the
// three pair sums (kPairSumNames) follow them: one pass for both.
// Groups come out in increasing code order. O(units × metrics). Throws
// std::invalid_argument for unit arrays of different lengths, pair sums over units of
// several items (or cells) without their Σw², or pair inputs not one per cell.
GroupTable aggregate(const MetricTable& per_cell, const Units& units, size_t n_groups,
                     const std::vector<std::pair<std::string, std::string>>& rename = {},
                     const PairInputs* pairs = nullptr);

// As aggregate(), with each group's compensated sums Σ weight·value in place of the means
// (the bootstrap's per-cluster sums: it scales them by how often a cluster is drawn).
// `per_cell` may have no columns (a default MetricTable): then counts and weights only.
GroupTable aggregate_totals(const MetricTable& per_cell, const Units& units, size_t n_groups,
                            const PairInputs* pairs = nullptr);

}  // namespace clusterscore
