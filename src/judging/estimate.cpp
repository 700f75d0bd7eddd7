#include "clusterscore/estimate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "detail/kahan.h"
#include "input/clustering.h"
#include "input/interner.h"

namespace clusterscore {
namespace {

constexpr double kZ95 = 1.959963984540054;

bool judged(const JudgedSample& s, size_t p) {
  return s.kind[p] == PairKind::kSelf || s.votes[p] > 0;
}
// Pair p's verdict: the share of its raters who said i ≡ j (1 for a self pair).
double verdict(const JudgedSample& s, size_t p) {
  return s.kind[p] == PairKind::kSelf ? 1.0 : double(s.same[p]) / double(s.votes[p]);
}
// Row p's unit: the row of its unordered pair's first order (itself without `unit`).
size_t unit_of(std::span<const uint32_t> unit, size_t p) {
  return unit.empty() ? p : size_t(unit[p]);
}
size_t unit_of(const JudgedSample& s, size_t p) { return unit_of(s.unit, p); }

// Per (stratum, class): the weight of each judged draw, so that the judged draws of a
// class carry the class's sampled total.
class ClassWeights {
 public:
  explicit ClassWeights(const JudgedSample& s) {
    double all[2][4] = {}, used[2][4] = {};
    for (size_t p = 0; p < s.kind.size(); ++p) {
      all[s.stratum[p]][size_t(s.kind[p])] += double(s.draws[p]);
      if (judged(s, p)) used[s.stratum[p]][size_t(s.kind[p])] += double(s.draws[p]);
    }
    for (int t = 0; t < 2; ++t)
      for (int k = 0; k < 4; ++k) w_[t][k] = used[t][k] > 0 ? all[t][k] / used[t][k] : 0.0;
  }
  double operator()(const JudgedSample& s, size_t p) const {
    return w_[s.stratum[p]][size_t(s.kind[p])];
  }

 private:
  double w_[2][4];
};

// What is averaged over a class: f(p, v), linear in pair p's verdict v; the share it
// counts, x(p, v); and the size f has where x = 1 (f = size·x).
using OfVerdict = std::function<double(size_t, double)>;
using OfPair = std::function<double(size_t)>;

// A class of judged pairs (within a stratum): the weighted mean of f over its judged
// draws, each draw weighing its class weight c (judged share of the class, inverted).
// Its variance, d_p = c·n_p the weight of pair p's draws, W = Σ d_p, N the judged draws:
//   raters measured:  Σ_p c·d_p·(f_p − mean)²/W² · N/(N − 1)  (the draws', with replacement)
//                     + σ̂² Σ_u (S_u² − Q_u)/m_u / W²          (noise shared by a unit's draws)
//                     + Σ_u (1 − 1/c)·(G_u² − H_u) / W²      (a unit's draws unsure together)
//     with S_u = Σ_{p∈u} d_p·a_p, Q_u = Σ_{p∈u} c·d_p·a_p², a_p = f(p, 1) − f(p, 0): for
//     c = a = 1 the Σ_j n_j(n_j − 1)/N² · σ̂²/m_j of the rule; G_u = Σ_{p∈u} d_p·g_p,
//     H_u = Σ_{p∈u} c·d_p·g_p², g_p = f_p − mean. An unsure or missing verdict drops all
//     of a unit's draws at once, where the draws' term counts each draw judged or not on
//     its own: the last term is what a unit drawn n times adds, n(n − 1) pairs of its draws
//     kept or dropped together (0 where every draw of the class was judged, c = 1). Without
//     it the split class covered 92.6% with unsure rates differing by class in a
//     heavy-tailed world;
//   not measured:     Σ_u (Σ_{p∈u} d_p·(f_p − mean))² / W² · N/(N − 1)  (distinct pairs).
// Also what the intervals need when the verdicts all agree: the effective number of
// independent judgements (Kish, on the same units as the variance), the judged share of
// x, and the mean size of f where x = 1.
struct Mean {
  std::optional<double> mean, std_error;
  uint64_t draws = 0;
  double n_eff = 0, share = 0, scale = 0;
};

// A unit's (an unordered pair's) sums over its rows, which are its orders.
struct UnitSums {
  double weight = 0, weight_sq = 0, centred = 0, centred_sq = 0, shared = 0, shared_sq = 0;
  double dropped = 0;  // 1 − 1/c of its class (every row of a unit has one class)
  uint32_t votes = 0;
};

// The units of a class, each with its sums: a slot per unit met, 4 bytes a row to find it.
class Units {
 public:
  explicit Units(size_t rows) : slot_(rows, kNone) {}
  UnitSums& of(size_t unit, uint32_t votes) {
    if (slot_[unit] == kNone) {
      slot_[unit] = uint32_t(sums_.size());
      sums_.push_back(UnitSums{.votes = votes});
    }
    return sums_[slot_[unit]];
  }
  const std::vector<UnitSums>& all() const { return sums_; }

