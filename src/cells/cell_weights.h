// The one per-cell kernel: the weights every per-cell quantity is made of (docs/metrics.md).
// For cell k, of A's cluster r (its row) and B's cluster c (its column): X, the cell's
// weight; B, the row's; E, the column's as the caller reads it (over T, or over S' in the
// entities scope); U = X + (B − X) + (E − X), their union. The pointwise metrics read them
// as tp = X, fn = B − X, fp = E − X (A the truth); the impact metrics and the sampler as
// they are (A is Base, B is Exp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cells/cells.h"
#include "detail/lanes.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::detail {

// Of any number type: a double, or a vector of several resamples' values
// (intervals/group_sums.h), whose lanes each take the same operations as a double.
template <class T>
struct CellWeightsOf {
  T x, b, e;
  // B − X and E − X, as subtractions: exactly 0 where the cell is its whole row (column)
  // over T, since marginals are compensated sums of their cells, and one cell's sum is
  // its weight.
  T bx, ex;
  // Inlined even unoptimized: a vector returned across a call of another instruction set
  // (CLUSTERSCORE_SIMD_CLONES) would change the ABI.
  [[gnu::always_inline]] T u() const { return x + bx + ex; }
};
using CellWeights = CellWeightsOf<double>;

// What the pointwise and the impact metrics share, in this order: jaccard_index X/U,
// jaccard_distance (B − X + E − X)/U, and the one-sided shares (E − X)/E (pointwise
// over_merge_rate, impact merge_rate) and (B − X)/B (under_merge_rate, split_rate), as
// numerators num[0..4) over denominators den[0..4). The complements are computed from
// B − X and E − X, not as 1 − x, to keep small rates exact; the denominators are the
// marginals, compensated sums, not X plus a rounded difference.
template <class T>
[[gnu::always_inline]] inline void overlap_fractions(const CellWeightsOf<T>& w, T* num, T* den) {
  const T u = w.u();
  num[0] = w.x, num[1] = w.bx + w.ex, num[2] = w.ex, num[3] = w.bx;
  den[0] = u, den[1] = u, den[2] = w.e, den[3] = w.b;
}

// overlap_fractions() divided: four divisions at once (each lane divides as scalar code
// would: the same bits).
[[gnu::always_inline]] inline Lanes4 overlap_shares(const CellWeights& w) {
  double num[4], den[4];
  overlap_fractions(w, num, den);
  return load4(num) / load4(den);
}

// Reads the cell's weight, row and column, and the two marginals (the column's at random:
// callers prefetch it).
[[gnu::always_inline]] inline CellWeights cell_weights(const CellTable& cells,
                                                       std::span<const double> col_weight,
                                                       size_t k) {
  const double x = cells.weight[k];
  const double b = cells.row_weight[cells.row[k]], e = col_weight[cells.col[k]];
  return {x, b, e, b - x, e - x};
}

// Whether a cell of `cell_count` items is not the whole of its row (column) of `whole_count`
// items over T: decided on item counts, which is exact, where B − X > 0 is not (a tiny cell
// beside a heavy one adds nothing to B).
[[gnu::always_inline]] inline bool holds_others(uint64_t cell_count, uint64_t whole_count) {
  return cell_count < whole_count;
}
// Whether cell k's row (column) holds other cells over T.
[[gnu::always_inline]] inline bool splits_row(const CellTable& cells, size_t k) {
  return holds_others(cells.count[k], cells.row_count[cells.row[k]]);
}
[[gnu::always_inline]] inline bool merges_column(const CellTable& cells, size_t k) {
  return holds_others(cells.count[k], cells.col_count[cells.col[k]]);
}

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
