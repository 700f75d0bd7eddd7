// Information-theoretic metrics, term by term as scikit-learn computes them (so that
// results agree to the last digits), with compensated sums.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>
#include <vector>

#include "classic_parts.h"
#include "detail/kahan.h"

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
  detail::KahanSum s;
  const double log_total = std::log(total);
  for (double x : p) s.add((x / total) * (std::log(x) - log_total));
  return -s.value();
}

double mutual_info(const CellTable& c, bool weighted, const Margins& m) {
  if (m.rows.size() == 1 || m.cols.size() == 1) return 0.0;
  const double n = m.total, log_n = std::log(n);
  detail::KahanSum s;
  for (size_t k = 0; k < c.size(); ++k) {
    const uint32_t r = c.row[k], q = c.col[k];
    const double v = weighted ? c.weight[k] : double(c.count[k]);
    // The marginal product is exact in integers for counts, as in scikit-learn.
    const double outer = weighted ? c.row_weight[r] * c.col_weight[q]
                                  : double((unsigned __int128)(c.row_count[r]) * c.col_count[q]);
    const double nm = v / n;
    const double log_outer = -std::log(outer) + log_n + log_n;
    double term = nm * (std::log(v) - log_n) + nm * log_outer;
    if (std::fabs(term) < DBL_EPSILON) term = 0.0;
    s.add(term);
  }
  return std::max(s.value(), 0.0);
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

// Distinct values with their multiplicities.
std::vector<std::pair<uint64_t, uint64_t>> distinct(const BigVector<uint64_t>& v) {
  std::map<uint64_t, uint64_t> m;
  for (uint64_t x : v)
    if (x > 0) ++m[x];
  return {m.begin(), m.end()};
}

}  // namespace

double expected_mutual_information(const CellTable& c) {
  const auto rows = distinct(c.row_count), cols = distinct(c.col_count);
  if (rows.size() + cols.size() == 0) return 0.0;
  size_t n_rows = 0, n_cols = 0;
  for (const auto& [a, m] : rows) n_rows += m;
  for (const auto& [b, m] : cols) n_cols += m;
  if (n_rows == 1 || n_cols == 1) return 0.0;
  const uint64_t n = c.total_count;
  const double dn = double(n);
  const uint64_t max_size = std::max(rows.back().first, cols.back().first);
  // lgamma(k + 1) for cluster sizes up to a few million, tabulated; beyond, computed.
  constexpr uint64_t kTable = uint64_t(1) << 22;
  std::vector<double> table(std::min(max_size, kTable) + 2);
  for (uint64_t k = 0; k < table.size(); ++k) table[k] = std::lgamma(double(k) + 1);
  auto lg = [&](uint64_t k) { return k < table.size() ? table[k] : std::lgamma(double(k) + 1); };
  const double lg_n = std::lgamma(dn + 1), log_n = std::log(dn);
  // lgamma(N − a − b + nij + 1) has its argument within 2·max_size of N + 1: tabulate
  // lgamma(N + 1 − k) for k ≤ 2·max_size (the same values, computed once).
  std::vector<double> tail(std::min({2 * max_size, n, kTable}) + 1), logs(table.size());
  for (uint64_t k = 0; k < tail.size(); ++k) tail[k] = std::lgamma(double(n - k) + 1);
  for (uint64_t k = 1; k < logs.size(); ++k) logs[k] = std::log(double(k));
  auto lg_tail = [&](uint64_t k) {
    return k < tail.size() ? tail[k] : std::lgamma(double(n - k) + 1);
  };
  auto log_k = [&](uint64_t k) { return k < logs.size() ? logs[k] : std::log(double(k)); };
  detail::KahanSum emi;
  for (const auto& [a, ma] : rows) {
    const double log_a = std::log(double(a));
    const double gln_a = lg(a), gln_na = std::lgamma(double(n - a) + 1);
    for (const auto& [b, mb] : cols) {
      const double log_b = std::log(double(b));
      // scikit-learn's association order: ((gln_a + gln_b) + gln_Na) + gln_Nb
      const double gln_ab = gln_a + lg(b) + gln_na + std::lgamma(double(n - b) + 1);
      const int64_t start = std::max<int64_t>(1, int64_t(a) + int64_t(b) - int64_t(n));
      const int64_t end = int64_t(std::min(a, b)) + 1;
      auto term = [&](int64_t nij, double* out) {  // returns the hypergeometric factor
        const double gln = gln_ab - (lg(uint64_t(nij)) + lg_n) - lg(a - nij) - lg(b - nij) -
                           lg_tail(a + b - uint64_t(nij));
        const double t3 = std::exp(gln);
        *out = (double(nij) / dn) * (log_n + log_k(uint64_t(nij)) - log_a - log_b) * t3;
        return t3;
      };
      // The hypergeometric terms are log-concave in nij: walk out from the mode and stop
      // once a term is below 1e-22 of the largest, where the rest of the tail cannot move
      // the sum by an ulp (the tail decays faster than geometrically).
      const int64_t mode = std::clamp<int64_t>(
          int64_t((double(a) + 1) * (double(b) + 1) / (dn + 2)), start, end - 1);
      detail::KahanSum s;
      double t, t3, peak = 0;
      for (int64_t nij = mode; nij < end; ++nij) {
        t3 = term(nij, &t);
        s.add(t);
        peak = std::max(peak, t3);
        if (t3 <= peak * 1e-22) break;
      }
      for (int64_t nij = mode - 1; nij >= start; --nij) {
        t3 = term(nij, &t);
        s.add(t);
        peak = std::max(peak, t3);
        if (t3 <= peak * 1e-22) break;
      }
      emi.add(double(ma) * double(mb) * s.value());
    }
  }
  return emi.value();
}

void information_scores(const CellTable& c, const ClassicOptions& o, ClassicScores* s) {
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
    const double emi = expected_mutual_information(c);
    double den = average(h_true, h_pred, o.average) - emi;
    den = den < 0 ? std::min(den, -DBL_EPSILON) : std::max(den, DBL_EPSILON);
    double num = mi - emi;
    num = num < 0 ? std::min(num, -DBL_EPSILON) : std::max(num, DBL_EPSILON);
    s->adjusted_mutual_info_score = num / den;
  }
}

}  // namespace clusterscore
