// Per-cell ABCDE impact metrics of Exp (B) against Base (A): docs/metrics.md, diff.
#pragma once

#include <cstdint>

#include "cells/cells.h"
#include "clusterscore/types.h"
#include "levels/metric_table.h"

namespace clusterscore {

// impact_cells()' columns, in order: their index in that table and in its means'.
struct ImpactColumn {
  enum : size_t {
    kSplitDistance,
    kMergeDistance,
    kJaccardDistance,
    kJaccardIndex,
    kSplitRate,
    kMergeRate,
    kAffected,
    kCount
  };
};
// Their names; `affected`'s mean is reported as `affected_share`.
inline constexpr const char* kImpactNames[ImpactColumn::kCount] = {
    "split_distance", "merge_distance", "jaccard_distance", "jaccard_index",
    "split_rate",     "merge_rate",     "affected"};

// Per cell, the metrics averaged over groups (ImpactColumn; `affected` is 1 or 0, its mean
// the affected weight's share). They are made of B, E, X, U (weights: the item's Base
// cluster, Exp cluster, their intersection, their union, all within T). `affected` is
// decided on item counts, so it is exact. O(cells).
MetricTable impact_cells(const CellTable& cells);

// Per cell, B, E, X, U (for per-item output; they are not averaged). O(cells).
MetricTable impact_cell_sizes(const CellTable& cells);

ImpactSummary impact_summary(const CellTable& cells, const MetricTable& impact);

// Adds `affected_weight` (weight × affected_share) to a group table of impact means (columns
// in ImpactColumn's order).
void add_impact_derived(struct GroupTable* groups);

// The flows of weight between a Base cluster and an Exp cluster where something changed:
// every cell whose Base cluster spans several Exp clusters or whose Exp cluster spans
// several Base clusters. Largest weight first (ties: by Base, then Exp cluster index).
struct FlowTable {
  BigVector<uint32_t> row, col;     // the cell's Base and Exp cluster
  BigVector<uint64_t> items;        // its items
  BigVector<double> weight;         // their weight
  BigVector<double> share_of_base;  // the cell's weight / its Base cluster's weight (in T)
  BigVector<double> share_of_exp;   // the cell's weight / its Exp cluster's weight (in T)
};
FlowTable changed_flows(const CellTable& cells);

}  // namespace clusterscore
