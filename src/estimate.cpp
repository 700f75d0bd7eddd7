#include "clusterscore/estimate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "clusterscore/clustering.h"
#include "detail/interner.h"
#include "detail/kahan.h"

namespace clusterscore {
namespace {

constexpr double kZ95 = 1.959963984540054;

bool judged(const JudgedSample& s, size_t p) {
  return s.kind[p] == PairKind::kSelf || s.verdict[p] == Verdict::kSame ||
         s.verdict[p] == Verdict::kDifferent;
}
bool same(const JudgedSample& s, size_t p) {
  return s.kind[p] == PairKind::kSelf || s.verdict[p] == Verdict::kSame;
}

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

// A class of judged pairs (within a stratum): the weighted mean of f over its judged
// draws, each draw weighing its class weight c (judged share of the class, inverted), with
// the standard error of this ratio estimator taking the distinct pair as the unit (its
// draws share one verdict, and so do the two orders of a pair: JudgedSample::unit):
// Σ_u (Σ_{p∈u} c·d_p·g_p)² / W² · u/(u − 1), g_p = f_p − mean, u distinct judged units.
// Also what the intervals need when the verdicts all agree: the effective number of
// independent judgements (Kish: W² / Σ_u (Σ_{p∈u} c·d_p)²), the judged share
// of the verdict x the estimand counts, and the mean size of f where x = 1 (f = size·x).
struct Mean {
  std::optional<double> mean, std_error;
  uint64_t draws = 0;
  double n_eff = 0, share = 0, scale = 0;
};

Mean weighted_mean(const JudgedSample& s, const ClassWeights& cw, uint8_t stratum,
                   std::initializer_list<PairKind> kinds, const std::function<double(size_t)>& f,
                   const std::function<double(size_t)>& x_of = {},
                   const std::function<double(size_t)>& size_of = {}) {
  auto in = [&](size_t p) {
    if (s.stratum[p] != stratum || s.kind[p] == PairKind::kSelf || !judged(s, p)) return false;
    for (PairKind k : kinds)
      if (s.kind[p] == k) return true;
    return false;
  };
  detail::KahanSum w, wf, w2, wx, wxs, ws;
  Mean m;
  size_t units = 0;
  // A unit's rows add up before squaring: with JudgedSample::unit, both orders of a pair.
  const auto unit_of = [&](size_t p) { return s.unit.empty() ? p : size_t(s.unit[p]); };
  std::vector<double> of_unit(s.unit.empty() ? 0 : s.kind.size(), 0.0);
  std::vector<double> draws_of_unit(of_unit.size(), 0.0);  // for Kish's effective size
  std::vector<bool> seen(of_unit.size(), false);
  for (size_t p = 0; p < s.kind.size(); ++p) {
    if (!in(p)) continue;
    if (s.unit.empty()) {
      ++units;
    } else if (!seen[unit_of(p)]) {
      seen[unit_of(p)] = true;
      ++units;
    }
    const double d = double(s.draws[p]) * cw(s, p);
    w.add(d);
    wf.add(d * f(p));
    if (s.unit.empty())
      w2.add(d * d);
    else
      draws_of_unit[unit_of(p)] += d;
    const double x = x_of ? x_of(p) : 0.0, size = size_of ? size_of(p) : 0.0;
    wx.add(d * x);
    wxs.add(d * x * size);
    ws.add(d * size);
    m.draws += s.draws[p];
  }
  for (double d : draws_of_unit) w2.add(d * d);
  if (w.value() <= 0) return m;
  const double mean = wf.value() / w.value();
  m.mean = mean;
  m.n_eff = w.value() * w.value() / w2.value();
  m.share = wx.value() / w.value();
  // Where no draw has x = 1, the size f would have: its mean over the class.
  m.scale = wx.value() > 0 ? wxs.value() / wx.value() : ws.value() / w.value();
  if (units < 2) return m;
  detail::KahanSum v;
  for (size_t p = 0; p < s.kind.size(); ++p) {
    if (!in(p)) continue;
    const double t = double(s.draws[p]) * cw(s, p) * (f(p) - mean);
    if (s.unit.empty())
      v.add(t * t);
    else
      of_unit[unit_of(p)] += t;
  }
  for (double t : of_unit) v.add(t * t);
  const double u = double(units);
  m.std_error = std::sqrt(v.value() / (w.value() * w.value()) * u / (u - 1));
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

std::vector<Estimate> estimate(const JudgedSample& s) {
  const size_t n = s.kind.size();
  if (s.stratum.size() != n || s.draws.size() != n || s.U.size() != n || s.B.size() != n ||
      s.E.size() != n || s.verdict.size() != n || (!s.unit.empty() && s.unit.size() != n))
    throw std::invalid_argument("clusterscore: judged sample columns differ in length");
  for (uint32_t u : s.unit)
    if (u >= n) throw std::invalid_argument("clusterscore: a pair's unit is past the pairs");
  const ClassWeights cw(s);
  const SampleTotals& t = s.totals;
  const uint8_t stable_stratum = s.mode == SampleMode::kStratified ? 1 : 0;
  const auto split = {PairKind::kSplit}, merge = {PairKind::kMerge}, stable = {PairKind::kStable};
  auto diff = [&](size_t p) { return same(s, p) ? 0.0 : 1.0; };
  auto eq = [&](size_t p) { return same(s, p) ? 1.0 : 0.0; };
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
  auto label_same = [&](size_t p) { return same(s, p) ? label(p) : 0.0; };
  const double sd = t.split_distance, md = t.merge_distance, aji = t.affected_jaccard_index;
  // The self pairs' share of the stable population: always i ≡ j, never judged.
  const double self = t.self_share();
  std::vector<Estimate> out;
  out.push_back(proportion("good_split_distance", sd, weighted_mean(s, cw, 0, split, diff)));
  out.push_back(proportion("bad_split_distance", sd, weighted_mean(s, cw, 0, split, eq)));
  out.push_back(proportion("good_merge_distance", md, weighted_mean(s, cw, 0, merge, eq)));
  out.push_back(proportion("bad_merge_distance", md, weighted_mean(s, cw, 0, merge, diff)));
  out.push_back(sum("good_distance", out[0], out[2], 0, sd + md));
  out.push_back(sum("bad_distance", out[1], out[3], 0, sd + md));
  const Mean same_stable = weighted_mean(s, cw, stable_stratum, stable, eq);
  const Mean diff_stable = weighted_mean(s, cw, stable_stratum, stable, diff);
  out.push_back(proportion("affected_good_index", aji * (1 - self), same_stable, aji * self));
  out.push_back(proportion("affected_bad_index", aji * (1 - self), diff_stable));
  const auto all = {PairKind::kSplit, PairKind::kMerge, PairKind::kStable};
  // delta_precision: the self pairs' part exactly, the judged pairs' part estimated.
  if (s.mode == SampleMode::kDistanceOnly) {
    out.push_back(Estimate{"delta_precision", {}, {}, {}, {}, 0, false});
  } else if (s.mode == SampleMode::kStratified) {
    const Estimate d =
        mean_of("", t.diff_mass, weighted_mean(s, cw, 0, all, label_same, eq, label), -1, 1);
    const Estimate st =
        mean_of("", t.stable_mass - t.self_mass,
                weighted_mean(s, cw, 1, all, label_same, eq, label), -1, 1, t.self_delta);
    out.push_back(sum("delta_precision", d, st, -1, 1));
  } else {
    out.push_back(mean_of("delta_precision", t.diff_mass + t.stable_mass - t.self_mass,
                          weighted_mean(s, cw, 0, all, label_same, eq, label), -1, 1,
                          t.self_delta));
  }
  auto times = [](auto g, auto h) { return [=](size_t p) { return g(p) * h(p); }; };
  out.push_back(mean_of("good_split_rate", sd,
                        weighted_mean(s, cw, 0, split, times(over_b, diff), diff, over_b), 0, 1));
  out.push_back(mean_of("bad_split_rate", sd,
                        weighted_mean(s, cw, 0, split, times(over_b, eq), eq, over_b), 0, 1));
  out.push_back(mean_of("good_merge_rate", md,
                        weighted_mean(s, cw, 0, merge, times(over_e, eq), eq, over_e), 0, 1));
  out.push_back(mean_of("bad_merge_rate", md,
                        weighted_mean(s, cw, 0, merge, times(over_e, diff), diff, over_e), 0, 1));
  return out;
}

JudgedShares judged_shares(const JudgedSample& s) {
  const ClassWeights cw(s);
  auto eq = [&](size_t p) { return same(s, p) ? 1.0 : 0.0; };
  const uint8_t stable_stratum = s.mode == SampleMode::kStratified ? 1 : 0;
  return {weighted_mean(s, cw, 0, {PairKind::kSplit}, eq).mean,
          weighted_mean(s, cw, 0, {PairKind::kMerge}, eq).mean,
          weighted_mean(s, cw, stable_stratum, {PairKind::kStable}, eq).mean};
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
