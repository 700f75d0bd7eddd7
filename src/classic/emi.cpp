// scikit-learn's expected mutual information (the chance term of AMI): for each pair of
// a row size a and a column size b, the hypergeometric expectation of
// nij/N · log(N·nij / (a·b)), summed over the pairs with their multiplicities.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "classic/classic_cells.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/lanes.h"
#include "detail/parallel.h"
#include "detail/progress.h"
#include "detail/simd.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore {
namespace {

using detail::LaneMask4;
using detail::Lanes4;

// Distinct non-zero values with their multiplicities, in increasing order. Cluster sizes
// are mostly small: those are counted in an array, only the rest in a tree (a tree for
// millions of sizes is slow).
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
  // log k for k < table_size(), at table()[k] (k ≥ 1).
  const double* table() const { return logs_.data(); }
  size_t table_size() const { return logs_.size(); }

 private:
  uint64_t n_;
  double lg_n_, log_n_;
  std::vector<double> lg_, tail_, logs_;
};

// One row size a and one column size b of a table of N items, and the range of nij:
// [start, end), walked out from the mode in both directions.
struct SizePair {
  uint64_t a, b;
  double log_a, log_b;
  double gln_ab;  // lgamma(a+1) + lgamma(b+1) + lgamma(N−a+1) + lgamma(N−b+1)
  int64_t start, end, mode;

  SizePair(uint64_t a_, uint64_t b_, double log_a_, double log_b_, double gln_ab_, uint64_t n)
      : a(a_), b(b_), log_a(log_a_), log_b(log_b_), gln_ab(gln_ab_) {
    start = std::max<int64_t>(1, int64_t(a) + int64_t(b) - int64_t(n));
    end = int64_t(std::min(a, b)) + 1;
    mode = std::clamp<int64_t>(int64_t((double(a) + 1) * (double(b) + 1) / (double(n) + 2)), start,
                               end - 1);
  }
};

// The hypergeometric probability of nij items shared by clusters of sizes a and b drawn
// at random from N, as scikit-learn computes it: exp of lgamma values, in its order.
double probability(const SizePair& s, const LogFactorials& lg, uint64_t k) {
  return std::exp(s.gln_ab - (lg(k) + lg.lg_n()) - lg(s.a - k) - lg(s.b - k) -
                  lg.tail(s.a + s.b - k));
}

// P is log-concave in nij: the walks go out from the mode and stop once a term is below
// 1e-22 of the largest, where the rest of the tail cannot move the sum by an ulp (it
// decays faster than geometrically).
constexpr double kNegligible = 1e-22;

// Σ over nij of nij/N · log(N·nij / (a·b)) · P(nij), every term as scikit-learn computes
// it, so that its rounding is reproduced (to 1e-16 on small tables).
double pair_sum_exact(const SizePair& s, uint64_t n, const LogFactorials& lg) {
  const double dn = double(n), log_n = lg.log_n();
  auto term = [&](int64_t nij) {
    const double p = probability(s, lg, uint64_t(nij));
    return std::pair{(double(nij) / dn) * (log_n + lg.log(uint64_t(nij)) - s.log_a - s.log_b) * p,
                     p};
  };
  detail::KahanSum sum;
  double peak = 0;
  for (const int step : {+1, -1})  // up from the mode, then down from below it
    for (int64_t k = step > 0 ? s.mode : s.mode - 1; k >= s.start && k < s.end; k += step) {
      const auto [t, p] = term(k);
      sum.add(t);
      peak = std::max(peak, p);
      if (p <= peak * kNegligible) break;
    }
  return sum.value();
}

[[gnu::always_inline]] inline Lanes4 splat(double x) { return Lanes4{x, x, x, x}; }

