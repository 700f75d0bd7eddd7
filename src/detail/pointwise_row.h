// The eight pointwise metrics of an item from its tp, fp, fn, tn (docs/metrics.md): the one
// formula behind the per-cell table and the bootstrap's recomputed cells.
#pragma once

#include "detail/lanes.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::detail {

inline constexpr int kPointwiseMetrics = 8;
// Their names, in pointwise_row()'s order.
inline constexpr const char* kPointwiseNames[kPointwiseMetrics] = {
    "precision",       "recall",          "f1", "accuracy", "jaccard_index", "jaccard_distance",
    "over_merge_rate", "under_merge_rate"};

// out: precision, recall, f1, accuracy, jaccard_index, jaccard_distance, over_merge_rate,
// under_merge_rate. Complements are computed from fp and fn directly, not as 1 − x, to
// keep small rates exact. Eight divisions four at a time (each lane divides exactly as
// scalar code would: the same bits).
[[gnu::always_inline]] inline void pointwise_row(double tp, double fp, double fn, double tn,
                                                 double total, double* out) {
  const Lanes4 num0 = {tp, tp, 2 * tp, tp + tn}, den0 = {tp + fp, tp + fn, 2 * tp + fp + fn, total};
  const Lanes4 num1 = {tp, fp + fn, fp, fn}, den1 = {tp + fp + fn, tp + fp + fn, tp + fp, tp + fn};
  store4(out, num0 / den0);
  store4(out + 4, num1 / den1);
}

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
