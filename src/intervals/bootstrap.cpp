#include "intervals/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/lanes.h"
#include "detail/normal.h"
#include "detail/parallel.h"
#include "detail/progress.h"
#include "detail/random.h"
#include "detail/simd.h"
#include "intervals/jackknife.h"
#include "metrics/pair_terms.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore {
namespace {

using detail::KahanSum;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_options(const BootstrapOptions& o) {
  if (o.resamples == 0) throw std::invalid_argument("clusterscore: resamples must be > 0");
  if (!(o.confidence > 0 && o.confidence < 1))
    throw std::invalid_argument("clusterscore: confidence must be in (0, 1)");
}

// Per truth cluster √(1 − π_c), what a resample's draws of it count: cluster c drawn n
// times counts 1 + a_c·(n − 1) times (bootstrap.h, ClusterSums::inclusion); empty for none
// known (all a_c = 1: the draws as they are).
std::vector<double> draw_factors(const std::vector<double>& inclusion, size_t clusters) {
  if (!inclusion.empty() && inclusion.size() != clusters)
    throw std::invalid_argument("clusterscore: one inclusion probability per truth cluster");
  std::vector<double> a;
  a.reserve(inclusion.size());
  for (double p : inclusion) {
    if (!(p >= 0 && p <= 1))
      throw std::invalid_argument("clusterscore: inclusion probabilities must be in [0, 1]");
    a.push_back(std::sqrt(1 - p));
  }
  return a;
}

void check_rank(const std::vector<uint32_t>& rank, size_t clusters) {
  if (rank.empty()) return;
  std::vector<bool> seen(clusters, false);
  bool ok = rank.size() == clusters;
  for (size_t c = 0; ok && c < rank.size(); ++c) {
    ok = rank[c] < clusters && !seen[rank[c]];
    if (ok) seen[rank[c]] = true;
  }
  if (!ok)
    throw std::invalid_argument(
        "clusterscore: cluster_rank must be a permutation of the truth's clusters");
}

[[noreturn]] void mismatch() {
  throw std::invalid_argument(
      "clusterscore: runs to compare must share the truth, its design weights, the grouping"
      " and the metrics");
}

// The estimates of one group from its sums: `means` weighted means (sum / weight), then, for
// pointwise metrics (whose means start with precision and recall, detail::PointwiseColumn),
// f1_of_means and the three pair metrics from the three sums after the means.
struct Layout {
  static constexpr size_t p = detail::PointwiseColumn::kPrecision;
  static constexpr size_t r = detail::PointwiseColumn::kRecall;
  size_t means = 0;
  bool pointwise = false;

  Layout(size_t n_means, bool is_pointwise) : means(n_means), pointwise(is_pointwise) {}
  size_t sums() const { return means + (pointwise ? 3 : 0); }
  size_t width() const { return means + (pointwise ? 4 : 0); }
  std::vector<std::string> names(std::vector<std::string> out) const {
    if (!pointwise) return out;
    out.push_back(detail::kF1OfMeans);
    out.insert(out.end(), std::begin(detail::kPairNames), std::end(detail::kPairNames));
    return out;
  }
  // One group's estimates (`row`, width() of them) from compensated sums (sum, comp) and
  // weight w > 0.
  void finish(const double* sum, const double* comp, double w, double* row) const {
    for (size_t m = 0; m < means; ++m) row[m] = (sum[m] + comp[m]) / w;
    if (!pointwise) return;
    const size_t q = means;
    row[q] = f1_of_means(row[p], row[r]);
    const PairMetrics x =
        pair_metrics(sum[q] + comp[q], sum[q + 1] + comp[q + 1], sum[q + 2] + comp[q + 2]);
    row[q + 1] = x.precision, row[q + 2] = x.recall, row[q + 3] = x.f1;
  }
};

// Per run, the groups' weights and compensated sums, and the estimates made from them:
// out[(run * groups + g) * width + m], NaN where a group has no weight.
class GroupSums {
 public:
  GroupSums(const Layout& layout, size_t groups)
      : layout_(layout),
        groups_(groups),
        w_(groups),
        sum_(groups * layout.sums()),
        comp_(groups * layout.sums()) {}
  void clear() {
    std::fill(w_.begin(), w_.end(), KahanSum{});
    std::fill(sum_.begin(), sum_.end(), 0.0);
    std::fill(comp_.begin(), comp_.end(), 0.0);
  }
  // Adds k × (weight, values) to group g: four at a time, each lane the scalar
  // neumaier_add() (the same bits).
  [[gnu::always_inline]] void add(size_t g, double k, double weight, const double* values) {
    w_[g].add(k * weight);
    const size_t n = layout_.sums();
    detail::neumaier_add_scaled(sum_.data() + g * n, comp_.data() + g * n, k, values, n);
  }
  void finish(size_t run, std::vector<double>* out) const {
    const size_t n = layout_.sums(), width = layout_.width();
    for (size_t g = 0; g < groups_; ++g) {
      const double wg = w_[g].value();
      if (wg > 0)
        layout_.finish(sum_.data() + g * n, comp_.data() + g * n, wg,
                       out->data() + (run * groups_ + g) * width);
    }
  }