// log k for the four lanes' k = k0, k0 + step, ...: one load from the table where all
// four are in it (reversed for step −1), else lane by lane (0 outside [start, end)).
[[gnu::always_inline]] inline Lanes4 log4(const SizePair& s, const LogFactorials& lg, int64_t k0,
                                          int step) {
  const int64_t k3 = k0 + 3 * step, lo = std::min(k0, k3), hi = std::max(k0, k3);
  if (lo >= s.start && hi < s.end && uint64_t(hi) < lg.table_size()) {
    const Lanes4 v = detail::load4(lg.table() + lo);
    return step > 0 ? v : __builtin_shuffle(v, LaneMask4{3, 2, 1, 0});
  }
  Lanes4 v;
  for (int j = 0; j < 4; ++j) {
    const int64_t k = k0 + j * step;
    v[j] = k >= s.start && k < s.end ? lg.log(uint64_t(k)) : 0.0;
  }
  return v;
}

// One direction of add_pair_by_ratios(): nij = from, from + step, ... while inside
// [s.start, s.end), P(from) being p_before times the first lane's ratio (1 when
// `first_is_given`: the upward walk starts at the mode, whose P is given).
//   up (step +1):   P(k) = P(k−1) · (a−k+1)(b−k+1) / (k (N−a−b+k))
//   down (step −1): P(k) = P(k+1) · (k+1)(N−a−b+k+1) / ((a−k)(b−k))
// Four terms at a time: ratios, their running products (in two steps, off the chain
// from one block to the next) and terms in four lanes, summed in four compensated lanes.
[[gnu::always_inline]] inline void walk(const SizePair& s, double n, const LogFactorials& lg,
                                        int64_t from, int step, double p_before,
                                        bool first_is_given, double scale, double* peak,
                                        Lanes4* sum, Lanes4* comp) {
  const double a = double(s.a), b = double(s.b), rest = n - a - b;
  const Lanes4 one = splat(1), zero = splat(0), log_ab = splat(lg.log_n() - s.log_a - s.log_b);
  const Lanes4 lo = splat(double(s.start)), hi = splat(double(s.end));
  const double d = double(step);
  Lanes4 k = {double(from), double(from) + d, double(from) + 2 * d, double(from) + 3 * d};
  for (int64_t k0 = from;; k0 += 4 * step, k += splat(4 * d)) {
    const LaneMask4 in = (k >= lo) & (k < hi);
    Lanes4 r = step > 0 ? ((splat(a + 1) - k) * (splat(b + 1) - k)) / (k * (splat(rest) + k))
                        : ((k + one) * (splat(rest + 1) + k)) / ((splat(a) - k) * (splat(b) - k));
    if (k0 == from && first_is_given) r[0] = 1.0;
    r *= __builtin_shuffle(r, one, LaneMask4{4, 0, 1, 2});  // r0, r0r1, r1r2, r2r3
    r *= __builtin_shuffle(r, one, LaneMask4{4, 5, 0, 1});  // r0, r0r1, r0r1r2, r0..r3
    const Lanes4 p = splat(p_before) * r;
    const Lanes4 term = in ? splat(scale) * k * (log_ab + log4(s, lg, k0, step)) * p : zero;
    detail::neumaier_add4(*sum, *comp, term);
    const Lanes4 seen = in ? p : zero;
    *peak = std::max({*peak, seen[0], seen[1], seen[2], seen[3]});
    if (!in[3] || p[3] <= *peak * kNegligible) return;
    p_before = p[3];
  }
}

// pair_sum_exact() times `scale`, added to the four compensated lanes (sum, comp), with
// only P at the mode computed as scikit-learn does; the others follow from it by the
// ratio of consecutive terms, a multiply and a divide instead of an exp. On large N that
// is no less accurate: lgamma(N) near 1e5 already carries ~1e-11 relative error into
// each exp (ours and scipy's differ by as much), while a ratio step adds ~2e-16.
void add_pair_by_ratios(const SizePair& s, uint64_t n, const LogFactorials& lg, double scale,
                        Lanes4* sum, Lanes4* comp) {
  const double at_mode = probability(s, lg, uint64_t(s.mode));
  double peak = at_mode;
  walk(s, double(n), lg, s.mode, +1, at_mode, true, scale, &peak, sum, comp);
  if (s.mode > s.start)
    walk(s, double(n), lg, s.mode - 1, -1, at_mode, false, scale, &peak, sum, comp);
}

}  // namespace

