// Per-cell pointwise metrics of an actual clustering (B) against a truth (A): docs/metrics.md,
// and the pair metrics' sums (docs/metrics.md, "pair metrics"), in either truth scope.
#pragma once

#include <span>

#include "cells/cells.h"
#include "levels/aggregate.h"
#include "levels/metric_table.h"

namespace clusterscore {

// What a truth item's actual cluster weighs in the scope: in the common scope the actual
// cluster restricted to T (cells.col_weight, total cells.total_weight); in the entities
// scope the whole actual cluster over S' (items outside the truth included), total w(S').
struct ActualMarginals {
  std::span<const double> col_weight;  // per actual cluster (column); >= its cells' weight
  double total = 0;                    // the weight tn is counted against
};
inline ActualMarginals common_marginals(const CellTable& cells) {
  return {cells.col_weight, cells.total_weight};
}

// Per cell, the metrics averaged over groups: precision, recall, f1, accuracy,
// jaccard_index, jaccard_distance, over_merge_rate, under_merge_rate. For a cell
// (truth row r, actual column c): tp = w(cell), fp = m.col_weight[c] − tp,
// fn = w(r) − tp, tn = m.total − tp − fp − fn. Every denominator is ≥ tp > 0. O(cells).
MetricTable pointwise_cells(const CellTable& cells, const ActualMarginals& m);

// Per cell, the weights the metrics are made of: tp, fp, fn, tn (for per-item output;
// they are not averaged). O(cells).
MetricTable pointwise_cell_counts(const CellTable& cells, const ActualMarginals& m);

// The harmonic mean of a set's mean precision and mean recall (both > 0: every item's
// tp is at least its own weight).
inline double f1_of_means(double precision, double recall) {
  return 2 * precision * recall / (precision + recall);
}

// Adds `f1_of_means` to each group.
void add_pointwise_derived(struct GroupTable* groups);

// Per cell, what its items pair with (the pair metrics' sums, aggregate()'s PairInputs):
// its weight, its actual cluster's in `m` and its truth cluster's (tp, actual, truth), and
// its truth cluster's design weight (1 when `design`, per row, is empty). O(cells).
BigVector<PairCell> pair_cells(const CellTable& cells, const ActualMarginals& m,
                               std::span<const double> design);

// A power of two near 1 / (the mean weight of an item of T), which weights are
// multiplied by in the pair sums over items (PairInputs::scale).
double pair_scale(const CellTable& cells);
// The same from T's weight and item count (the Spark engine's units: levels/unit_levels.h).
double pair_scale(double total_weight, uint64_t total_count);

// Whether the cells' sums of squared weights serve the pair sums: every cell weight and
// the scope's total within 2^±250, so that no square overflows and none that matters
// underflows. Else pair sums must be taken over items.
bool pair_sums_by_cell(const CellTable& cells, const ActualMarginals& m);

// The three pair sums of each group, per row of a table.
struct PairSumColumns {
  BigVector<double> together, actual, truth;
};
// Moves the pair sums (kPairSumNames, aggregate()'s last columns with PairInputs) out of
// `t`; std::logic_error if they are not there.
PairSumColumns take_pair_sums(GroupTable* t);
// pair_precision = together / actual, pair_recall = together / truth and pair_f1 their
// harmonic mean, for each row of `t`, appended to it; NaN where a denominator is 0.
void add_pair_metrics(GroupTable* t, const PairSumColumns& s);

// The same three from the sums of one set.
struct PairMetrics {
  double precision, recall, f1;
};
PairMetrics pair_metrics(double together, double actual, double truth);

}  // namespace clusterscore