 private:
  const Layout& layout_;
  size_t groups_;
  std::vector<KahanSum> w_;
  std::vector<double> sum_, comp_;
};

// The estimates of every run: out[(run * groups + g) * width + m], each run's sums made by
// add(run, &sums).
template <class Add>
void estimates_of_runs(const Layout& layout, size_t groups, size_t runs, std::vector<double>* out,
                       Add add) {
  out->assign(runs * groups * layout.width(), kNaN);
  GroupSums sums(layout, groups);
  for (size_t run = 0; run < runs; ++run) {
    sums.clear();
    add(run, &sums);
    sums.finish(run, out);
  }
}

// Estimates from fixed sums per truth cluster (ClusterSums), truth cluster c counted m[c]
// times its design weight (m null: once).
class FixedSums {
 public:
  explicit FixedSums(const std::vector<ClusterSums>& runs)
      : runs_(runs), layout_(runs.at(0).names.size(), runs[0].pairs) {
    for (const ClusterSums& r : runs)
      if (r.n_clusters != runs[0].n_clusters || r.n_groups != runs[0].n_groups ||
          r.names != runs[0].names || r.pairs != runs[0].pairs || r.design != runs[0].design)
        mismatch();
    // The first run's: the population's items, which scale uniform and inverse_size
    // weights to probabilities, include each run's own items outside the truth.
    a_ = draw_factors(runs[0].inclusion, clusters());
  }
  // Its variance is corrected cluster by cluster, in the multiplicities.
  const std::vector<double>& factors() const { return a_; }
  double share() const { return 0; }
  const Layout& layout() const { return layout_; }
  size_t groups() const { return runs_[0].n_groups; }
  size_t clusters() const { return runs_[0].n_clusters; }
  size_t runs() const { return runs_.size(); }
  std::vector<std::string> base_names() const { return runs_[0].names; }
  // Its estimates are sums over single truth clusters: the bootstrap's spread as it is.
  static constexpr bool kPairTerms = false;
  template <class F>
  void for_each_cluster(F f) const {
    for (const ClusterSums& r : runs_)
      for (uint32_t c : r.cluster) f(c);
  }
  // f(truth cluster, group) for each entry of run `run`.
  template <class F>
  void for_each_entry(size_t run, F f) const {
    const ClusterSums& r = runs_[run];
    for (size_t e = 0; e < r.size(); ++e) f(r.cluster[e], r.group[e]);
  }

  void compute(const double* m, std::vector<double>* out) const {
    estimates_of_runs(layout_, groups(), runs_.size(), out,
                      [&](size_t run, GroupSums* sums) { add_entries(runs_[run], m, sums); });
  }

 private:
  CLUSTERSCORE_SIMD_CLONES
  void add_entries(const ClusterSums& r, const double* m, GroupSums* sums) const {
    const size_t width = r.width();
    for (size_t e = 0; e < r.size(); ++e) {
      const uint32_t c = r.cluster[e];
      double k = m ? m[c] : 1.0;
      if (k == 0) continue;
      if (!r.design.empty()) k *= r.design[c];
      sums->add(r.group[e], k, r.weight[e], r.sums.data() + e * width);
    }
  }

