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

// The weights an item of cell weights `w` among `total` is scored by, and their names (the
// per-item table's): tp = X, fp = E − X, fn = B − X, tn the rest. Of any number type.
inline constexpr const char* kPointwiseCountNames[4] = {"tp", "fp", "fn", "tn"};
template <class T>
[[gnu::always_inline]] inline void pointwise_counts(const CellWeightsOf<T>& w, T total, T* out) {
  out[0] = w.x, out[1] = w.ex, out[2] = w.bx, out[3] = total - w.x - w.ex - w.bx;
}

// The eight metrics as numerators num[0..8) over denominators den[0..8): precision,
// recall, f1, accuracy of an item of cell weights `w` (tp = X, fp = E − X, fn = B − X)
// among `total`, then the four overlap_fractions(). Complements are computed from fp and
// fn directly, not as 1 − x, to keep small rates exact. Of any number type (CellWeightsOf).
template <class T>
[[gnu::always_inline]] inline void pointwise_fractions(const CellWeightsOf<T>& w, T total, T* num,
                                                       T* den) {
  T counts[4];
  pointwise_counts(w, total, counts);
  const T tp = counts[0], fp = counts[1], fn = counts[2], tn = counts[3];
  num[0] = tp, num[1] = tp, num[2] = tp + tp, num[3] = tp + tn;  // tp + tp: 2·tp exactly
  den[0] = tp + fp, den[1] = tp + fn, den[2] = tp + tp + fp + fn, den[3] = total;
  overlap_fractions(w, num + 4, den + 4);
}

// out: the eight metrics of pointwise_fractions(), four divisions at once (each lane
// divides exactly as scalar code would: the same bits).
[[gnu::always_inline]] inline void pointwise_row(const CellWeights& w, double total, double* out) {
  double num[kPointwiseMetrics], den[kPointwiseMetrics];
  pointwise_fractions(w, total, num, den);
  store4(out, load4(num) / load4(den));
  store4(out + 4, load4(num + 4) / load4(den + 4));
}

// pointwise_row() of vectors of values (CellWeightsOf), lane by lane the same bits.
template <class V>
[[gnu::always_inline]] inline void pointwise_rows(const CellWeightsOf<V>& w, V total, V* out) {
  V num[kPointwiseMetrics], den[kPointwiseMetrics];
  pointwise_fractions(w, total, num, den);
  for (int m = 0; m < kPointwiseMetrics; ++m) out[m] = num[m] / den[m];
}

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
