// The pair metrics' sums (docs/metrics.md, "pair metrics"): ratios of design-weighted sums, not
// means, so they are summed here beside aggregate()'s means rather than through them.
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/stretches.h"
#include "metrics/pair_terms.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

namespace clusterscore {
namespace {

using detail::KahanSum;

struct Acc {
  KahanSum together, actual, truth, weight;

  // Adds the sums of a later stretch of units.
  void add(const Acc& o) {
    together.add(o.together), actual.add(o.actual), truth.add(o.truth), weight.add(o.weight);
  }
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

namespace {

// Few groups: each stretch of units (detail/stretches.h) sums into accumulators of its
// own, added up in stretch order. Beyond kFewGroupsBytes of accumulators, that copy per
// stretch would cost more than it saves.
constexpr size_t kFewGroupsBytes = size_t(1) << 20;

// What each cell's items pair with, gathered once: items then read one record each,
// where they would read four arrays at random.
struct CellTerms {
  double tp, actual, truth, design;
};

// The sums of one group's units, unit by unit in unit order, whichever thread sums them:
// `add(u, lo, hi, acc)` adds unit u to acc[g - lo] if its group g is in [lo, hi).
template <class AddUnit>
PairSums sum_by_group(size_t n_units, size_t n_groups, const AddUnit& add) {
  PairSums s;
  for (auto* v : {&s.together, &s.actual, &s.truth, &s.weight}) v->resize(n_groups);
  const auto put = [&](const Acc& a, size_t g) {
    s.together[g] = a.together.value();
    s.actual[g] = a.actual.value();
    s.truth[g] = a.truth.value();
    s.weight[g] = a.weight.value();
  };
  const uint32_t all = uint32_t(n_groups);
  if (n_groups * sizeof(Acc) <= kFewGroupsBytes) {
    const detail::UnitStretches st(n_units);
    std::vector<std::vector<Acc>> part(st.count);
    detail::parallel_for(st.count, [&](size_t, size_t p) {
      part[p].assign(n_groups, Acc{});
      for (size_t u = st.begin(p); u < st.end(p); ++u) add(u, 0, all, part[p].data());
    });
    for (size_t p = 1; p < st.count; ++p)
      for (size_t g = 0; g < n_groups; ++g) part[0][g].add(part[p][g]);
    for (size_t g = 0; g < n_groups; ++g) put(part[0][g], g);
    return s;
  }
  // Many groups: each worker owns a range of groups and reads every unit, summing those of
  // its own groups. A group's units are summed in unit order by one worker however the
  // groups are split, so the bits do not depend on the number of threads.
  detail::parallel_parts(n_groups, detail::workers_for(n_groups),
                         [&](size_t, size_t lo_, size_t hi_) {
                           const uint32_t lo = uint32_t(lo_), hi = uint32_t(hi_);
                           // Big vectors: per-cluster groups number millions, and fresh pages cost
                           // more than reuse.
                           BigVector<Acc> acc(hi - lo);
                           for (size_t u = 0; u < n_units; ++u) add(u, lo, hi, acc.data());
                           for (uint32_t g = lo; g < hi; ++g) put(acc[g - lo], g);
                         });
  return s;
}

}  // namespace

PairSums pair_sums(const CellTable& cells, const ActualMarginals& m, std::span<const double> design,
                   const Units& units, size_t n_groups) {
  const bool by_cell = units.cell.empty();
  if (by_cell && cells.weight_sq.size() != cells.size())
    throw std::logic_error("clusterscore: pair sums over cells need their squared weights");
  // Over cells the squares are already summed unscaled (pair_sums_by_cell() says when that
  // is safe: the caller's to check once, not every call), so the scale is 1 there.
  const double scale = by_cell ? 1.0 : pair_scale(cells);
  const auto design_of = [&](size_t k) { return design.empty() ? 1.0 : design[cells.row[k]]; };
  const auto in = [](uint32_t g, uint32_t lo, uint32_t hi) { return g >= lo && g < hi; };
  const size_t n = units.group.size();
  if (by_cell)
    // Cells in order: only their actual cluster's weight is read at random.
    return sum_by_group(n, n_groups, [&](size_t k, uint32_t lo, uint32_t hi, Acc* acc) {
      detail::poll_every(k);
      const size_t ahead = k + detail::kPrefetch;
      if (ahead < n && in(units.group[ahead], lo, hi))
        detail::prefetch(&m.col_weight[cells.col[ahead]]);
      const uint32_t g = units.group[k];
      if (!in(g, lo, hi)) return;
      const double w = units.weight[k], d = design_of(k);
      const detail::PairTerms x =
          detail::cell_pair_terms(w, cells.weight_sq[k], cells.weight[k],
                                  m.col_weight[cells.col[k]], cells.row_weight[cells.row[k]], 1.0);
      Acc& a = acc[g - lo];
      a.together.add(d * x.together);
      a.actual.add(d * x.actual);
      a.truth.add(d * x.truth);
      a.weight.add(w);
    });
  BigVector<CellTerms> cell(cells.size());
  detail::parallel_ranges(cells.size(), [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      detail::poll_every(k);
      if (k + detail::kPrefetch < cells.size())
        detail::prefetch(&m.col_weight[cells.col[k + detail::kPrefetch]]);
      cell[k] = {cells.weight[k], m.col_weight[cells.col[k]], cells.row_weight[cells.row[k]],
                 design_of(k)};
    }
  });
  return sum_by_group(n, n_groups, [&](size_t u, uint32_t lo, uint32_t hi, Acc* acc) {
    detail::poll_every(u);
    const size_t ahead = u + detail::kPrefetch;
    if (ahead < n && in(units.group[ahead], lo, hi) && units.cell[ahead] != kNone)
      detail::prefetch(&cell[units.cell[ahead]]);
    const uint32_t g = units.group[u], k = units.cell[u];
    if (!in(g, lo, hi) || k == kNone) return;
    const CellTerms& c = cell[k];
    const double w = units.weight[u];
    const detail::PairTerms x = units.weight_sq.empty()
                                    ? detail::item_pair_terms(w, c.tp, c.actual, c.truth, scale)
                                    : detail::unit_pair_terms(w, units.weight_sq[u], units.count[u],
                                                              c.tp, c.actual, c.truth, scale);
    Acc& a = acc[g - lo];
    a.together.add(c.design * x.together);
    a.actual.add(c.design * x.actual);
    a.truth.add(c.design * x.truth);
    a.weight.add(w);
  });
}

PairMetrics pair_metrics(double together, double actual, double truth) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  // 2t / (a + b) is the harmonic mean of t/a and t/b, and 0 (not 0/0) when t = 0.
  return {actual > 0 ? together / actual : kNaN, truth > 0 ? together / truth : kNaN,
          actual > 0 && truth > 0 ? 2 * together / (actual + truth) : kNaN};
}

void add_pair_metrics(GroupTable* t, const PairSums& s) {
  BigVector<double> p(t->size()), r(t->size()), f(t->size());
  detail::parallel_ranges(t->size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint32_t g = t->group[i];
      const PairMetrics x = pair_metrics(s.together[g], s.actual[g], s.truth[g]);
      p[i] = x.precision, r[i] = x.recall, f[i] = x.f1;
    }
  });
  t->names.insert(t->names.end(), std::begin(detail::kPairNames), std::end(detail::kPairNames));
  t->columns.push_back(std::move(p));
  t->columns.push_back(std::move(r));
  t->columns.push_back(std::move(f));
}

}  // namespace clusterscore