// Prepared once: the distinct sizes, the tables, the columns' logs. Blocks of row sizes
// are then summed apart (any thread may run any block) and added up in block order.
struct ExpectedMutualInfo::Tables {
  Tables(std::vector<std::pair<uint64_t, uint64_t>> r, std::vector<std::pair<uint64_t, uint64_t>> c,
         uint64_t total)
      : rows(std::move(r)),
        cols(std::move(c)),
        n(total),
        lg(n, std::max(rows.back().first, cols.back().first)),
        log_b(cols.size()),
        gln_b(cols.size()) {
    for (size_t j = 0; j < cols.size(); ++j) {
      log_b[j] = std::log(double(cols[j].first));
      gln_b[j] = lg.tail(cols[j].first);
    }
  }
  std::vector<std::pair<uint64_t, uint64_t>> rows, cols;
  uint64_t n;
  LogFactorials lg;
  std::vector<double> log_b, gln_b;
};

// Row sizes per block: the last rows (the largest sizes, the longest walks) cost the most,
// so blocks are small enough for threads to share them out.
constexpr size_t kRowsPerBlock = 8;

ExpectedMutualInfo::ExpectedMutualInfo(const CellTable& c) {
  auto rows = distinct(c.row_count), cols = distinct(c.col_count);
  if (rows.size() + cols.size() == 0) return;
  size_t n_rows = 0, n_cols = 0;
  for (const auto& [a, m] : rows) n_rows += m;
  for (const auto& [b, m] : cols) n_cols += m;
  if (n_rows == 1 || n_cols == 1) return;
  t_ = std::make_shared<const Tables>(std::move(rows), std::move(cols), c.total_count);
  // Below 2^16 items, lgamma is accurate enough that reproducing scikit-learn's rounding
  // matters (parity to 1e-12 near AMI = 0), and the whole sum takes milliseconds: one
  // block, its terms in scikit-learn's order.
  exact_ = t_->n < (uint64_t(1) << 16);
  const size_t blocks = exact_ ? 1 : (t_->rows.size() + kRowsPerBlock - 1) / kRowsPerBlock;
  block_.assign(blocks, {});
}

CLUSTERSCORE_SIMD_CLONES
void ExpectedMutualInfo::run(size_t block) {
  const Tables& t = *t_;
  const size_t begin = exact_ ? 0 : block * kRowsPerBlock;
  const size_t end = exact_ ? t.rows.size() : std::min(t.rows.size(), begin + kRowsPerBlock);
  detail::KahanSum emi;
  Lanes4 sum = {0, 0, 0, 0}, comp = sum;  // off the exact path: every pair's terms
  for (size_t r = begin; r < end; ++r) {
    const auto& [a, ma] = t.rows[r];
    detail::poll_interrupt();
    detail::report_every(r, t.rows.size());
    const double log_a = std::log(double(a)), gln_a = t.lg(a), gln_na = t.lg.tail(a);
    for (size_t j = 0; j < t.cols.size(); ++j) {
      const uint64_t b = t.cols[j].first;
      // scikit-learn's association order: ((gln_a + gln_b) + gln_Na) + gln_Nb
      const SizePair s(a, b, log_a, t.log_b[j], gln_a + t.lg(b) + gln_na + t.gln_b[j], t.n);
      const double pairs = double(ma) * double(t.cols[j].second);
      if (exact_)
        emi.add(pairs * pair_sum_exact(s, t.n, t.lg));
      else
        add_pair_by_ratios(s, t.n, t.lg, pairs / double(t.n), &sum, &comp);
    }
  }
  for (int j = 0; j < 4; ++j) emi.add(sum[j]);
  for (int j = 0; j < 4; ++j) emi.add(comp[j]);
  block_[block] = emi;
}

double ExpectedMutualInfo::value() const {
  detail::KahanSum total;
  for (const detail::KahanSum& b : block_) total.add(b);
  return total.value();
}

double expected_mutual_information(const CellTable& c) {
  ExpectedMutualInfo emi(c);
  detail::parallel_for(emi.blocks(), [&](size_t, size_t b) { emi.run(b); });
  return emi.value();
}

}  // namespace clusterscore
