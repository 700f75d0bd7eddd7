// Per-cell pointwise metrics of an actual clustering (B) against a truth (A): SPEC §1.
#pragma once

#include "clusterscore/cells.h"
#include "clusterscore/metric_table.h"

namespace clusterscore {

// Per cell, the metrics averaged over groups: precision, recall, f1, accuracy,
// jaccard_index, jaccard_distance, over_merge_rate, under_merge_rate. For a cell
// (truth row r, actual column c): tp = w(cell), fp = w(c) − tp, fn = w(r) − tp,
// tn = w(T) − tp − fp − fn. Every denominator is ≥ tp > 0. O(cells).
MetricTable pointwise_cells(const CellTable& cells);

// Per cell, the weights the metrics are made of: tp, fp, fn, tn (for per-item output;
// they are not averaged). O(cells).
MetricTable pointwise_cell_counts(const CellTable& cells);

// The harmonic mean of a set's mean precision and mean recall (both > 0: every item's
// tp is at least its own weight).
inline double f1_of_means(double precision, double recall) {
  return 2 * precision * recall / (precision + recall);
}

// Adds `f1_of_means` to each group.
void add_pointwise_derived(struct GroupTable* groups);

}  // namespace clusterscore
