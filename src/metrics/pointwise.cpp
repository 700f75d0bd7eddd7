#include "metrics/pointwise.h"

#include <iterator>

#include "cells/cell_weights.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "metrics/fill_rows.h"
#include "metrics/pointwise_row.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore {
namespace {

// tp, fp, fn, tn of cell k (cells/cell_weights.h): the weights every pointwise metric is
// made of.
struct Counts {
  double tp, fp, fn, tn;
};
Counts counts_of(const CellTable& cells, const ActualMarginals& m, size_t k) {
  double c[4];
  detail::pointwise_counts(detail::cell_weights(cells, m.col_weight, k), m.total, c);
  return {c[0], c[1], c[2], c[3]};
}

// Cells come row by row, so their columns' marginals are read at random. Must be
// inlined: GCC deems a function whose only effect is a prefetch pure and drops calls.
[[gnu::always_inline]] inline void prefetch_column(const CellTable& cells, const ActualMarginals& m,
                                                   size_t k) {
  if (k < cells.size()) detail::prefetch(&m.col_weight[cells.col[k]]);
}

}  // namespace

MetricTable pointwise_cells(const CellTable& cells, const ActualMarginals& m) {
  MetricTable t(std::vector<std::string>(std::begin(detail::kPointwiseNames),
                                         std::end(detail::kPointwiseNames)),
                cells.size());
  const double total = m.total;
  detail::fill_rows(&t, cells.size(), [&](size_t k, double* row) {
    // The cell arrays read in order, beside the marginals' misses at random.
    detail::prefetch_stream(cells.weight.data(), k);
    detail::prefetch_stream(cells.row.data(), k);
    detail::prefetch_stream(cells.col.data(), k);
    prefetch_column(cells, m, k + detail::kColumnAhead);
    detail::pointwise_row(detail::cell_weights(cells, m.col_weight, k), total, row);
  });
  return t;
}

MetricTable pointwise_cell_counts(const CellTable& cells, const ActualMarginals& m) {
  MetricTable t({std::begin(detail::kPointwiseCountNames), std::end(detail::kPointwiseCountNames)},
                cells.size());
  detail::fill_rows(&t, cells.size(), [&](size_t k, double* row) {
    prefetch_column(cells, m, k + detail::kColumnAhead);
    const auto [tp, fp, fn, tn] = counts_of(cells, m, k);
    row[0] = tp, row[1] = fp, row[2] = fn, row[3] = tn;
  });
  return t;
}

void add_pointwise_derived(GroupTable* g) {
  // Means of pointwise_cells(), whose columns aggregate() keeps in order.
  const BigVector<double>& p = g->columns[detail::PointwiseColumn::kPrecision];
  const BigVector<double>& r = g->columns[detail::PointwiseColumn::kRecall];
  BigVector<double> f(g->size());
  detail::parallel_ranges(f.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) f[i] = f1_of_means(p[i], r[i]);
  });
  g->names.push_back(detail::kF1OfMeans);
  g->columns.push_back(std::move(f));
}

}  // namespace clusterscore
