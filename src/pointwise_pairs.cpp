// The pair metrics' sums (docs/metrics.md, "pair metrics"): ratios of design-weighted sums, not
// means, so they are summed here beside aggregate()'s means rather than through them.
#include <cmath>
#include <iterator>
#include <limits>

#include "clusterscore/pointwise.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/pair_terms.h"
#include "detail/pointwise_row.h"
#include "detail/prefetch.h"

namespace clusterscore {
namespace {

using detail::KahanSum;

struct Acc {
  KahanSum together, actual, truth, weight;
};

}  // namespace

double pair_scale(const CellTable& cells) {
  const double mean = cells.total_weight / double(cells.total_count);
  return std::isfinite(mean) && mean > 0 ? std::ldexp(1.0, -std::ilogb(mean)) : 1.0;
}

bool pair_sums_by_cell(const CellTable& cells, const ActualMarginals& m) {
  const double lo = std::ldexp(1.0, -250), hi = std::ldexp(1.0, 250);
  if (cells.weight_sq.size() != cells.size() || !(m.total <= hi)) return false;
  for (double w : cells.weight)
    if (!(w >= lo && w <= hi)) return false;
  return true;
}

PairSums pair_sums(const CellTable& cells, const ActualMarginals& m, std::span<const double> design,
                   const Units& units, size_t n_groups) {
  const bool by_cell = units.cell.empty();
  if (by_cell && cells.weight_sq.size() != cells.size())
    throw std::logic_error("clusterscore: pair sums over cells need their squared weights");
  // Over cells the squares are already summed unscaled (pair_sums_by_cell() says when that
  // is safe: the caller's to check once, not every call), so the scale is 1 there.
  const double scale = by_cell ? 1.0 : pair_scale(cells);
  const auto design_of = [&](size_t k) { return design.empty() ? 1.0 : design[cells.row[k]]; };
  // Big vectors: per-cluster groups number millions, and fresh pages cost more than reuse.
  BigVector<Acc> acc(n_groups);
  if (by_cell) {
    // Cells in order: only their actual cluster's weight is read at random.
    for (size_t k = 0; k < units.group.size(); ++k) {
      detail::poll_every(k);
      if (k + detail::kPrefetch < cells.size())
        detail::prefetch(&m.col_weight[cells.col[k + detail::kPrefetch]]);
      const uint32_t g = units.group[k];
      if (g == kNone) continue;
      const double w = units.weight[k], d = design_of(k);
      const detail::PairTerms x =
          detail::cell_pair_terms(w, cells.weight_sq[k], cells.weight[k],
                                  m.col_weight[cells.col[k]], cells.row_weight[cells.row[k]], 1.0);
      Acc& a = acc[g];
      a.together.add(d * x.together);
      a.actual.add(d * x.actual);
      a.truth.add(d * x.truth);
      a.weight.add(w);
    }
  } else {
    // What each cell's items pair with, gathered once: items then read one record each,
    // where they would read four arrays at random.
    struct Cell {
      double tp, actual, truth, design;
    };
    BigVector<Cell> cell(cells.size());
    for (size_t k = 0; k < cells.size(); ++k) {
      detail::poll_every(k);
      if (k + detail::kPrefetch < cells.size())
        detail::prefetch(&m.col_weight[cells.col[k + detail::kPrefetch]]);
      cell[k] = {cells.weight[k], m.col_weight[cells.col[k]], cells.row_weight[cells.row[k]],
                 design_of(k)};
    }
    for (size_t u = 0; u < units.group.size(); ++u) {
      detail::poll_every(u);
      if (u + detail::kPrefetch < units.group.size()) {
        const uint32_t ahead = units.cell[u + detail::kPrefetch];
        if (ahead != kNone) detail::prefetch(&cell[ahead]);
      }
      const uint32_t g = units.group[u], k = units.cell[u];
      if (g == kNone || k == kNone) continue;
      const Cell& c = cell[k];
      const double w = units.weight[u];
      const detail::PairTerms x =
          units.weight_sq.empty() ? detail::item_pair_terms(w, c.tp, c.actual, c.truth, scale)
                                  : detail::unit_pair_terms(w, units.weight_sq[u], units.count[u],
                                                            c.tp, c.actual, c.truth, scale);
      Acc& a = acc[g];
      a.together.add(c.design * x.together);
      a.actual.add(c.design * x.actual);
      a.truth.add(c.design * x.truth);
      a.weight.add(w);
    }
  }
  PairSums s;
  for (auto* v : {&s.together, &s.actual, &s.truth, &s.weight}) v->reserve(n_groups);
  for (const Acc& a : acc) {
    s.together.push_back(a.together.value());
    s.actual.push_back(a.actual.value());
    s.truth.push_back(a.truth.value());
    s.weight.push_back(a.weight.value());
  }
  return s;
}

PairMetrics pair_metrics(double together, double actual, double truth) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  // 2t / (a + b) is the harmonic mean of t/a and t/b, and 0 (not 0/0) when t = 0.
  return {actual > 0 ? together / actual : kNaN, truth > 0 ? together / truth : kNaN,
          actual > 0 && truth > 0 ? 2 * together / (actual + truth) : kNaN};
}

void add_pair_metrics(GroupTable* t, const PairSums& s) {
  BigVector<double> p(t->size()), r(t->size()), f(t->size());
  for (size_t i = 0; i < t->size(); ++i) {
    const uint32_t g = t->group[i];
    const PairMetrics x = pair_metrics(s.together[g], s.actual[g], s.truth[g]);
    p[i] = x.precision, r[i] = x.recall, f[i] = x.f1;
  }
  t->names.insert(t->names.end(), std::begin(detail::kPairNames), std::end(detail::kPairNames));
  t->columns.push_back(std::move(p));
  t->columns.push_back(std::move(r));
  t->columns.push_back(std::move(f));
}

}  // namespace clusterscore