 private:
  std::vector<uint32_t> slot_;
  std::vector<UnitSums> sums_;
};

Mean weighted_mean(const JudgedSample& s, const ClassWeights& cw, const RaterAgreement& raters,
                   uint8_t stratum, std::initializer_list<PairKind> kinds, const OfVerdict& f,
                   const OfVerdict& x_of = {}, const OfPair& size_of = {}) {
  auto in = [&](size_t p) {
    if (s.stratum[p] != stratum || s.kind[p] == PairKind::kSelf || !judged(s, p)) return false;
    for (PairKind k : kinds)
      if (s.kind[p] == k) return true;
    return false;
  };
  detail::KahanSum w, wf, wx, wxs, ws, draw_sq;
  Mean m;
  Units units(s.kind.size());
  for (size_t p = 0; p < s.kind.size(); ++p) {
    if (!in(p)) continue;
    UnitSums& u = units.of(unit_of(s, p), s.votes[p]);
    const double c = cw(s, p), d = double(s.draws[p]) * c, v = verdict(s, p);
    w.add(d);
    wf.add(d * f(p, v));
    draw_sq.add(c * d);
    u.weight += d;
    u.weight_sq += c * d;
    const double x = x_of ? x_of(p, v) : 0.0, size = size_of ? size_of(p) : 0.0;
    wx.add(d * x);
    wxs.add(d * x * size);
    ws.add(d * size);
    m.draws += s.draws[p];
  }
  if (w.value() <= 0) return m;
  const double mean = wf.value() / w.value(), W2 = w.value() * w.value();
  m.mean = mean;
  m.share = wx.value() / w.value();
  // Where no draw has x = 1, the size f would have: its mean over the class.
  m.scale = wx.value() > 0 ? wxs.value() / wx.value() : ws.value() / w.value();
  // Kish's effective size: the draw its unit when the raters are measured, the noise
  // (at most 1/4, a coin's) tying a unit's draws together in proportion; else the unit.
  detail::KahanSum kish;
  if (raters.measured) {
    kish.add(draw_sq.value());
    for (const UnitSums& u : units.all())
      kish.add(4 * raters.noise * (u.weight * u.weight - u.weight_sq) / u.votes);
  } else {
    for (const UnitSums& u : units.all()) kish.add(u.weight * u.weight);
  }
  m.n_eff = W2 / kish.value();
  if (units.all().size() < 2) return m;
  detail::KahanSum draws_v;
  for (size_t p = 0; p < s.kind.size(); ++p) {
    if (!in(p)) continue;
    UnitSums& u = units.of(unit_of(s, p), s.votes[p]);
    const double c = cw(s, p), d = double(s.draws[p]) * c, v = verdict(s, p);
    const double g = f(p, v) - mean, a = f(p, 1.0) - f(p, 0.0);
    draws_v.add(c * d * g * g);
    u.centred += d * g;
    u.centred_sq += c * d * g * g;
    u.dropped = 1 - 1 / c;
    u.shared += d * a;
    u.shared_sq += c * d * a * a;
  }
  const double N = double(m.draws), correction = N / (N - 1);
  detail::KahanSum v;
  if (raters.measured) {
    v.add(draws_v.value() * correction);
    for (const UnitSums& u : units.all()) {
      v.add(raters.noise * (u.shared * u.shared - u.shared_sq) / u.votes);
      v.add(u.dropped * (u.centred * u.centred - u.centred_sq));
    }
  } else {
    for (const UnitSums& u : units.all()) v.add(u.centred * u.centred * correction);
  }
  m.std_error = std::sqrt(std::max(0.0, v.value()) / W2);
  return m;
}

// The Wilson score interval of a proportion p from n independent judgements.
std::pair<double, double> wilson(double p, double n) {
  const double z2 = kZ95 * kZ95, centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = kZ95 / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  // It holds p (exactly, at 0 and 1, where rounding would leave it a hair outside).
  return {std::clamp(centre - half, 0.0, p), std::clamp(centre + half, p, 1.0)};
}

// The effective number of judgements behind a proportion: from its standard error where
// that is informative, else (all verdicts agree) Kish's effective sample size.
double judgements(double p, const Mean& m) {
  if (m.std_error && *m.std_error > 0 && p > 0 && p < 1)
    return p * (1 - p) / (*m.std_error * *m.std_error);
  return m.n_eff;
}

// The standard error an interval of width ci_high − ci_low implies for a normal estimate:
// where the judged draws alone give none (every verdict of a class agrees), the interval
// still has width, and its standard error says so rather than 0.
double implied_std_error(double se, double ci_low, double ci_high) {
  return se > 0 ? se : (ci_high - ci_low) / (2 * kZ95);
}

Estimate exact(const std::string& name, double value) {
  Estimate e;
  e.name = name;
  e.estimate = e.ci_low = e.ci_high = value;
  e.std_error = 0.0;
  e.exact = true;
  return e;
}

// known + multiplier × p, p a class proportion estimated by `m`: the Wilson interval on
// the effective number of judgements, so that it never collapses when verdicts agree, and
// it stays within [known, known + multiplier]. A multiplier of 0 is known exactly.
Estimate proportion(const std::string& name, double multiplier, const Mean& m, double known = 0) {
  if (multiplier == 0) return exact(name, known);
  Estimate e;
  e.name = name;
  e.pairs = m.draws;
  if (!m.mean) return e;
  const double p = *m.mean;
  e.estimate = known + multiplier * p;
  e.std_error = m.std_error ? multiplier * *m.std_error : multiplier * std::sqrt(p * (1 - p));
  const auto [lo, hi] = wilson(p, judgements(p, m));
  e.ci_low = known + multiplier * lo;
  e.ci_high = known + multiplier * hi;
  e.std_error = implied_std_error(*e.std_error, *e.ci_low, *e.ci_high);
  return e;
}

// known + multiplier × mean of f = size·x (a rate, or delta_precision's judged part): the
// normal interval joined with what the Wilson interval of the share of x gives that mean
// (f at its mean size), so that it neither collapses when the verdicts agree nor trusts
// the normal approximation on few judgements; within [lo, hi].
Estimate mean_of(const std::string& name, double multiplier, const Mean& m, double lo, double hi,
                 double known = 0) {
  if (multiplier == 0) return exact(name, known);
  Estimate e;
  e.name = name;
  e.pairs = m.draws;
  if (!m.mean) return e;
  e.estimate = std::clamp(known + multiplier * *m.mean, lo, hi);
  const double se = m.std_error ? multiplier * *m.std_error : 0.0;
  e.std_error = se;
  const auto [wl, wh] = wilson(m.share, m.n_eff);
  const double a = known + multiplier * m.scale * wl, b = known + multiplier * m.scale * wh;
  e.ci_low = std::max(lo, std::min({*e.estimate - kZ95 * se, a, b}));
  e.ci_high = std::min(hi, std::max({*e.estimate + kZ95 * se, a, b}));
  e.std_error = implied_std_error(se, *e.ci_low, *e.ci_high);
  return e;
}

// a + b, independent parts: each side of the interval adds in quadrature, within [lo, hi].
Estimate sum(const std::string& name, const Estimate& a, const Estimate& b, double lo, double hi) {
  Estimate e;
  e.name = name;
  e.pairs = a.pairs + b.pairs;
  if (!a.estimate || !b.estimate) return e;
  e.exact = a.exact && b.exact;
  // Two parts each within their range can sum past the whole's ([−1, 1] for
  // delta_precision's strata): the estimate is kept in it, and inside its interval.
  e.estimate = std::clamp(*a.estimate + *b.estimate, lo, hi);
  e.std_error = std::hypot(a.std_error.value_or(0), b.std_error.value_or(0));
  const double down = std::hypot(*a.estimate - *a.ci_low, *b.estimate - *b.ci_low);
  const double up = std::hypot(*a.ci_high - *a.estimate, *b.ci_high - *b.estimate);
  e.ci_low = std::clamp(*e.estimate - down, lo, *e.estimate);
  e.ci_high = std::clamp(*e.estimate + up, *e.estimate, hi);
  return e;
}

}  // namespace

namespace {

void check(const JudgedSample& s) {
  const size_t n = s.kind.size();
  if (s.stratum.size() != n || s.draws.size() != n || s.U.size() != n || s.B.size() != n ||
      s.E.size() != n || s.same.size() != n || s.votes.size() != n ||
      (!s.unit.empty() && s.unit.size() != n))
    throw std::invalid_argument("clusterscore: judged sample columns differ in length");
  for (size_t p = 0; p < n; ++p) {
    if (s.stratum[p] > 1) throw std::invalid_argument("clusterscore: stratum must be 0 or 1");
    if (s.same[p] > s.votes[p])
      throw std::invalid_argument("clusterscore: a pair has more same verdicts than verdicts");
    if (s.unit.empty()) continue;
    const size_t k = s.unit[p];
    if (k >= n) throw std::invalid_argument("clusterscore: a pair's unit is past the pairs");
    if (s.same[k] != s.same[p] || s.votes[k] != s.votes[p])
      throw std::invalid_argument("clusterscore: the orders of a pair have different verdicts");
  }
}

}  // namespace

RaterAgreement rater_agreement(const JudgedSample& s) {
  check(s);
  RaterAgreement r;
  detail::KahanSum within, freedom;
  double differ[3] = {0, 0, 0}, couples[3] = {0, 0, 0};
  for (size_t p = 0; p < s.kind.size(); ++p) {
    if (unit_of(s, p) != p || s.kind[p] == PairKind::kSelf || s.votes[p] < 2) continue;
    const double same = s.same[p], m = s.votes[p];
    within.add(same - same * same / m);  // Σ_k (v_k − v̄)² of 0/1 verdicts
    freedom.add(m - 1);
    const size_t c = size_t(s.kind[p]);
    ++r.replicated[c];
    differ[c] += same * (m - same);
    couples[c] += m * (m - 1) / 2;
  }
  r.measured = freedom.value() > 0;
  r.noise = r.measured ? within.value() / freedom.value() : 0.0;
  for (size_t c = 0; c < 3; ++c)
    if (couples[c] > 0) r.disagreement[c] = differ[c] / couples[c];
  return r;
}

std::vector<Estimate> estimate(const JudgedSample& s) {
  const RaterAgreement raters = rater_agreement(s);
  const ClassWeights cw(s);
  const SampleTotals& t = s.totals;
  const uint8_t stable_stratum = s.mode == SampleMode::kStratified ? 1 : 0;
  const auto split = {PairKind::kSplit}, merge = {PairKind::kMerge}, stable = {PairKind::kStable};
  auto mean = [&](uint8_t stratum, std::initializer_list<PairKind> kinds, const OfVerdict& f,
                  const OfVerdict& x_of = {}, const OfPair& size_of = {}) {
    return weighted_mean(s, cw, raters, stratum, kinds, f, x_of, size_of);
  };
  auto diff = [](size_t, double v) { return 1 - v; };
  auto eq = [](size_t, double v) { return v; };
  auto over_b = [&](size_t p) { return s.U[p] / s.B[p]; };
  auto over_e = [&](size_t p) { return s.U[p] / s.E[p]; };
  // l_ij: U/E for merge pairs, −U/B for split pairs, U/E − U/B for stable ones.
  auto label = [&](size_t p) {
    switch (s.kind[p]) {
      case PairKind::kMerge:
        return over_e(p);
      case PairKind::kSplit:
        return -over_b(p);
      default:
        return over_e(p) - over_b(p);
    }
  };
  auto label_same = [&](size_t p, double v) { return label(p) * v; };
  const double sd = t.split_distance, md = t.merge_distance, aji = t.affected_jaccard_index;
  // The self pairs' share of the stable population: always i ≡ j, never judged.
  const double self = t.self_share();
  std::vector<Estimate> out;
  out.push_back(proportion("good_split_distance", sd, mean(0, split, diff)));
  out.push_back(proportion("bad_split_distance", sd, mean(0, split, eq)));
  out.push_back(proportion("good_merge_distance", md, mean(0, merge, eq)));
  out.push_back(proportion("bad_merge_distance", md, mean(0, merge, diff)));
  out.push_back(sum("good_distance", out[0], out[2], 0, sd + md));
  out.push_back(sum("bad_distance", out[1], out[3], 0, sd + md));
  out.push_back(proportion("affected_good_index", aji * (1 - self),
                           mean(stable_stratum, stable, eq), aji * self));
  out.push_back(
      proportion("affected_bad_index", aji * (1 - self), mean(stable_stratum, stable, diff)));
  const auto all = {PairKind::kSplit, PairKind::kMerge, PairKind::kStable};
  // Marks `e` unreliable where the judged draws `m` of `of` fall short of `needed`.
  auto mark = [](Estimate& e, const Mean& m, uint64_t needed, const char* of) {
    if (!e.exact && e.estimate && m.draws < needed && e.draws_needed < needed) {
      e.draws_needed = needed;
      e.needed_of = of;
    }
  };
  // delta_precision: the self pairs' part exactly, the judged pairs' part estimated.
  const uint64_t* need_dp = s.needed.delta_precision;
  if (s.mode == SampleMode::kDistanceOnly) {
    out.push_back(Estimate{"delta_precision", {}, {}, {}, {}, 0, false, 0, {}});
  } else if (s.mode == SampleMode::kStratified) {
    const Mean of_diff = mean(0, all, label_same, eq, label);
    const Mean of_stable = mean(1, all, label_same, eq, label);
    const Estimate d = mean_of("", t.diff_mass, of_diff, -1, 1);
    const Estimate st = mean_of("", t.stable_mass - t.self_mass, of_stable, -1, 1, t.self_delta);
    out.push_back(sum("delta_precision", d, st, -1, 1));
    mark(out.back(), of_diff, need_dp[0], "diff pairs");
    mark(out.back(), of_stable, need_dp[1], "stable pairs");
  } else {
    const Mean m = mean(0, all, label_same, eq, label);
    out.push_back(mean_of("delta_precision", t.diff_mass + t.stable_mass - t.self_mass, m, -1, 1,
                          t.self_delta));
    mark(out.back(), m, need_dp[0], "pairs");
  }
  auto times = [](auto g, auto h) { return [=](size_t p, double v) { return g(p) * h(p, v); }; };
  auto rate = [&](const char* name, double multiplier, const Mean& m, uint64_t needed,
                  const char* of) {
    out.push_back(mean_of(name, multiplier, m, 0, 1));
    mark(out.back(), m, needed, of);
  };
  const uint64_t ns = s.needed.split_rate, nm = s.needed.merge_rate;
  rate("good_split_rate", sd, mean(0, split, times(over_b, diff), diff, over_b), ns, "split pairs");
  rate("bad_split_rate", sd, mean(0, split, times(over_b, eq), eq, over_b), ns, "split pairs");
  rate("good_merge_rate", md, mean(0, merge, times(over_e, eq), eq, over_e), nm, "merge pairs");
  rate("bad_merge_rate", md, mean(0, merge, times(over_e, diff), diff, over_e), nm, "merge pairs");
  return out;
}

JudgedShares judged_shares(const JudgedSample& s) {
  const RaterAgreement raters = rater_agreement(s);
  const ClassWeights cw(s);
  auto eq = [](size_t, double v) { return v; };
  const uint8_t stable_stratum = s.mode == SampleMode::kStratified ? 1 : 0;
  return {weighted_mean(s, cw, raters, 0, {PairKind::kSplit}, eq).mean,
          weighted_mean(s, cw, raters, 0, {PairKind::kMerge}, eq).mean,
          weighted_mean(s, cw, raters, stable_stratum, {PairKind::kStable}, eq).mean};
}

std::vector<uint32_t> replicated_pairs(std::span<const PairKind> kind,
                                       std::span<const uint64_t> draws,
                                       std::span<const uint32_t> unit, uint64_t count) {
  const size_t n = kind.size();
  if (draws.size() != n || (!unit.empty() && unit.size() != n))
    throw std::invalid_argument("clusterscore: replicated_pairs: arrays differ in length");
  std::vector<uint64_t> of_unit(n, 0);
  for (size_t p = 0; p < n; ++p) {
    const size_t k = unit_of(unit, p);
    if (k >= n) throw std::invalid_argument("clusterscore: a pair's unit is past the pairs");
    of_unit[k] += draws[p];
  }
  std::vector<uint32_t> rows;
  for (size_t p = 0; p < n; ++p)
    if (kind[p] != PairKind::kSelf && unit_of(unit, p) == p) rows.push_back(uint32_t(p));
  const size_t keep = size_t(std::min<uint64_t>(count, rows.size()));
  std::partial_sort(rows.begin(), rows.begin() + keep, rows.end(), [&](uint32_t a, uint32_t b) {
    return of_unit[a] != of_unit[b] ? of_unit[a] > of_unit[b] : a < b;
  });
  rows.resize(keep);
  return rows;
}

std::vector<uint32_t> match_pairs(const IdColumn& si, const IdColumn& sj, const IdColumn& vi,
                                  const IdColumn& vj) {
  if (si.size != sj.size || vi.size != vj.size)
    throw std::invalid_argument("clusterscore: pair id columns differ in length");
  detail::Interner ids(si.is_string(), 2 * si.size + 16), pairs(false, si.size + 16);
  for (size_t p = 0; p < si.size; ++p) {
    const uint64_t key = (uint64_t(ids.insert(si, p).first) << 32) | ids.insert(sj, p).first;
    pairs.insert_key(key);  // sample pairs are distinct: pair p gets index p
  }
  std::vector<uint32_t> out(vi.size, kNone);
  for (size_t r = 0; r < vi.size; ++r) {
    const uint32_t a = ids.find(vi, r), b = ids.find(vj, r);
    if (a == kNone || b == kNone) continue;
    out[r] = pairs.find_key((uint64_t(a) << 32) | b);
  }
  return out;
}

Contributions contributions(const IdColumn& value_of_pair, const JudgedSample& s) {
  check(s);
  const size_t n = s.kind.size();
  if (value_of_pair.size != n) throw std::invalid_argument("clusterscore: attribute length");
  double draws[2] = {0, 0};
  for (size_t p = 0; p < n; ++p) draws[s.stratum[p]] += double(s.draws[p]);
  const double mass0 =
      s.mode != SampleMode::kPlain ? s.totals.diff_mass : s.totals.diff_mass + s.totals.stable_mass;
  const double per_draw = draws[0] > 0 ? mass0 / draws[0] : 0.0;
  Contributions c;
  detail::Interner values(value_of_pair.is_string(), 64);
  constexpr uint32_t kNull = 0xFFFFFFFEu;
  detail::Interner groups(false, 64);
  std::vector<detail::KahanSum> jd, sd, md;
  for (size_t p = 0; p < n; ++p) {
    if (s.stratum[p] != 0 || (s.kind[p] != PairKind::kSplit && s.kind[p] != PairKind::kMerge))
      continue;
    const uint32_t v = value_of_pair.is_null(p) ? kNull : values.insert(value_of_pair, p).first;
    auto [g, inserted] = groups.insert_key(v);
    if (inserted) {
      c.first_pair.push_back(uint32_t(p));
      c.draws.push_back(0);
      jd.emplace_back();
      sd.emplace_back();
      md.emplace_back();
    }
    const double share = double(s.draws[p]) * per_draw;
    c.draws[g] += s.draws[p];
    jd[g].add(share);
    (s.kind[p] == PairKind::kSplit ? sd : md)[g].add(share);
  }
  for (size_t g = 0; g < jd.size(); ++g) {
    c.jaccard_distance.push_back(jd[g].value());
    c.split_distance.push_back(sd[g].value());
    c.merge_distance.push_back(md[g].value());
  }
  return c;
}

}  // namespace clusterscore
