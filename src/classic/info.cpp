// Information-theoretic metrics, term by term as scikit-learn computes them (so that
// results agree to the last digits), with compensated sums.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "classic/parts.h"
#include "detail/stretches.h"

namespace clusterscore {
namespace {

struct Margins {
  std::vector<double> rows, cols;  // non-zero marginals (counts or weights)
  std::vector<double> cell;        // cell masses
  double total = 0;
};

Margins margins(const CellTable& c, bool weighted) {
  Margins m;
  for (size_t r = 0; r < c.n_rows; ++r)
    if (c.row_count[r] > 0) m.rows.push_back(weighted ? c.row_weight[r] : double(c.row_count[r]));
  for (size_t k = 0; k < c.n_cols; ++k)
    if (c.col_count[k] > 0) m.cols.push_back(weighted ? c.col_weight[k] : double(c.col_count[k]));
  m.total = weighted ? c.total_weight : double(c.total_count);
  return m;
}

// −Σ p log p, as scikit-learn's _entropy: 1.0 for no items, 0.0 for one cluster.
double entropy(const std::vector<double>& p, double total) {
  if (p.empty()) return 1.0;
  if (p.size() == 1) return 0.0;
  const double log_total = std::log(total);
  return -detail::stretch_sum(
      p.size(), [&](size_t i) { return (p[i] / total) * (std::log(p[i]) - log_total); });
}

double mutual_info(const CellTable& c, bool weighted, const Margins& m) {
  if (m.rows.size() == 1 || m.cols.size() == 1) return 0.0;
  const double n = m.total, log_n = std::log(n);
  const double s = detail::stretch_sum(c.size(), [&](size_t k) {
    const uint32_t r = c.row[k], q = c.col[k];
    const double v = weighted ? c.weight[k] : double(c.count[k]);
    // The marginal product is exact in integers for counts, as in scikit-learn.
    const double outer = weighted ? c.row_weight[r] * c.col_weight[q]
                                  : double((unsigned __int128)(c.row_count[r]) * c.col_count[q]);
    const double nm = v / n;
    const double log_outer = -std::log(outer) + log_n + log_n;
    double term = nm * (std::log(v) - log_n) + nm * log_outer;
    if (std::fabs(term) < DBL_EPSILON) term = 0.0;
    return term;
  });
  return std::max(s, 0.0);
}

double average(double u, double v, Average a) {
  switch (a) {
    case Average::kMin:
      return std::min(u, v);
    case Average::kGeometric:
      return std::sqrt(u * v);
    case Average::kMax:
      return std::max(u, v);
    case Average::kArithmetic:
      break;
  }
  return (u + v) / 2;
}

}  // namespace

void information_scores(const CellTable& c, const ClassicOptions& o, double emi, ClassicScores* s) {
  const Margins m = margins(c, o.weighted);
  const double mi = mutual_info(c, o.weighted, m);
  const double h_true = entropy(m.rows, m.total), h_pred = entropy(m.cols, m.total);
  s->mutual_info_score = mi;
  const size_t k = m.rows.size(), q = m.cols.size();
  const bool trivial = (k == 1 && q == 1) || (k == 0 && q == 0);
  s->normalized_mutual_info_score =
      trivial ? 1.0 : (mi == 0 ? 0.0 : mi / average(h_true, h_pred, o.average));
  if (m.total == 0) {
    s->homogeneity_score = s->completeness_score = s->v_measure_score = 1.0;
  } else {
    const double h = h_true != 0 ? mi / h_true : 1.0, cm = h_pred != 0 ? mi / h_pred : 1.0;
    s->homogeneity_score = h;
    s->completeness_score = cm;
    s->v_measure_score = h + cm == 0.0 ? 0.0 : (1 + o.beta) * h * cm / (o.beta * h + cm);
  }
  if (o.weighted || !o.adjusted_mutual_info) return;
  if (trivial) {
    s->adjusted_mutual_info_score = 1.0;
  } else if (k == 1 || q == 1) {
    s->adjusted_mutual_info_score = 0.0;
  } else {
    double den = average(h_true, h_pred, o.average) - emi;
    // 0/0: the same partition twice is perfect agreement (1, as scikit-learn's clamped
    // quotient gives); otherwise (e.g. one labeling all singletons with the "min" average:
    // MI, its expectation and the normaliser are all one entropy) there is no value, where
    // scikit-learn returns whatever the rounding left (2.0, 0.857...).
    const double tiny = 1e-10 * std::max({h_true, h_pred, 1e-300});
    if (std::fabs(den) <= tiny && std::fabs(mi - emi) <= tiny) {
      if (c.size() == k && c.size() == q) s->adjusted_mutual_info_score = 1.0;
      return;
    }
    den = den < 0 ? std::min(den, -DBL_EPSILON) : std::max(den, DBL_EPSILON);
    double num = mi - emi;
    num = num < 0 ? std::min(num, -DBL_EPSILON) : std::max(num, DBL_EPSILON);
    s->adjusted_mutual_info_score = num / den;
  }
}

}  // namespace clusterscore