  const std::vector<ClusterSums>& runs_;
  Layout layout_;
  std::vector<double> a_;  // draw_factors()
};

const std::vector<std::string> kPointwise(std::begin(detail::kPointwiseNames),
                                          std::end(detail::kPointwiseNames));

// Estimates recomputed from the cells (CellSums) of the truth clusters drawn: see
// bootstrap.h.
class RecomputedCells {
 public:
  explicit RecomputedCells(const std::vector<CellSums>& runs)
      : runs_(runs), layout_(kPointwise.size(), true) {
    for (const CellSums& r : runs)
      if (r.n_clusters != runs.at(0).n_clusters || r.n_groups != runs[0].n_groups) mismatch();
    if (!(runs[0].sampled_share >= 0 && runs[0].sampled_share <= 1))
      throw std::invalid_argument("clusterscore: sampled_share must be in [0, 1]");
  }
  // Its draws count as drawn: pairs of clusters need the jackknife's correction, which the
  // share of the population drawn then scales (detail::pair_corrected). The first run's,
  // as FixedSums' inclusion probabilities.
  const std::vector<double>& factors() const { return none_; }
  double share() const { return runs_[0].sampled_share; }
  const Layout& layout() const { return layout_; }
  size_t groups() const { return runs_[0].n_groups; }
  size_t clusters() const { return runs_[0].n_clusters; }
  size_t runs() const { return runs_.size(); }
  std::vector<std::string> base_names() const { return kPointwise; }
  // Its estimates depend on pairs of truth clusters drawn together: its spread is brought
  // to the design's with the jackknife's (detail::pair_corrected).
  static constexpr bool kPairTerms = true;
  template <class F>
  void for_each_cluster(F f) const {
    for (const CellSums& r : runs_)
      for (uint32_t k : r.cell) f(r.row[k]);
  }
  template <class F>
  void for_each_entry(size_t run, F f) const {
    const CellSums& r = runs_[run];
    for (size_t e = 0; e < r.size(); ++e) f(r.row[r.cell[e]], r.group[e]);
  }

  void compute(const double* counted, std::vector<double>* out) const {
    estimates_of_runs(layout_, groups(), runs_.size(), out,
                      [&](size_t run, GroupSums* sums) { add_run(runs_[run], counted, sums); });
  }

 private:
  void add_run(const CellSums& r, const double* counted, GroupSums* sums) const {
    const auto times = [&](uint32_t row) { return counted ? counted[row] : 1.0; };
    // The actual clusters' and T's weights over the clusters drawn.
    std::vector<KahanSum> col(r.n_cols);
    for (size_t k = 0; k < r.row.size(); ++k) col[r.col[k]].add(times(r.row[k]) * r.cell_weight[k]);
    KahanSum total;
    for (size_t t = 0; t < r.row_weight.size(); ++t)
      total.add(times(uint32_t(t)) * r.row_weight[t]);
    const double s = r.scale, all = total.value();
    double m[detail::kPointwiseMetrics], v[detail::kPointwiseMetrics + 3];
    double tp = 0, wr = 0, actual = 0;
    uint32_t last = kNone;
    for (size_t e = 0; e < r.size(); ++e) {
      const uint32_t k = r.cell[e], row = r.row[k];
      const double times_row = times(row);
      if (times_row == 0) continue;
      if (k != last) {  // a cell's entries come together (cell_sums): its metrics once
        last = k;
        // The item's actual cluster holds one copy of its own truth cluster's items.
        tp = r.cell_weight[k], wr = r.row_weight[row];
        actual = col[r.col[k]].value() - (times_row - 1) * tp;
        detail::pointwise_row({tp, wr, actual, wr - tp, actual - tp}, all, m);
      }
      // Sums as FixedSums holds them: weight × value for the means, then the pair terms.
      const double w = r.weight[e];
      for (int x = 0; x < detail::kPointwiseMetrics; ++x) v[x] = m[x] * w;
      const detail::PairTerms t = detail::cell_pair_terms(w * s, r.weight_sq[e], tp, actual, wr, s);
      v[8] = t.together;
      v[9] = t.actual;
      v[10] = t.truth;
      sums->add(r.group[e], times_row, w, v);
    }
  }

