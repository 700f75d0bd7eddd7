// The pair metrics (docs/metrics.md, "pair metrics"): ratios of design-weighted sums, not
// means. aggregate() sums them beside the means, in the same pass (levels/aggregate.h,
// PairInputs); what each cell's items pair with is gathered here, and the ratios taken.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <vector>

#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

namespace clusterscore {

double pair_scale(const CellTable& cells) {
  return pair_scale(cells.total_weight, cells.total_count);
}

double pair_scale(double total_weight, uint64_t total_count) {
  const double mean = total_weight / double(total_count);
  return std::isfinite(mean) && mean > 0 ? std::ldexp(1.0, -std::ilogb(mean)) : 1.0;
}

bool pair_sums_by_cell(const CellTable& cells, const ActualMarginals& m) {
  const double lo = std::ldexp(1.0, -250), hi = std::ldexp(1.0, 250);
  if (cells.weight_sq.size() != cells.size() || !(m.total <= hi)) return false;
  for (double w : cells.weight)
    if (!(w >= lo && w <= hi)) return false;
  return true;
}

BigVector<PairCell> pair_cells(const CellTable& cells, const ActualMarginals& m,
                               std::span<const double> design) {
  BigVector<PairCell> out(cells.size());
  detail::parallel_ranges(cells.size(), [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      detail::poll_every(k);
      // Cells come row by row: their actual clusters' weights are read at random.
      if (k + detail::kPrefetch < cells.size())
        detail::prefetch(&m.col_weight[cells.col[k + detail::kPrefetch]]);
      out[k] = {cells.weight[k], m.col_weight[cells.col[k]], cells.row_weight[cells.row[k]],
                design.empty() ? 1.0 : design[cells.row[k]]};
    }
  });
  return out;
}

PairMetrics pair_metrics(double together, double actual, double truth) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  // 2t / (a + b) is the harmonic mean of t/a and t/b, and 0 (not 0/0) when t = 0.
  return {actual > 0 ? together / actual : kNaN, truth > 0 ? together / truth : kNaN,
          actual > 0 && truth > 0 ? 2 * together / (actual + truth) : kNaN};
}

PairSumColumns take_pair_sums(GroupTable* t) {
  const size_t n = t->columns.size();
  if (n < 3 || !std::equal(std::begin(kPairSumNames), std::end(kPairSumNames), t->names.end() - 3))
    throw std::logic_error("clusterscore: a table without pair sums has no pair metrics");
  PairSumColumns s{std::move(t->columns[n - 3]), std::move(t->columns[n - 2]),
                   std::move(t->columns[n - 1])};
  t->names.resize(n - 3);
  t->columns.resize(n - 3);
  return s;
}

void add_pair_metrics(GroupTable* t, const PairSumColumns& s) {
  BigVector<double> p(t->size()), r(t->size()), f(t->size());
  detail::parallel_ranges(t->size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const PairMetrics x = pair_metrics(s.together[i], s.actual[i], s.truth[i]);
      p[i] = x.precision, r[i] = x.recall, f[i] = x.f1;
    }
  });
  t->names.insert(t->names.end(), std::begin(detail::kPairNames), std::end(detail::kPairNames));
  t->columns.push_back(std::move(p));
  t->columns.push_back(std::move(r));
  t->columns.push_back(std::move(f));
}

}  // namespace clusterscore
