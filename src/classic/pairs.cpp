// Pair-counting metrics: exact 128-bit counts, 256-bit products for the adjusted index.
#include <stdexcept>

#include "classic/parts.h"
#include "detail/kahan.h"
#include "detail/wide.h"

namespace clusterscore {

using detail::u128;

PairConfusion pair_confusion(const CellTable& c) {
  // scikit-learn's formulas: C11 = Σn_ij² − n, C01 = Σb_j² − Σn_ij², C10 = Σa_i² − Σn_ij².
  u128 cells_sq = 0, rows_sq = 0, cols_sq = 0;
  for (uint64_t n : c.count) cells_sq += u128(n) * n;
  for (uint64_t n : c.row_count) rows_sq += u128(n) * n;
  for (uint64_t n : c.col_count) cols_sq += u128(n) * n;
  const u128 n = c.total_count;
  PairConfusion p;
  p.tp = cells_sq - n;
  p.fp = cols_sq - cells_sq;
  p.fn = rows_sq - cells_sq;
  p.tn = n * n - p.fp - p.fn - cells_sq;
  return p;
}

WeightedPairConfusion weighted_pair_confusion(const CellTable& c) {
  if (c.weight_sq.size() != c.size())
    throw std::logic_error("clusterscore: weighted pair counts need the cells' squared weights");
  // A pair i ≠ j counts w_i·w_j: in one cell, Σ_{i≠j} w_i w_j = W² − Σw².
  detail::KahanSum cells_sq, rows_sq, cols_sq, self;
  for (size_t k = 0; k < c.size(); ++k) {
    cells_sq.add(c.weight[k] * c.weight[k]);
    self.add(c.weight_sq[k]);
  }
  for (double w : c.row_weight) rows_sq.add(w * w);
  for (double w : c.col_weight) cols_sq.add(w * w);
  WeightedPairConfusion p;
  p.tp = cells_sq.value() - self.value();
  p.fp = cols_sq.value() - cells_sq.value();
  p.fn = rows_sq.value() - cells_sq.value();
  p.tn = c.total_weight * c.total_weight - self.value() - p.tp - p.fp - p.fn;
  return p;
}

double adjusted_rand(const PairConfusion& p) {
  if (p.fn == 0 && p.fp == 0) return 1.0;
  using namespace detail;
  // 2·(tp·tn − fn·fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn)), exactly until the division.
  const U256 x = mul(p.tp, p.tn), y = mul(p.fn, p.fp);
  const bool negative = less(x, y);
  const double num = to_double(negative ? sub(y, x) : sub(x, y));
  const double den = to_double(add(mul(p.tp + p.fn, p.fn + p.tn), mul(p.tp + p.fp, p.fp + p.tn)));
  return (negative ? -2.0 : 2.0) * num / den;
}

void pair_scores(const CellTable& c, bool weighted, ClassicScores* s) {
  double tp, fp, fn, tn;
  if (weighted) {
    const WeightedPairConfusion& p = s->weighted_pairs = weighted_pair_confusion(c);
    tp = p.tp, fp = p.fp, fn = p.fn, tn = p.tn;
  } else {
    const PairConfusion& p = s->pairs = pair_confusion(c);
    tp = detail::to_double(p.tp), fp = detail::to_double(p.fp);
    fn = detail::to_double(p.fn), tn = detail::to_double(p.tn);
    s->adjusted_rand_score = adjusted_rand(p);
    // scikit-learn: numerator == denominator or denominator == 0 → 1.0
    const u128 agree = p.tp + p.tn, all = p.tp + p.tn + p.fp + p.fn;
    s->rand_score =
        (agree == all || all == 0) ? 1.0 : detail::to_double(agree) / detail::to_double(all);
  }
  if (weighted) {
    const double all = tp + tn + fp + fn;
    s->rand_score = (fp == 0 && fn == 0) || all == 0 ? 1.0 : (tp + tn) / all;
  }
  // tk, pk, qk of scikit-learn's fowlkes_mallows_score are tp, tp + fp, tp + fn here.
  s->fowlkes_mallows_score =
      tp != 0.0 ? std::sqrt(tp / (tp + fp)) * std::sqrt(tp / (tp + fn)) : 0.0;
  if (tp + fp > 0) s->pair_precision_score = tp / (tp + fp);
  if (tp + fn > 0) s->pair_recall_score = tp / (tp + fn);
  if (tp + fp + fn > 0) s->pair_jaccard_score = tp / (tp + fp + fn);
}

}  // namespace clusterscore
