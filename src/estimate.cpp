#include "clusterscore/estimate.h"

#include <cmath>
#include <functional>
#include <stdexcept>

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

struct Mean {
  std::optional<double> mean, std_error;
  uint64_t draws = 0;
};

// Weighted mean of f over the judged draws of stratum `stratum` whose kind is in `kinds`,
// each draw weighing its class weight c = 1/q (q: the judged share of its class), and the
// standard error of this ratio estimator. Draws are multinomial, but a verdict (or its
// absence) belongs to a distinct pair, so the variance mixes the per-draw and the
// per-pair sums: Σ_p c²·g_p²·(q·d_p + (1 − q)·d_p²) / W², g_p = f_p − m, with the
// n/(n−1) correction. With every pair judged (q = 1) it is the per-draw formula.
Mean weighted_mean(const JudgedSample& s, const ClassWeights& cw, uint8_t stratum,
                   std::initializer_list<PairKind> kinds, const std::function<double(size_t)>& f) {
  auto in = [&](size_t p) {
    if (s.stratum[p] != stratum || !judged(s, p)) return false;
    for (PairKind k : kinds)
      if (s.kind[p] == k) return true;
    return false;
  };
  detail::KahanSum w, wf;
  Mean m;
  for (size_t p = 0; p < s.kind.size(); ++p) {
    if (!in(p)) continue;
    const double d = double(s.draws[p]) * cw(s, p);
    w.add(d);
    wf.add(d * f(p));
    m.draws += s.draws[p];
  }
  if (w.value() <= 0) return m;
  const double mean = wf.value() / w.value();
  m.mean = mean;
  if (m.draws < 2) return m;
  detail::KahanSum v;
  for (size_t p = 0; p < s.kind.size(); ++p) {
    if (!in(p)) continue;
    const double c = cw(s, p), d = double(s.draws[p]), g = f(p) - mean;
    v.add(c * g * g * d + c * (c - 1) * g * g * d * d);  // c²g²(q·d + (1 − q)·d²), q = 1/c
  }
  const double n = double(m.draws);
  m.std_error = std::sqrt(v.value() / (w.value() * w.value()) * n / (n - 1));
  return m;
}

Estimate scaled(const std::string& name, double multiplier, const Mean& m) {
  Estimate e;
  e.name = name;
  e.pairs = m.draws;
  if (!m.mean) return e;
  e.estimate = multiplier * *m.mean;
  if (m.std_error) {
    e.std_error = multiplier * *m.std_error;
    e.ci_low = *e.estimate - kZ95 * *e.std_error;
    e.ci_high = *e.estimate + kZ95 * *e.std_error;
  }
  return e;
}

// a + b with standard errors in quadrature (independent parts).
Estimate sum(const std::string& name, const Estimate& a, const Estimate& b) {
  Estimate e;
  e.name = name;
  e.pairs = a.pairs + b.pairs;
  if (!a.estimate || !b.estimate) return e;
  e.estimate = *a.estimate + *b.estimate;
  if (a.std_error && b.std_error) {
    e.std_error = std::hypot(*a.std_error, *b.std_error);
    e.ci_low = *e.estimate - kZ95 * *e.std_error;
    e.ci_high = *e.estimate + kZ95 * *e.std_error;
  }
  return e;
}

}  // namespace

std::vector<Estimate> estimate(const JudgedSample& s) {
  const size_t n = s.kind.size();
  if (s.stratum.size() != n || s.draws.size() != n || s.U.size() != n || s.B.size() != n ||
      s.E.size() != n || s.verdict.size() != n)
    throw std::invalid_argument("clusterscore: judged sample columns differ in length");
  const ClassWeights cw(s);
  const SampleTotals& t = s.totals;
  const uint8_t stable_stratum = s.stratified ? 1 : 0;
  const auto split = {PairKind::kSplit}, merge = {PairKind::kMerge};
  const auto stable = {PairKind::kStable, PairKind::kSelf};
  auto diff = [&](size_t p) { return same(s, p) ? 0.0 : 1.0; };
  auto eq = [&](size_t p) { return same(s, p) ? 1.0 : 0.0; };
  auto over_b = [&](size_t p) { return s.U[p] / s.B[p]; };
  auto over_e = [&](size_t p) { return s.U[p] / s.E[p]; };
  // l_ij · 1[i ≡ j]: U/E for merge pairs, −U/B for split pairs, U/E − U/B for stable ones.
  auto label = [&](size_t p) {
    if (!same(s, p)) return 0.0;
    switch (s.kind[p]) {
      case PairKind::kMerge:
        return over_e(p);
      case PairKind::kSplit:
        return -over_b(p);
      default:
        return over_e(p) - over_b(p);
    }
  };
  const double sd = t.split_distance, md = t.merge_distance, aji = t.affected_jaccard_index;
  std::vector<Estimate> out;
  out.push_back(scaled("good_split_distance", sd, weighted_mean(s, cw, 0, split, diff)));
  out.push_back(scaled("bad_split_distance", sd, weighted_mean(s, cw, 0, split, eq)));
  out.push_back(scaled("good_merge_distance", md, weighted_mean(s, cw, 0, merge, eq)));
  out.push_back(scaled("bad_merge_distance", md, weighted_mean(s, cw, 0, merge, diff)));
  out.push_back(sum("good_distance", out[0], out[2]));
  out.push_back(sum("bad_distance", out[1], out[3]));
  out.push_back(
      scaled("affected_good_index", aji, weighted_mean(s, cw, stable_stratum, stable, eq)));
  out.push_back(
      scaled("affected_bad_index", aji, weighted_mean(s, cw, stable_stratum, stable, diff)));
  const auto all = {PairKind::kSplit, PairKind::kMerge, PairKind::kStable, PairKind::kSelf};
  if (s.distance_only) {
    out.push_back(Estimate{"delta_precision", {}, {}, {}, {}, 0});
  } else if (s.stratified) {
    out.push_back(sum("delta_precision",
                      scaled("", t.diff_mass, weighted_mean(s, cw, 0, all, label)),
                      scaled("", t.stable_mass, weighted_mean(s, cw, 1, all, label))));
  } else {
    out.push_back(scaled("delta_precision", t.diff_mass + t.stable_mass,
                         weighted_mean(s, cw, 0, all, label)));
  }
  auto times = [](auto g, auto h) { return [=](size_t p) { return g(p) * h(p); }; };
  out.push_back(scaled("good_split_rate", sd, weighted_mean(s, cw, 0, split, times(over_b, diff))));
  out.push_back(scaled("bad_split_rate", sd, weighted_mean(s, cw, 0, split, times(over_b, eq))));
  out.push_back(scaled("good_merge_rate", md, weighted_mean(s, cw, 0, merge, times(over_e, eq))));
  out.push_back(scaled("bad_merge_rate", md, weighted_mean(s, cw, 0, merge, times(over_e, diff))));
  return out;
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
  const double mass0 = s.stratified || s.distance_only ? s.totals.diff_mass
                                                       : s.totals.diff_mass + s.totals.stable_mass;
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