  const std::vector<CellSums>& runs_;
  Layout layout_;
  std::vector<double> none_;
};

// How many times each cluster counts in a resample: `clusters` draws with replacement, in the
// order of `rank` (empty: the clusters' own order), counted per cluster (n), and a cluster
// drawn n times counting 1 + a_c·(n − 1) times (draw_factors(); empty: n).
void draw(detail::Random& rng, size_t clusters, const std::vector<uint32_t>& rank,
          const std::vector<double>& a, std::vector<uint32_t>* drawn, std::vector<double>* m) {
  drawn->assign(clusters, 0);
  for (size_t d = 0; d < clusters; ++d)
    ++(*drawn)[size_t((static_cast<unsigned __int128>(rng.next()) * clusters) >> 64)];
  m->resize(clusters);
  for (size_t c = 0; c < clusters; ++c) {
    const double n = double((*drawn)[rank.empty() ? c : rank[c]]);
    (*m)[c] = a.empty() ? n : 1 + a[c] * (n - 1);
  }
}

// The q-quantile of sorted values, interpolating linearly between order statistics.
double quantile(const std::vector<double>& sorted, double q) {
  const double h = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

// The spread of one statistic from its resampled values (NaN where undefined) around
// its full-sample value `estimate`: the percentile interval moved so that the resamples'
// median sits on the estimate. Resampled scores can sit to one side of the estimate (a
// ratio of resampled sums is pulled by Jensen's inequality; a truth cluster drawn twice
// adds no false merge with itself), and plain percentiles then put the estimate at an end
// of its own interval: in simulation the common scope's precision missed its target from
// one side in 8% of samples. Efron's bias correction moves the quantiles twice as far
// (it takes the shift for the estimator's own bias) and missed from the other side.
// The shifted interval may leave the statistic's range [lo, hi] (an estimate at an end of
// it, resamples all on one side): the plain percentile interval, which resampled values
// keep within the range, widened to hold the estimate, is given instead.
Spread spread_of(std::vector<double> values, double confidence, double estimate, double lo,
                 double hi) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double d) { return std::isnan(d); }),
               values.end());
  Spread out;
  out.resamples = uint32_t(values.size());
  out.std_error = out.ci_low = out.ci_high = kNaN;
  if (values.empty()) return out;
  const detail::Deviations d = detail::deviations(values);
  if (d.n >= 2) out.std_error = std::sqrt(d.squares / double(d.n - 1));
  std::sort(values.begin(), values.end());
  const double shift = estimate - quantile(values, 0.5);
  const double q_low = quantile(values, (1 - confidence) / 2);
  const double q_high = quantile(values, 1 - (1 - confidence) / 2);
  out.ci_low = q_low + shift;
  out.ci_high = q_high + shift;
  if (out.ci_low < lo || out.ci_high > hi) {
    out.ci_low = std::min(q_low, estimate);
    out.ci_high = std::max(q_high, estimate);
  }
  return out;
}

// `s` widened where needed to hold estimate ± z·SE. The moved percentile interval follows
// the resamples' shape, which misleads where few units carry a statistic: a slice's
// precision delta moved by two false merges has resamples that see fewer of them than the
// sample (a pair needs both its clusters drawn), and its interval lay beside the estimate,
// covering 45% in simulation (99% widened); in the entities scope the values of slices of
// 200 truth clusters covered 93% (94%).
Spread with_normal(Spread s, double estimate, double confidence) {
  if (!(s.std_error > 0)) return s;
  const double z = detail::normal_quantile(1 - (1 - confidence) / 2);
  s.ci_low = std::min(s.ci_low, estimate - z * s.std_error);
  s.ci_high = std::max(s.ci_high, estimate + z * s.std_error);
  return s;
}

