// A per-cell metric table written row by row on every thread: each row depends on its
// cell alone, so any split of the rows gives the same table.
#pragma once

#include <algorithm>
#include <cstddef>

#include "detail/parallel.h"
#include "levels/metric_table.h"

namespace clusterscore::detail {

// Makes `t` (no rows yet) `rows` rows long, row k's width() values written by
// row_of(k, out) and its padding zeroed. row_of runs on any thread, for ranges of k in
// increasing order within each range.
template <class RowOf>
void fill_rows(MetricTable* t, size_t rows, const RowOf& row_of) {
  const size_t stride = t->stride, width = t->width();
  t->values.resize(rows * stride);  // left unwritten (BigVector): every value set below
  t->n_rows = rows;
  double* const values = t->values.data();
  parallel_ranges(rows, [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      double* const out = values + k * stride;
      row_of(k, out);
      std::fill(out + width, out + stride, 0.0);
    }
  });
}

}  // namespace clusterscore::detail
