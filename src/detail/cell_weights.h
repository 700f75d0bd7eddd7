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

#include "clusterscore/cells.h"

namespace clusterscore::detail {

struct CellWeights {
  double x, b, e;
  // B − X and E − X, as subtractions: exactly 0 where the cell is its whole row (column)
  // over T, since marginals are compensated sums of their cells, and one cell's sum is
  // its weight.
  double bx, ex;
  double u() const { return x + bx + ex; }
};

// Reads the cell's weight, row and column, and the two marginals (the column's at random:
// callers prefetch it).
[[gnu::always_inline]] inline CellWeights cell_weights(const CellTable& cells,
                                                       std::span<const double> col_weight,
                                                       size_t k) {
  const double x = cells.weight[k];
  const double b = cells.row_weight[cells.row[k]], e = col_weight[cells.col[k]];
  return {x, b, e, b - x, e - x};
}

// Whether cell k's row (column) holds other cells over T, decided on item counts: exact,
// where B − X > 0 is not (a tiny cell beside a heavy one adds nothing to B).
[[gnu::always_inline]] inline bool splits_row(const CellTable& cells, size_t k) {
  return cells.count[k] < cells.row_count[cells.row[k]];
}
[[gnu::always_inline]] inline bool merges_column(const CellTable& cells, size_t k) {
  return cells.count[k] < cells.col_count[cells.col[k]];
}

}  // namespace clusterscore::detail
