// The eight pointwise metrics of an item from its tp, fp, fn, tn (docs/metrics.md): the one
// formula behind the per-cell table and the bootstrap's recomputed cells.
#pragma once

#include "cells/cell_weights.h"
#include "detail/lanes.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::detail {

// pointwise_row()'s values, in order: their index in a row, and in every table made of them.
struct PointwiseColumn {
  enum : int {
    kPrecision,
    kRecall,
    kF1,
    kAccuracy,
    kJaccardIndex,
    kJaccardDistance,
    kOverMergeRate,
    kUnderMergeRate
  };
};
inline constexpr int kPointwiseMetrics = 8;
// Their names, in that order.
inline constexpr const char* kPointwiseNames[kPointwiseMetrics] = {
    "precision",       "recall",          "f1", "accuracy", "jaccard_index", "jaccard_distance",
    "over_merge_rate", "under_merge_rate"};
static_assert(PointwiseColumn::kUnderMergeRate + 1 == kPointwiseMetrics);
// What every table of pointwise means adds after them: f1 of the mean precision and recall,
// then the three pair metrics.
inline constexpr const char* kF1OfMeans = "f1_of_means";
inline constexpr const char* kPairNames[3] = {"pair_precision", "pair_recall", "pair_f1"};

// out: precision, recall, f1, accuracy of an item of cell weights `w` (tp = X, fp = E − X,
// fn = B − X) among `total`, then the four overlap_shares(). Complements are computed from
// fp and fn directly, not as 1 − x, to keep small rates exact. Four divisions at once (each
// lane divides exactly as scalar code would: the same bits).
[[gnu::always_inline]] inline void pointwise_row(const CellWeights& w, double total, double* out) {
  const double tp = w.x, fp = w.ex, fn = w.bx, tn = total - tp - fp - fn;
  const Lanes4 num = {tp, tp, 2 * tp, tp + tn}, den = {tp + fp, tp + fn, 2 * tp + fp + fn, total};
  store4(out, num / den);
  store4(out + 4, overlap_shares(w));
}

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