// Per group of run `run`: whether it holds two truth clusters or more (fewer give no
// interval: a resample then redraws the same data). O(entries).
template <class Engine>
std::vector<bool> groups_with_clusters(const Engine& engine, size_t run) {
  std::vector<uint32_t> first(engine.groups(), kNone);
  std::vector<bool> two(engine.groups(), false);
  engine.for_each_entry(run, [&](uint32_t c, uint32_t g) {
    if (first[g] == kNone)
      first[g] = c;
    else if (first[g] != c)
      two[g] = true;
  });
  return two;
}

// Below this a spread of shares (or of their deltas) is rounding, not sampling.
constexpr double kUnmoved = 1e-12;

// `s` made honest (Spread): none where `units` are too few or nothing moved the
// statistic, else within [lo, hi] and holding `estimate`.
Spread honest(Spread s, double estimate, bool units, double lo, double hi) {
  const auto none = [&](NoInterval why) {
    s.std_error = s.ci_low = s.ci_high = kNaN;
    s.none = why;
    return s;
  };
  if (!units) return none(NoInterval::kFewClusters);
  if (std::isnan(s.std_error) && std::isnan(s.ci_low)) return s;  // no resample defined it
  s.ci_low = std::max(lo, std::min(s.ci_low, estimate));
  s.ci_high = std::min(hi, std::max(s.ci_high, estimate));
  // Resamples that differ only in the last bits of their sums (1 − 1e-16 beside 1) move
  // nothing a share can show.
  if (!(s.ci_high - s.ci_low > kUnmoved) || !(s.std_error > kUnmoved))
    return none(NoInterval::kNothingMovesIt);
  return s;
}

// What `count` replicates of every estimate are: values[(run * cells + x) * count + i], and
// deltas[(pair * cells + x) * count + i] for run pairs a < b (b's value − a's).
struct Replicates {
  size_t count = 0;
  std::vector<double> values, deltas;
  // Statistic `at` (of values or deltas) over the replicates.
  static std::vector<double> of(const std::vector<double>& v, size_t at, size_t count) {
    return {v.begin() + long(at * count), v.begin() + long((at + 1) * count)};
  }
};

// Replicate i computed from the multiplicities draw(i, &scratch, &m) sets, on any thread (each
// writes only its own column i); progress reported as steps [done, done + count) of `total`.
template <class Engine, class Draw>
Replicates replicate(const Engine& engine, size_t count, size_t done, size_t total, Draw draw) {
  const size_t n_runs = engine.runs(), cells = engine.groups() * engine.layout().width();
  const size_t pairs = n_runs * (n_runs - 1) / 2;
  Replicates r;
  r.count = count;
  r.values.assign(n_runs * cells * count, kNaN);
  r.deltas.assign(pairs * cells * count, kNaN);
  struct Scratch {
    std::vector<uint32_t> drawn;
    std::vector<double> m;
    std::vector<double> now;
  };
  std::vector<Scratch> scratch(detail::workers_for(count));
  detail::parallel_for(count, [&](size_t w, size_t i) {
    detail::poll_interrupt();
    detail::report_every(done + i, total);
    std::vector<double>& now = scratch[w].now;
    draw(i, &scratch[w].drawn, &scratch[w].m);
    engine.compute(scratch[w].m.data(), &now);
    for (size_t x = 0; x < n_runs * cells; ++x) r.values[x * count + i] = now[x];
    for (size_t a = 0, pair = 0; a < n_runs; ++a)
      for (size_t z = a + 1; z < n_runs; ++z, ++pair)
        for (size_t x = 0; x < cells; ++x)
          r.deltas[(pair * cells + x) * count + i] = now[z * cells + x] - now[a * cells + x];
  });
  return r;
}

