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

// Distinct non-zero values with their multiplicities, in increasing order. Cluster sizes
// are mostly small: those are counted in an array, only the rest in a tree (a tree for
// all 3e6 cluster sizes at 1e7 items took ~0.1 s).
std::vector<std::pair<uint64_t, uint64_t>> distinct(const BigVector<uint64_t>& v) {
  constexpr uint64_t kSmall = 4096;
  std::vector<uint64_t> small(kSmall, 0);
  std::map<uint64_t, uint64_t> large;
  for (uint64_t x : v)
    if (x < kSmall)
      ++small[x];
    else
      ++large[x];
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t x = 1; x < kSmall; ++x)
    if (small[x] > 0) out.emplace_back(x, small[x]);
  out.insert(out.end(), large.begin(), large.end());
  return out;
}

}  // namespace

namespace {

// lgamma(k + 1) and lgamma(N − k + 1) for k up to a few million, and log k, tabulated:
// the pair loop below looks them up millions of times.
class LogFactorials {
 public:
  // Every k asked of operator() and log() is at most max_size; of tail(), at most
  // 2·max_size. Larger ones are computed, not looked up.
  LogFactorials(uint64_t n, uint64_t max_size)
      : n_(n), lg_n_(std::lgamma(double(n) + 1)), log_n_(std::log(double(n))) {
    constexpr uint64_t kTable = uint64_t(1) << 22;
    lg_.resize(std::min(max_size, kTable) + 2);
    logs_.resize(lg_.size());
    for (uint64_t k = 0; k < lg_.size(); ++k) lg_[k] = std::lgamma(double(k) + 1);
    for (uint64_t k = 1; k < logs_.size(); ++k) logs_[k] = std::log(double(k));
    tail_.resize(std::min({2 * max_size, n, kTable}) + 1);
    for (uint64_t k = 0; k < tail_.size(); ++k) tail_[k] = std::lgamma(double(n - k) + 1);
  }
  double operator()(uint64_t k) const {  // lgamma(k + 1)
    return k < lg_.size() ? lg_[k] : std::lgamma(double(k) + 1);
  }
  double tail(uint64_t k) const {  // lgamma(N − k + 1)
    return k < tail_.size() ? tail_[k] : std::lgamma(double(n_ - k) + 1);
  }
  double log(uint64_t k) const { return k < logs_.size() ? logs_[k] : std::log(double(k)); }
  double lg_n() const { return lg_n_; }    // lgamma(N + 1)
  double log_n() const { return log_n_; }  // log N

 private:
  uint64_t n_;
  double lg_n_, log_n_;
  std::vector<double> lg_, tail_, logs_;
};

// One row size a and one column size b of a table of N items.
struct SizePair {
  uint64_t a, b;
  double log_a, log_b;
  double gln_ab;  // lgamma(a+1) + lgamma(b+1) + lgamma(N−a+1) + lgamma(N−b+1)
};

// Σ over nij of nij/N · log(N·nij / (a·b)) · P(nij), P the hypergeometric probability of
// nij items shared by clusters of sizes a and b drawn at random from N.
//
// kExact: every P as scikit-learn computes it, exp of a sum of lgamma values in its
// association order, so that its rounding is reproduced (to 1e-16 on small tables).
// Otherwise only P at the mode is, and the others follow from it by the ratio of
// consecutive terms,
//   P(k+1) / P(k) = (a−k)(b−k) / ((k+1)(N−a−b+k+1)),
// a multiply and a divide instead of an exp (3× faster over all). On large N that is no
// less accurate: lgamma(N) near 1e5 already carries ~1e-11 relative error into each exp
// (ours and scipy's differ by as much), while a ratio step adds ~2e-16.
// P is log-concave in nij: walk out from the mode and stop once a term is below 1e-22 of
// the largest, where the rest of the tail cannot move the sum by an ulp (it decays faster
// than geometrically).
template <bool kExact>
double pair_sum(const SizePair& s, uint64_t n, const LogFactorials& lg) {
  const uint64_t a = s.a, b = s.b;
  const double dn = double(n), log_n = lg.log_n(), rest = dn - double(a) - double(b);
  const int64_t start = std::max<int64_t>(1, int64_t(a) + int64_t(b) - int64_t(n));
  const int64_t end = int64_t(std::min(a, b)) + 1;
  const int64_t mode =
      std::clamp<int64_t>(int64_t((double(a) + 1) * (double(b) + 1) / (dn + 2)), start, end - 1);
  auto exact = [&](int64_t nij) {
    const uint64_t k = uint64_t(nij);
    return std::exp(s.gln_ab - (lg(k) + lg.lg_n()) - lg(a - k) - lg(b - k) - lg.tail(a + b - k));
  };
  auto term = [&](int64_t nij, double p) {
    return (double(nij) / dn) * (log_n + lg.log(uint64_t(nij)) - s.log_a - s.log_b) * p;
  };
  const double at_mode = exact(mode);
  detail::KahanSum sum;
  double p = at_mode, peak = at_mode;
  for (int64_t k = mode; k < end; ++k) {
    if (kExact) p = exact(k);
    sum.add(term(k, p));
    peak = std::max(peak, p);
    if (p <= peak * 1e-22) break;
    const double dk = double(k);
    if (!kExact) p *= ((double(a) - dk) * (double(b) - dk)) / ((dk + 1) * (rest + dk + 1));
  }
  p = at_mode;
  for (int64_t k = mode - 1; k >= start; --k) {
    const double dk = double(k);
    p = kExact ? exact(k)
               : p * (((dk + 1) * (rest + dk + 1)) / ((double(a) - dk) * (double(b) - dk)));
    sum.add(term(k, p));
    peak = std::max(peak, p);
    if (p <= peak * 1e-22) break;
  }
  return sum.value();
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
  const LogFactorials lg(n, std::max(rows.back().first, cols.back().first));
  std::vector<double> log_b(cols.size()), gln_b(cols.size());
  for (size_t j = 0; j < cols.size(); ++j) {
    const uint64_t b = cols[j].first;
    log_b[j] = std::log(double(b));
    gln_b[j] = lg.tail(b);
  }
  // Below 2^16 items, lgamma is accurate enough that reproducing scikit-learn's rounding
  // matters (parity to 1e-12 near AMI = 0), and the whole sum takes milliseconds.
  const bool exact = n < (uint64_t(1) << 16);
  detail::KahanSum emi;
  for (const auto& [a, ma] : rows) {
    const double log_a = std::log(double(a)), gln_a = lg(a), gln_na = lg.tail(a);
    for (size_t j = 0; j < cols.size(); ++j) {
      const uint64_t b = cols[j].first;
      // scikit-learn's association order: ((gln_a + gln_b) + gln_Na) + gln_Nb
      const SizePair s{a, b, log_a, log_b[j], gln_a + lg(b) + gln_na + gln_b[j]};
      emi.add(double(ma) * double(cols[j].second) *
              (exact ? pair_sum<true>(s, n, lg) : pair_sum<false>(s, n, lg)));
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
