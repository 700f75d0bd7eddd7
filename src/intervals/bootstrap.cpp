#include "intervals/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "detail/interrupt.h"
#include "detail/normal.h"
#include "detail/parallel.h"
#include "detail/progress.h"
#include "detail/random.h"
#include "intervals/draws.h"
#include "intervals/fixed_sums.h"
#include "intervals/jackknife.h"
#include "intervals/recomputed_cells.h"

namespace clusterscore {
namespace {

using intervals_detail::DrawBlocks;
using intervals_detail::FixedSums;
using intervals_detail::RecomputedCells;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_options(const BootstrapOptions& o) {
  if (o.resamples == 0) throw std::invalid_argument("clusterscore: resamples must be > 0");
  if (!(o.confidence > 0 && o.confidence < 1))
    throw std::invalid_argument("clusterscore: confidence must be in (0, 1)");
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

// Per group of run `run`: how many distinct truth clusters it holds (fewer than two give
// no interval: a resample then redraws the same data; the count is also the spread's
// degrees of freedom). The entries' groups are bucketed by cluster (a counting sort), so
// one cluster's entries come together and a group counts a cluster where it differs from
// the group's last. O(entries + clusters + groups), once per bootstrap.
template <class Engine>
std::vector<uint32_t> clusters_per_group(const Engine& engine, size_t run) {
  std::vector<size_t> end(engine.clusters() + 1, 0);
  engine.for_each_entry(run, [&](uint32_t c, uint32_t) { ++end[c + 1]; });
  std::partial_sum(end.begin(), end.end(), end.begin());
  std::vector<uint32_t> group(end.back());
  engine.for_each_entry(run, [&](uint32_t c, uint32_t g) { group[end[c]++] = g; });
  // end[c] is now where cluster c's entries end.
  std::vector<uint32_t> count(engine.groups(), 0), last(engine.groups(), kNone);
  for (size_t c = 0, k = 0; c < engine.clusters(); ++c) {
    for (; k < end[c]; ++k) {
      if (last[group[k]] != c) {
        last[group[k]] = uint32_t(c);
        ++count[group[k]];
      }
    }
  }
  return count;
}

// Below this a spread of shares (or of their deltas) is rounding, not sampling.
constexpr double kUnmoved = 1e-12;

// `s` made honest (Spread): none where `units` are too few or nothing moved the
// statistic, else within [lo, hi] and holding `estimate`.
Spread honest(Spread s, double estimate, uint32_t units, double lo, double hi) {
  s.units = units;
  const auto none = [&](NoInterval why) {
    s.std_error = s.ci_low = s.ci_high = kNaN;
    s.none = why;
    return s;
  };
  if (units < 2) return none(NoInterval::kFewClusters);
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

using intervals_detail::kLanes;

// Replicates [i, i + lanes) computed from the draws draw(i, lanes, counts, &blocks) sets,
// replicate i + l in lane l of intervals_detail::Draws (counts[p·kLanes + l] for place p;
// lanes past `lanes`, which draw may fill, are cleared after it), kLanes at a time on any
// thread, each batch writing only its own columns i; progress reported as steps [done,
// done + count) of `total`.
template <class Engine, class Draw>
Replicates replicate(const Engine& engine, size_t count, size_t done, size_t total, Draw draw) {
  const size_t n_runs = engine.runs(), cells = engine.groups() * engine.layout().width();
  const size_t pairs = n_runs * (n_runs - 1) / 2, clusters = engine.clusters();
  Replicates r;
  r.count = count;
  r.values.assign(n_runs * cells * count, kNaN);
  r.deltas.assign(pairs * cells * count, kNaN);
  struct Scratch {
    std::vector<uint8_t> side_by_side;
    DrawBlocks blocks;
    std::vector<double> now[kLanes];
  };
  const size_t batches = (count + kLanes - 1) / kLanes;
  std::vector<Scratch> scratch(detail::workers_for(batches));
  detail::parallel_for(batches, [&](size_t w, size_t batch) {
    detail::poll_interrupt();
    Scratch& s = scratch[w];
    intervals_detail::Draws d;
    d.lanes = std::min(kLanes, count - batch * kLanes);
    s.side_by_side.resize(clusters * kLanes);
    for (size_t l = 0; l < d.lanes; ++l) detail::report_every(done + batch * kLanes + l, total);
    draw(batch * kLanes, d.lanes, s.side_by_side.data(), &s.blocks);
    for (size_t l = d.lanes; l < kLanes; ++l)
      for (size_t p = 0; p < clusters; ++p) s.side_by_side[p * kLanes + l] = 0;
    d.n = s.side_by_side.data();
    engine.compute(d, s.now);
    for (size_t l = 0; l < d.lanes; ++l) {
      const size_t i = batch * kLanes + l;
      const std::vector<double>& now = s.now[l];
      for (size_t x = 0; x < n_runs * cells; ++x) r.values[x * count + i] = now[x];
      for (size_t a = 0, pair = 0; a < n_runs; ++a)
        for (size_t z = a + 1; z < n_runs; ++z, ++pair)
          for (size_t x = 0; x < cells; ++x)
            r.deltas[(pair * cells + x) * count + i] = now[z * cells + x] - now[a * cells + x];
    }
  });
  return r;
}

template <class Engine>
BootstrapResult run(const Engine& engine, const BootstrapOptions& o) {
  check_options(o);
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
                                           ? detail::jackknife_groups(used, {})
                                           : detail::JackknifeGroups{{0}, {}};
  std::vector<double> full;
  engine.compute(intervals_detail::Draws{}, &full);
  const size_t steps = b_count + jack.size();
  // Resample b draws from a random stream of its own, so that it is the same whichever
  // thread computes it; a last batch of fewer than kLanes draws its other lanes too, and
  // replicate() clears them.
  const Replicates boot = replicate(
      engine, b_count, 0, steps, [&](size_t b, size_t, uint8_t* counts, DrawBlocks* blocks) {
        detail::Random rng[kLanes] = {
            detail::Random::stream(o.seed, b), detail::Random::stream(o.seed, b + 1),
            detail::Random::stream(o.seed, b + 2), detail::Random::stream(o.seed, b + 3)};
        intervals_detail::draw_lanes(rng, engine.clusters(), counts, blocks);
      });
  // Jackknife value g: every cluster once but group g's.
  const Replicates left_out =
      replicate(engine, jack.size(), b_count, steps,
                [&](size_t first, size_t lanes, uint8_t* counts, DrawBlocks*) {
                  for (size_t l = 0; l < lanes; ++l) {
                    const size_t g = first + l;
                    for (size_t p = 0; p < engine.clusters(); ++p) counts[p * kLanes + l] = 1;
                    for (size_t p = jack.start[g]; p < jack.start[g + 1]; ++p)
                      counts[size_t(jack.members[p]) * kLanes + l] = 0;
                  }
                });
  const auto spread = [&](const std::vector<double>& b, const std::vector<double>& j, size_t at,
                          double estimate, double lo, double hi) {
    Spread s = spread_of(Replicates::of(b, at, b_count), o.confidence, estimate, lo, hi);
    const bool pairs = out.metrics[at % width].rfind("pair_", 0) == 0;
    if (left_out.count > 0)
      s = detail::pair_corrected(s, estimate,
                                 detail::jackknife_variance(Replicates::of(j, at, left_out.count)),
                                 engine.share(pairs));
    return with_normal(s, estimate, o.confidence);
  };
  std::vector<std::vector<uint32_t>> units(n_runs);
  for (size_t r = 0; r < n_runs; ++r) units[r] = clusters_per_group(engine, r);
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
                            vb - va,
                            honest(s, vb - va, std::min(units[a][g], units[z][g]), -1.0, 1.0)});
      }
  return out;
}

// The metrics a truth cluster fixes alone in the common scope (CellSums::alone).
bool fixed_by_its_cluster(const std::string& metric) {
  return metric == "recall" || metric == "under_merge_rate" || metric == "pair_recall";
}

// `out`'s spreads of the metrics fixed_by_its_cluster() replaced by `exact`'s (the same
// resamples, from each run's sums per truth cluster; under_merge_rate's are recall's
// mirrored, 1 − recall and its deltas' negatives, which CellSums::alone does not sum),
// moved to `out`'s estimates (they differ in the last bits: sums in another order) and
// made honest again.
void take_cluster_spreads(const BootstrapResult& exact, BootstrapResult* out) {
  const auto key = [](uint32_t a, uint32_t b, uint32_t g, const std::string& m) {
    return std::to_string(a) + ' ' + std::to_string(b) + ' ' + std::to_string(g) + ' ' + m;
  };
  const auto moved = [](Spread s, double from, double to, double lo, double hi) {
    s.ci_low += to - from;
    s.ci_high += to - from;
    return honest(s, to, s.units, lo, hi);
  };
  const auto mirrored = [](Spread s, double shift) {
    const double low = s.ci_low;
    s.ci_low = shift - s.ci_high;
    s.ci_high = shift - low;
    return s;
  };
  std::unordered_map<std::string, std::pair<double, Spread>> found;
  const auto keep = [&](uint32_t a, uint32_t b, uint32_t g, const std::string& m, double value,
                        const Spread& s, double shift) {
    if (!fixed_by_its_cluster(m)) return;
    found[key(a, b, g, m)] = {value, s};
    if (m == "recall")
      found[key(a, b, g, "under_merge_rate")] = {shift - value, mirrored(s, shift)};
  };
  for (const ValueRow& v : exact.values)
    keep(v.run, v.run, v.group, exact.metrics[v.metric], v.estimate, v.spread, 1.0);
  for (const DeltaRow& d : exact.rows)
    keep(d.run_a, d.run_b, d.group, exact.metrics[d.metric], d.delta, d.spread, 0.0);
  for (ValueRow& v : out->values) {
    const auto it = found.find(key(v.run, v.run, v.group, out->metrics[v.metric]));
    if (it != found.end())
      v.spread = moved(it->second.second, it->second.first, v.estimate, 0.0, 1.0);
  }
  for (DeltaRow& d : out->rows) {
    const auto it = found.find(key(d.run_a, d.run_b, d.group, out->metrics[d.metric]));
    if (it != found.end())
      d.spread = moved(it->second.second, it->second.first, d.delta, -1.0, 1.0);
  }
}

}  // namespace

BootstrapResult paired_bootstrap(const std::vector<ClusterSums>& runs, const BootstrapOptions& o) {
  if (runs.empty()) throw std::invalid_argument("clusterscore: the bootstrap needs a run");
  check_rank(o.cluster_rank, runs[0].n_clusters);
  return run(FixedSums(runs, o.cluster_rank), o);
}

BootstrapResult paired_bootstrap(const std::vector<CellSums>& runs, const BootstrapOptions& o) {
  if (runs.empty()) throw std::invalid_argument("clusterscore: the bootstrap needs a run");
  check_rank(o.cluster_rank, runs[0].n_clusters);
  BootstrapResult out = run(RecomputedCells(runs, o.cluster_rank), o);
  if (std::all_of(runs.begin(), runs.end(), [](const CellSums& r) { return r.alone; })) {
    std::vector<ClusterSums> alone;
    for (const CellSums& r : runs) alone.push_back(*r.alone);
    take_cluster_spreads(run(FixedSums(alone, o.cluster_rank), o), &out);
  }
  return out;
}

}  // namespace clusterscore