template <class Engine>
BootstrapResult run(const Engine& engine, const BootstrapOptions& o) {
  check_options(o);
  check_rank(o.cluster_rank, engine.clusters());
  const size_t groups = engine.groups(), width = engine.layout().width(), n_runs = engine.runs();
  const size_t cells = groups * width;
  std::vector<bool> used(engine.clusters(), false);
  engine.for_each_cluster([&](uint32_t c) { used[c] = true; });
  BootstrapResult out;
  out.clusters = size_t(std::count(used.begin(), used.end(), true));
  out.metrics = engine.layout().names(engine.base_names());
  // One cluster drawn again and again is the full data every time: a spread of 0 that
  // would claim certainty, where nothing is known of the variation between clusters.
  const size_t b_count = out.clusters >= 2 ? o.resamples : 0;
  const detail::JackknifeGroups jack = Engine::kPairTerms && b_count > 0
                                           ? detail::jackknife_groups(used, o.cluster_rank)
                                           : detail::JackknifeGroups{{0}, {}};
  std::vector<double> full;
  engine.compute(nullptr, &full);
  const size_t steps = b_count + jack.size();
  // Resample b draws from a random stream of its own, so that it is the same whichever
  // thread computes it.
  const Replicates boot = replicate(engine, b_count, 0, steps, [&](size_t b, auto* drawn, auto* m) {
    detail::Random rng = detail::Random::stream(o.seed, b);
    draw(rng, engine.clusters(), o.cluster_rank, engine.factors(), drawn, m);
  });
  // Jackknife value g: every cluster once but group g's.
  const Replicates left_out =
      replicate(engine, jack.size(), b_count, steps, [&](size_t g, auto*, auto* m) {
        m->assign(engine.clusters(), 1.0);
        for (size_t p = jack.start[g]; p < jack.start[g + 1]; ++p) (*m)[jack.members[p]] = 0;
      });
  const auto spread = [&](const std::vector<double>& b, const std::vector<double>& j, size_t at,
                          double estimate, double lo, double hi) {
    Spread s = spread_of(Replicates::of(b, at, b_count), o.confidence, estimate, lo, hi);
    if (left_out.count > 0)
      s = detail::pair_corrected(s, estimate,
                                 detail::jackknife_variance(Replicates::of(j, at, left_out.count)),
                                 engine.share());
    return with_normal(s, estimate, o.confidence);
  };
  std::vector<std::vector<bool>> units(n_runs);
  for (size_t r = 0; r < n_runs; ++r) units[r] = groups_with_clusters(engine, r);
  // Every statistic here is a share or a pair metric, in [0, 1]; a delta of two, in [-1, 1].
  for (size_t r = 0; r < n_runs; ++r)
    for (size_t x = 0; x < cells; ++x) {
      const size_t g = x / width;
      // A group without weight in the run has no estimate of any metric.
      if (std::isnan(full[r * cells + g * width])) continue;
      const double estimate = full[r * cells + x];
      const Spread s = spread(boot.values, left_out.values, r * cells + x, estimate, 0.0, 1.0);
      out.values.push_back({uint32_t(r), uint32_t(g), uint32_t(x % width), estimate,
                            honest(s, estimate, units[r][g], 0.0, 1.0)});
    }
  for (size_t a = 0, pair = 0; a < n_runs; ++a)
    for (size_t z = a + 1; z < n_runs; ++z, ++pair)
      for (size_t x = 0; x < cells; ++x) {
        const double va = full[a * cells + x], vb = full[z * cells + x];
        if (std::isnan(va) || std::isnan(vb)) continue;
        const size_t g = x / width;
        const Spread s = spread(boot.deltas, left_out.deltas, pair * cells + x, vb - va, -1.0, 1.0);
        out.rows.push_back({uint32_t(a), uint32_t(z), uint32_t(g), uint32_t(x % width), va, vb,
                            vb - va, honest(s, vb - va, units[a][g] && units[z][g], -1.0, 1.0)});
      }
  return out;
}

}  // namespace

BootstrapResult paired_bootstrap(const std::vector<ClusterSums>& runs, const BootstrapOptions& o) {
  if (runs.empty()) throw std::invalid_argument("clusterscore: the bootstrap needs a run");
  return run(FixedSums(runs), o);
}

BootstrapResult paired_bootstrap(const std::vector<CellSums>& runs, const BootstrapOptions& o) {
  if (runs.empty()) throw std::invalid_argument("clusterscore: the bootstrap needs a run");
  return run(RecomputedCells(runs), o);
}

}  // namespace clusterscore
