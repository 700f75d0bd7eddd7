// Every level's sums where the units and their cells' weights were formed elsewhere: the
// Spark engine groups the items into units, joins each unit to its cell and that cell's
// marginals, calls unit_level_sums() on each partition, sums its rows by any level's key
// (overall, cluster, slice) with its own operators, and finishes the sums here. The per-cell
// kernel and the pair terms are those aggregate() uses; only the order of the sums differs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "clusterscore/types.h"
#include "levels/metric_table.h"

namespace clusterscore {

// Units of one cell each (a cell's items, or those of its items with some slice values),
// one value per unit: their count, weight Σw and Σw², and what the kernel reads of their
// cell (cells/cell_weights.h): X its weight, B its truth cluster's over T, E its actual
// cluster's as the scope reads it (over T, or over S' in the entities scope).
struct CellUnits {
  std::span<const uint64_t> count;
  std::span<const double> weight, weight_sq;
  std::span<const double> cell_weight, truth_weight, actual_weight;
  // Per unit, its truth cluster's items in the truth: the inverse_size design's weights;
  // empty for a design weight of 1 (the uniform design, and the common scope's means).
  std::span<const uint64_t> truth_size;
  double total = 0;         // the weight tn is counted against: w(T), or w(S') when entities
  double scale = 1.0;       // the pair sums' power of two (PairInputs::scale), one for all parts
  bool per_entity = false;  // average="entities": design weights over the cluster's w(T)
};

// The column after the weight that the means divide by: Σ design·w.
inline constexpr const char* kDesignWeight = "design_weight";

// Per unit, what its items add to any level it is in: group k is unit k, `items` its
// count, `weight` its Σw, then the columns kDesignWeight, Σ design·w·value of each pointwise
// metric (pointwise_cells()' names) and the three pair sums (kPairSumNames), design-weighted.
// Sums of these rows over a level's units are that level's sums. Throws
// std::invalid_argument for spans of different lengths (truth_size may be empty). O(units).
GroupTable unit_level_sums(const CellUnits& units);

// Each group's values from its summed rows of unit_level_sums() (`sums`: the same names, in
// the same order; groups as given): the means, f1_of_means and the pair metrics, as
// Comparison::overall() and by_cluster() give them (NaN where a pair metric has no pairs).
// Throws std::invalid_argument for other columns.
GroupTable finish_level_sums(GroupTable sums);

// Units of one cell each of Base (A) and Exp (B), for the impact metrics: their count and
// weight Σw, and what the kernel reads of their cell over T: X its weight, B its Base
// cluster's, E its Exp cluster's, and the item counts of each, which decide whether the
// cell is affected (cells/cell_weights.h, holds_others()).
struct ImpactUnits {
  std::span<const uint64_t> count;
  std::span<const double> weight;
  std::span<const double> cell_weight, base_weight, exp_weight;
  std::span<const uint64_t> cell_count, base_count, exp_count;
};

// Per unit, what its items add to any level of a diff: group k is unit k, `items` its count,
// `weight` its Σw, then Σw·value of each impact metric (kImpactNames), then the summary's
// parts: `affected_items` (its count where affected), `affected_jaccard` (Σw·jaccard_index
// where affected), `unaffected_weight`; then w/B and w/E (`share_of_base`, `share_of_exp`:
// summed over a cell's units, the cell's flow shares); then `base_split` and `exp_merged`,
// 1 or 0, the same for every unit of a cluster: counted once per cluster, not summed.
// Throws std::invalid_argument for spans of different lengths. O(units).
GroupTable impact_unit_sums(const ImpactUnits& units);

// Each group's means from its summed rows of impact_unit_sums() (the same names, in the same
// order), as Comparison::overall() and by_cluster() give them for a diff: the impact metrics
// (`affected` as `affected_share`) and affected_weight. Throws std::invalid_argument for
// other columns.
GroupTable finish_impact_sums(GroupTable sums);

// The impact summary of the items summed in row `g` of `sums` (impact_unit_sums()' columns,
// summed over all units of T), given how many Base clusters have `base_split` units and how
// many Exp clusters have `exp_merged` units. Throws std::invalid_argument for other columns.
ImpactSummary impact_summary_of_sums(const GroupTable& sums, size_t g, uint64_t base_clusters_split,
                                     uint64_t exp_clusters_merged);

// Per unit, the values the per-item table gives each of its items, as Comparison::per_item()
// does: its cell's weights (kPointwiseCountNames; for a diff kImpactSizeNames), then its
// cell's metrics (pointwise_cells()' names; impact_cells()'). Group k is unit k, `items` its
// count, `weight` its Σw. Throws std::invalid_argument for spans of different lengths.
// O(units).
GroupTable unit_item_values(const CellUnits& units);
GroupTable impact_unit_item_values(const ImpactUnits& units);

}  // namespace clusterscore
