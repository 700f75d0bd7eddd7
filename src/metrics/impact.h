// Per-cell ABCDE impact metrics of Exp (B) against Base (A): docs/metrics.md, diff.
#pragma once

#include <cstdint>
#include <utility>

#include "cells/cell_weights.h"
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

// impact_cell_sizes()' names: the weights of an item's Base cluster, Exp cluster, their
// intersection and their union, all within T.
inline constexpr const char* kImpactSizeNames[4] = {"B", "E", "X", "U"};

// A group table's name for the mean of `affected`: the affected weight's share.
inline constexpr std::pair<const char*, const char*> kImpactRename{
    kImpactNames[ImpactColumn::kAffected], "affected_share"};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // a vector between inlined functions only
namespace detail {
// One cell's impact metrics (ImpactColumn's order) from its weights (B is Base's, E is
// Exp's, over T) and whether it is affected: its Base cluster split or its Exp cluster
// merged, decided on item counts (splits_row(), merges_column()). Inlined: per cell in hot loops.
[[gnu::always_inline]] inline void impact_row(const CellWeights& s, bool affected, double* row) {
  const double u = s.u();
  double shared[4];  // jaccard_index, jaccard_distance, merge_rate, split_rate
  store4(shared, overlap_shares(s));
  row[ImpactColumn::kSplitDistance] = s.bx / u;
  row[ImpactColumn::kMergeDistance] = s.ex / u;
  row[ImpactColumn::kJaccardDistance] = shared[1];
  row[ImpactColumn::kJaccardIndex] = shared[0];
  row[ImpactColumn::kSplitRate] = shared[3];
  row[ImpactColumn::kMergeRate] = shared[2];
  row[ImpactColumn::kAffected] = affected ? 1.0 : 0.0;
}

// One cell's weights as the per-item table gives them, in kImpactSizeNames' order.
inline void impact_sizes(const CellWeights& s, double* row) {
  row[0] = s.b, row[1] = s.e, row[2] = s.x, row[3] = s.u();
}
}  // namespace detail
#pragma GCC diagnostic pop

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
