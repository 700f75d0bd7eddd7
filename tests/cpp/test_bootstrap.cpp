#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <random>
#include <utility>
#include <variant>

#include "comparison/comparison.h"
#include "detail/normal.h"
#include "detail/random.h"
#include "helpers.h"
#include "intervals/bootstrap.h"
#include "intervals/draws.h"
#include "intervals/fixed_sums.h"
#include "intervals/jackknife.h"
#include "intervals/recomputed_cells.h"

using namespace clusterscore;
using cstest::ints;

namespace {

// docs/metrics.md's worked example (truth {i1,i2} {i3}, weights 1 2 3) scored for several actual
// clusterings, with a slice {i1} {i2,i3}.
struct Runs {
  std::vector<int64_t> items = {1, 2, 3}, truth = {10, 10, 20};
  std::vector<double> w = {1, 2, 3};
  std::vector<int64_t> slice = {0, 1, 1};
  ItemsInput table{ints(items), w.data()};
  std::vector<std::vector<int64_t>> actual;
  std::vector<Comparison> c;
  explicit Runs(std::vector<std::vector<int64_t>> runs) : actual(std::move(runs)) {
    for (const auto& a : actual)
      c.emplace_back(ClusteringInput{"truth", ints(items), ints(truth)},
                     ClusteringInput{"actual", ints(items), ints(a)}, &table,
                     MetricFamily::kPointwise);
  }
  std::vector<ClusterSums> sums(bool by_slice) const {
    std::vector<ClusterSums> out;
    for (const Comparison& x : c) {
      const ItemGrouping g = x.group_items({ints(slice)});
      out.push_back(truth_cluster_sums(x, by_slice ? &g : nullptr));
    }
    return out;
  }
};

// Each of `draws` (per place) computed by `engine` beside others, kLanes at a time.
template <class Engine>
std::vector<std::vector<double>> in_lanes(const Engine& engine,
                                          const std::vector<std::vector<uint32_t>>& draws) {
  using intervals_detail::kLanes;
  std::vector<std::vector<double>> out(draws.size());
  for (size_t first = 0; first < draws.size(); first += kLanes) {
    intervals_detail::Draws d;
    d.lanes = std::min(kLanes, draws.size() - first);
    // Lanes past d.lanes hold counts too (the first draw's), computed and not read.
    std::vector<uint8_t> side_by_side;
    for (size_t p = 0; p < draws[0].size(); ++p)
      for (size_t l = 0; l < kLanes; ++l)
        side_by_side.push_back(uint8_t(draws[l < d.lanes ? first + l : 0][p]));
    d.n = side_by_side.data();
    engine.compute(d, out.data() + first);
  }
  return out;
}

// `counted` (per place) computed alone.
template <class Engine>
std::vector<double> alone(const Engine& engine, const std::vector<uint32_t>& counted) {
  std::vector<uint8_t> side_by_side;
  for (uint32_t n : counted) side_by_side.insert(side_by_side.end(), {uint8_t(n), 0, 0, 0});
  intervals_detail::Draws one;
  one.n = side_by_side.data();
  std::vector<double> out;
  engine.compute(one, &out);
  return out;
}

void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t x = 0; x < a.size(); ++x)
    EXPECT_EQ(std::bit_cast<uint64_t>(a[x]), std::bit_cast<uint64_t>(b[x])) << x;
}

const DeltaRow& row_of(const BootstrapResult& r, uint32_t a, uint32_t b, uint32_t group,
                       const std::string& metric) {
  const uint32_t m =
      uint32_t(std::find(r.metrics.begin(), r.metrics.end(), metric) - r.metrics.begin());
  for (const DeltaRow& x : r.rows)
    if (x.run_a == a && x.run_b == b && x.group == group && x.metric == m) return x;
  throw std::runtime_error("no row");
}

// `runs` random clusterings of items 0..n-1 scored against a random truth of `clusters`
// clusters: each item stays with its truth cluster, or one time in four moves to one of
// four shared clusters (false merges across truth clusters).
std::vector<Comparison> random_runs(uint64_t seed, size_t n, int64_t clusters, size_t runs) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> items(n), truth(n);
  std::vector<std::vector<int64_t>> actual(runs, std::vector<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    items[i] = int64_t(i);
    truth[i] = int64_t(rng() % uint64_t(clusters));
    for (auto& a : actual) a[i] = rng() % 4 == 0 ? -1 - int64_t(rng() % 4) : truth[i];
  }
  std::vector<Comparison> c;
  for (const auto& a : actual)
    c.emplace_back(ClusteringInput{"truth", ints(items), ints(truth)},
                   ClusteringInput{"actual", ints(items), ints(a)}, nullptr,
                   MetricFamily::kPointwise);
  return c;
}

}  // namespace

TEST(Bootstrap, FullDataDeltasAreTheEvaluationsDifferences) {
  const Runs r({{7, 8, 7}, {10, 10, 20}, {1, 1, 1}});
  const BootstrapResult b = paired_bootstrap(r.sums(false), {200, 1, 0.9});
  EXPECT_EQ(b.metrics.back(), "pair_f1");
  EXPECT_NE(std::find(b.metrics.begin(), b.metrics.end(), "f1_of_means"), b.metrics.end());
  ASSERT_EQ(b.rows.size(), 3 * b.metrics.size());  // three pairs, one group
  for (uint32_t a = 0; a < 3; ++a)
    for (uint32_t z = a + 1; z < 3; ++z) {
      const GroupTable ga = r.c[a].overall(), gz = r.c[z].overall();
      for (const std::string& m : b.metrics) {
        const DeltaRow& x = row_of(b, a, z, 0, m);
        EXPECT_NEAR(x.value_a, ga.column(m)[0], 1e-15) << m;
        EXPECT_NEAR(x.value_b, gz.column(m)[0], 1e-15) << m;
        EXPECT_DOUBLE_EQ(x.delta, x.value_b - x.value_a);
        // A pair metric is undefined in resamples without pairs (only i3's cluster drawn).
        if (m.rfind("pair_", 0) != 0) EXPECT_EQ(x.spread.resamples, 200u) << m;
      }
    }
  // Figure 2 against the truth itself: precision 3/4 -> 1 in every resample (both truth
  // clusters have mean precision 3/4), recall 7/9 -> 1 with resampled deltas in
  // {4/9, 2/9, 0} (clusters drawn (2, 0), (1, 1), (0, 2)).
  // No resample moves the precision delta: no interval (a zero-width one would claim it
  // is known exactly), and the reason.
  const DeltaRow& p = row_of(b, 0, 1, 0, "precision");
  EXPECT_DOUBLE_EQ(p.delta, 0.25);
  EXPECT_TRUE(std::isnan(p.spread.std_error));
  EXPECT_TRUE(std::isnan(p.spread.ci_low) && std::isnan(p.spread.ci_high));
  EXPECT_EQ(p.spread.none, NoInterval::kNothingMovesIt);
  const DeltaRow& rc = row_of(b, 0, 1, 0, "recall");
  EXPECT_NEAR(rc.delta, 2.0 / 9, 1e-15);
  EXPECT_GT(rc.spread.std_error, 0.1);
  // The percentile interval [0, 4/9], widened to hold delta ± z·SE.
  const double z_se = detail::normal_quantile(0.95) * rc.spread.std_error;  // at 90%
  EXPECT_NEAR(rc.spread.ci_low, std::min(0.0, rc.delta - z_se), 1e-15);
  EXPECT_NEAR(rc.spread.ci_high, std::max(4.0 / 9, rc.delta + z_se), 1e-15);
}

TEST(Bootstrap, PerSliceFullDataDeltasAreTheSliceDifferences) {
  const Runs r({{7, 8, 7}, {10, 10, 20}});
  const BootstrapResult b = paired_bootstrap(r.sums(true), {50, 3, 0.95});
  for (uint32_t g = 0; g < 2; ++g) {
    const GroupTable s0 = r.c[0].by_items(r.c[0].group_items({ints(r.slice)}));
    const GroupTable s1 = r.c[1].by_items(r.c[1].group_items({ints(r.slice)}));
    for (const std::string& m : b.metrics)
      EXPECT_NEAR(row_of(b, 0, 1, g, m).delta, s1.column(m)[g] - s0.column(m)[g], 1e-15) << m;
  }
  // Slice value 1 (weight 5 of 6) is group 0: groups come heaviest first.
  EXPECT_NEAR(row_of(b, 0, 1, 0, "precision").value_a, 17.0 / 20, 1e-15);
}

// Each resample redone by brute force: the draws (as documented: each of K clusters
// drawn K times, uniformly by a multiply-shift of the output of resample r's own
// generator, Random::stream(seed, r)), each item's
// weight times its cluster's draws, and weighted means of the per-item metrics.
TEST(Bootstrap, AgreesWithResamplingItemsByBruteForce) {
  std::mt19937_64 gen(5);
  const size_t n = 60;
  std::vector<int64_t> items(n), truth(n), a(n), b(n);
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    items[i] = int64_t(i);
    truth[i] = int64_t(gen() % 9);
    a[i] = gen() % 4 == 0 ? int64_t(gen() % 5) : truth[i];
    b[i] = gen() % 3 == 0 ? int64_t(gen() % 3) : truth[i] / 2;
    w[i] = 0.5 + double(gen() % 100) / 40;
  }
  ItemsInput table{ints(items), w.data()};
  std::vector<Comparison> c;
  for (const auto* run : {&a, &b})
    c.emplace_back(ClusteringInput{"truth", ints(items), ints(truth)},
                   ClusteringInput{"actual", ints(items), ints(*run)}, &table,
                   MetricFamily::kPointwise);
  const BootstrapOptions o{300, 11, 0.8};
  const BootstrapResult got =
      paired_bootstrap({truth_cluster_sums(c[0], nullptr), truth_cluster_sums(c[1], nullptr)}, o);
  const size_t k = c[0].joined().n_a_clusters();
  const std::string metric = "jaccard_index";
  const size_t col = c[0].cell_metrics().column(metric);
  std::vector<double> deltas;
  for (size_t r = 0; r < o.resamples; ++r) {
    detail::Random rng = detail::Random::stream(o.seed, r);
    std::vector<double> times(k, 0);
    for (size_t d = 0; d < k; ++d)
      ++times[size_t((static_cast<unsigned __int128>(rng.next()) * k) >> 64)];
    double mean[2];
    for (int s = 0; s < 2; ++s) {
      double sw = 0, sv = 0;
      for (size_t i = 0; i < n; ++i) {
        const double wi = w[i] * times[c[s].joined().a_cluster[i]];
        sw += wi;
        sv += wi * c[s].cell_metrics().at(c[s].cell_of_item()[i], col);
      }
      mean[s] = sv / sw;
    }
    deltas.push_back(mean[1] - mean[0]);
  }
  double avg = 0, var = 0;
  for (double d : deltas) avg += d / double(deltas.size());
  for (double d : deltas) var += (d - avg) * (d - avg) / double(deltas.size() - 1);
  std::sort(deltas.begin(), deltas.end());
  auto q = [&](double p) {
    const double h = p * double(deltas.size() - 1);
    const size_t lo = size_t(h);
    return deltas[lo] +
           (h - double(lo)) * (deltas[std::min(lo + 1, deltas.size() - 1)] - deltas[lo]);
  };
  const DeltaRow& x = row_of(got, 0, 1, 0, metric);
  // Percentiles moved so that the median sits on the full data's delta, widened where
  // needed to hold delta ± z·SE.
  const double shift = x.delta - q(0.5), z = detail::normal_quantile(0.9);
  EXPECT_NEAR(x.spread.std_error, std::sqrt(var), 1e-12);
  EXPECT_NEAR(x.spread.ci_low, std::min(q(0.1) + shift, x.delta - z * std::sqrt(var)), 1e-12);
  EXPECT_NEAR(x.spread.ci_high, std::max(q(0.9) + shift, x.delta + z * std::sqrt(var)), 1e-12);
  EXPECT_GT(x.spread.std_error, 0);
}

TEST(Bootstrap, IdenticalRunsDifferByNothing) {
  const Runs r({{7, 8, 7}, {7, 8, 7}});
  for (const DeltaRow& x : paired_bootstrap(r.sums(true), {100, 2, 0.95}).rows) {
    EXPECT_EQ(x.delta, 0);
    EXPECT_TRUE(std::isnan(x.spread.std_error) && std::isnan(x.spread.ci_low));
    EXPECT_NE(x.spread.none, NoInterval::kNo);  // too few clusters, or nothing moves it
  }
}

TEST(Bootstrap, SwappingRunsNegatesDeltasAndMirrorsIntervals) {
  const Runs r({{7, 8, 7}, {1, 1, 1}});
  std::vector<ClusterSums> s = r.sums(false), t = {s[1], s[0]};
  const BootstrapResult ab = paired_bootstrap(s, {400, 9, 0.9});
  const BootstrapResult ba = paired_bootstrap(t, {400, 9, 0.9});
  ASSERT_EQ(ab.rows.size(), ba.rows.size());
  for (size_t i = 0; i < ab.rows.size(); ++i) {
    const Spread &x = ab.rows[i].spread, &y = ba.rows[i].spread;
    EXPECT_NEAR(ab.rows[i].delta, -ba.rows[i].delta, 1e-15);
    EXPECT_EQ(x.none, y.none);
    if (x.none != NoInterval::kNo) continue;  // neither has an interval
    EXPECT_NEAR(x.std_error, y.std_error, 1e-15);
    EXPECT_NEAR(x.ci_low, -y.ci_high, 1e-15);
    EXPECT_NEAR(x.ci_high, -y.ci_low, 1e-15);
  }
}

TEST(Bootstrap, ASeedGivesTheSameIntervalsAndAnotherSeedOthers) {
  const Runs r({{7, 8, 7}, {1, 1, 1}});
  const auto s = r.sums(false);
  const BootstrapResult x = paired_bootstrap(s, {64, 42, 0.95});
  const BootstrapResult y = paired_bootstrap(s, {64, 42, 0.95});
  const BootstrapResult z = paired_bootstrap(s, {64, 43, 0.95});
  bool differs = false;
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  for (size_t i = 0; i < x.rows.size(); ++i) {
    EXPECT_TRUE(same(x.rows[i].spread.std_error, y.rows[i].spread.std_error));
    EXPECT_TRUE(same(x.rows[i].spread.ci_low, y.rows[i].spread.ci_low));
    differs |= !same(x.rows[i].spread.std_error, z.rows[i].spread.std_error);
  }
  EXPECT_TRUE(differs);
}

TEST(Bootstrap, BadArgumentsAreErrors) {
  const Runs r({{7, 8, 7}, {1, 1, 1}});
  const auto s = r.sums(false), sliced = r.sums(true);
  EXPECT_THROW(paired_bootstrap(std::vector<ClusterSums>{}, {}), std::invalid_argument);
  EXPECT_NO_THROW(paired_bootstrap({s[0]}, {}));  // one run: its estimates only
  EXPECT_THROW(paired_bootstrap({s[0], sliced[1]}, {}), std::invalid_argument);
  EXPECT_THROW(paired_bootstrap(s, {0, 1, 0.95}), std::invalid_argument);
  EXPECT_THROW(paired_bootstrap(s, {10, 1, 1.0}), std::invalid_argument);
  EXPECT_THROW(paired_bootstrap(s, {10, 1, 0.0}), std::invalid_argument);
  EXPECT_THROW(paired_bootstrap(s, {10, 1, std::nan("")}), std::invalid_argument);
  ItemGrouping wrong;
  EXPECT_THROW(truth_cluster_sums(r.c[0], &wrong), std::invalid_argument);
}

TEST(Bootstrap, OneRunsEstimatesAreItsOverallValues) {
  const Runs r({{7, 8, 7}});
  const BootstrapResult b = paired_bootstrap(r.sums(false), {100, 5, 0.9});
  EXPECT_TRUE(b.rows.empty());
  ASSERT_EQ(b.values.size(), b.metrics.size());
  const GroupTable g = r.c[0].overall();
  for (const ValueRow& v : b.values) {
    const std::string& m = b.metrics[v.metric];
    EXPECT_NEAR(v.estimate, g.column(m)[0], 1e-15) << m;
    if (std::isnan(v.spread.ci_low)) continue;
    EXPECT_LE(v.spread.ci_low, v.spread.ci_high) << m;
  }
}

TEST(Bootstrap, OneTruthClusterGivesNoSpread) {
  // Every resample would be the full data: a spread of 0 claiming certainty.
  std::vector<int64_t> items = {1, 2, 3}, truth = {1, 1, 1}, actual = {5, 5, 6};
  const Comparison c(ClusteringInput{"truth", ints(items), ints(truth)},
                     ClusteringInput{"actual", ints(items), ints(actual)}, nullptr,
                     MetricFamily::kPointwise);
  const BootstrapResult b = paired_bootstrap({cell_sums(c, nullptr)}, {40, 2, 0.9});
  EXPECT_EQ(b.clusters, 1u);
  for (const ValueRow& x : b.values) {
    EXPECT_TRUE(std::isnan(x.spread.ci_low) && std::isnan(x.spread.std_error));
    EXPECT_EQ(x.spread.resamples, 0u);
  }
}

// The common scope's bootstrap redone by brute force: each drawn copy of a truth cluster
// is an entity of its own; two item copies share an actual cluster if their items do and
// they are not different copies of one truth cluster; every per-item metric from its
// tp, fp, fn, tn over all copies, and the weighted means.
// Every pointwise metric of a resample, by brute force over copies of the items: truth
// clusters kept whole (one actual cluster each), split into actual clusters of their own,
// and sharing actual clusters with others; clusters numbered in their own order and in a
// given one (cluster_rank), overall and per slice.
TEST(Bootstrap, CommonScopeResamplesRecomputeEveryItemByBruteForce) {
  std::mt19937_64 gen(8);
  const size_t n = 80;
  std::vector<int64_t> items(n), truth(n), actual(n);
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    items[i] = int64_t(i);
    truth[i] = int64_t(gen() % 16);
    const bool whole = truth[i] % 4 == 0, shared = gen() % 3 == 0;
    actual[i] = whole    ? truth[i] + 1000
                : shared ? int64_t(gen() % 4)
                         : truth[i] + 100 * int64_t(1 + gen() % 2);
    w[i] = 0.5 + double(gen() % 100) / 40;
  }
  ItemsInput table{ints(items), w.data()};
  const Comparison c(ClusteringInput{"truth", ints(items), ints(truth)},
                     ClusteringInput{"actual", ints(items), ints(actual)}, &table,
                     MetricFamily::kPointwise);
  ItemGrouping slices;
  slices.n_groups = 3;
  for (size_t i = 0; i < n; ++i) slices.item_group.push_back(i % 7 == 0 ? kNone : uint32_t(i % 3));
  const size_t k = c.joined().n_a_clusters();
  const auto& a = c.joined().a_cluster;
  std::vector<uint32_t> reversed(k);
  for (uint32_t t = 0; t < k; ++t) reversed[t] = uint32_t(k - 1 - t);
  for (const ItemGrouping* grouping :
       {static_cast<const ItemGrouping*>(nullptr), &std::as_const(slices)})
    for (const std::vector<uint32_t>& rank : {std::vector<uint32_t>{}, reversed}) {
      const std::vector<CellSums> runs{cell_sums(c, grouping)};
      const intervals_detail::RecomputedCells engine(runs, rank);
      const size_t groups = engine.groups(), width = engine.layout().width();
      std::vector<std::vector<uint32_t>> draws(20, std::vector<uint32_t>(k));  // by place
      for (std::vector<uint32_t>& counted : draws)
        for (uint32_t& x : counted) x = uint32_t(gen() % 4);
      const std::vector<std::vector<double>> together = in_lanes(engine, draws);
      for (size_t draw = 0; draw < draws.size(); ++draw) {
        const std::vector<uint32_t>& counted = draws[draw];
        const std::vector<double> got = alone(engine, counted);
        // Computed beside other resamples, each lane is the same bits as alone.
        expect_same_bits(together[draw], got);
        const auto times = [&](size_t i) {
          return size_t(counted[rank.empty() ? a[i] : rank[a[i]]]);
        };
        struct Copy {
          size_t item, copy;
        };
        std::vector<Copy> copies;
        for (size_t i = 0; i < n; ++i)
          for (size_t t = 0; t < times(i); ++t) copies.push_back({i, t});
        double total = 0;
        for (const Copy& x : copies) total += w[x.item];
        // Per group: the means' sums, the weight, and the pair sums.
        std::vector<std::array<double, 12>> sums(groups);
        for (const Copy& x : copies) {
          const uint32_t g = grouping ? grouping->item_group[x.item] : 0;
          if (g == kNone) continue;
          double tp = 0, fp = 0, fn = 0;
          for (const Copy& y : copies) {
            const bool same_truth = a[x.item] == a[y.item] && x.copy == y.copy;
            const bool same_actual =
                actual[x.item] == actual[y.item] && (a[x.item] != a[y.item] || x.copy == y.copy);
            tp += same_truth && same_actual ? w[y.item] : 0;
            fp += !same_truth && same_actual ? w[y.item] : 0;
            fn += same_truth && !same_actual ? w[y.item] : 0;
          }
          const double wi = w[x.item], u = tp + fp + fn;
          const double values[] = {tp / (tp + fp),
                                   tp / (tp + fn),
                                   2 * tp / (2 * tp + fp + fn),
                                   (total - fp - fn) / total,
                                   tp / u,
                                   (fp + fn) / u,
                                   fp / (tp + fp),
                                   fn / (tp + fn)};
          for (int m = 0; m < 8; ++m) sums[g][m] += wi * values[m];
          sums[g][8] += wi;
          sums[g][9] += wi * (tp - wi);
          sums[g][10] += wi * (tp + fp - wi);
          sums[g][11] += wi * (tp + fn - wi);
        }
        for (size_t g = 0; g < groups; ++g) {
          const double* row = got.data() + g * width;
          if (sums[g][8] == 0) {
            EXPECT_TRUE(std::isnan(row[0]));
            continue;
          }
          for (int m = 0; m < 8; ++m) EXPECT_NEAR(row[m], sums[g][m] / sums[g][8], 1e-12) << m;
          const auto ratio = [](double x, double y) { return y > 0 ? x / y : std::nan(""); };
          const double pp = ratio(sums[g][9], sums[g][10]), pr = ratio(sums[g][9], sums[g][11]);
          for (const auto& [at, want] : {std::pair{9, pp}, std::pair{10, pr}}) {
            if (std::isnan(want))
              EXPECT_TRUE(std::isnan(row[at]));
            else
              EXPECT_NEAR(row[at], want, 1e-12) << at;
          }
        }
      }
      // The engine of sums fixed per truth cluster, with its corrections for the share drawn
      // and design weights: each lane the same bits as alone too.
      std::vector<ClusterSums> fixed_runs{truth_cluster_sums(c, grouping)};
      for (size_t t = 0; t < k; ++t) {
        fixed_runs[0].inclusion.push_back(double(t % 5) / 4);
        fixed_runs[0].design.push_back(1 + double(t % 3));
      }
      const intervals_detail::FixedSums fixed(fixed_runs, rank);
      const std::vector<std::vector<double>> fixed_together = in_lanes(fixed, draws);
      for (size_t draw = 0; draw < draws.size(); ++draw) {
        expect_same_bits(fixed_together[draw], alone(fixed, draws[draw]));
      }
    }
}

TEST(Bootstrap, DesignWeightsWeightEachTruthClustersItems) {
  Runs r({{7, 8, 7}});
  // Truth cluster {i1, i2} counts 3 times, {i3} once: precision (3·(1/4 + 2) + 3·3/4) /
  // (3·3 + 3) = 9/12 ... computed from the per-item values of docs/metrics.md's worked example.
  r.c[0].set_design({3.0, 1.0});
  const BootstrapResult b = paired_bootstrap(r.sums(false), {10, 5, 0.9});
  const auto at = [&](const std::string& m) {
    for (const ValueRow& v : b.values)
      if (b.metrics[v.metric] == m) return v.estimate;
    throw std::runtime_error("no metric");
  };
  // Per item (weights 1, 2, 3): precision 1/4, 1, 3/4; recall 1/3, 2/3, 1.
  EXPECT_NEAR(at("precision"), (3 * (0.25 + 2) + 3 * 0.75) / (3 * 3 + 3), 1e-15);
  EXPECT_NEAR(at("recall"), (3 * (1.0 / 3 + 4.0 / 3) + 3) / (3 * 3 + 3), 1e-15);
  const GroupTable g = r.c[0].overall();
  EXPECT_NEAR(g.column("precision")[0], at("precision"), 1e-15);
  EXPECT_EQ(g.weight[0], 6.0);  // the items' own weight
  EXPECT_THROW(r.c[0].set_design({1.0}), std::invalid_argument);
  EXPECT_THROW(r.c[0].set_design({1.0, 0.0}), std::invalid_argument);
}

TEST(Bootstrap, UseDesignSetsTheScopesWeightsAndReturnsTheShareDrawn) {
  Runs r({{7, 8, 7}});
  Comparison& c = r.c[0];
  EXPECT_EQ(c.use_design({DesignKind::kUniform, {}, false}), 0.0);  // no population stated
  EXPECT_TRUE(c.design().empty());
  EXPECT_TRUE(c.inclusion().empty());
  EXPECT_EQ(c.use_design({DesignKind::kGiven, {3.0, 1.0}, false}),
            sampled_share(c.joined(), {3.0, 1.0}, true));
  EXPECT_EQ(c.sampled_share(), sampled_share(c.joined(), {3.0, 1.0}, true));
  EXPECT_EQ(c.inclusion(), (std::vector<double>{1.0 / 3, 1.0}));
  EXPECT_TRUE(c.design().empty());  // the common scope's means stay those of the sample
  EXPECT_THROW(c.use_design({DesignKind::kGiven, {1.0}, false}), std::invalid_argument);
  EXPECT_THROW(c.use_design({DesignKind::kGiven, {1.0, NAN}, false}), std::invalid_argument);
  // The entities scope, means over entities: d_c / w(c ∩ T); truth clusters {1, 2} and {3}
  // weigh 3 each.
  Comparison e(ClusteringInput{"truth", ints(r.items), ints(r.truth)},
               ClusteringInput{"actual", ints(r.items), ints(r.actual[0])}, &r.table,
               MetricFamily::kPointwise, TruthScope::kEntities);
  e.use_design({DesignKind::kGiven, {3.0, 1.0}, true});
  EXPECT_EQ(e.design(), (std::vector<double>{1.0, 1.0 / 3}));
  e.use_design({DesignKind::kInverseSize, {}, false});
  EXPECT_EQ(e.design(), (std::vector<double>{0.5, 1.0}));
}

// The delete-one jackknife of a mean is the textbook s² / n.
TEST(Jackknife, VarianceOfAMeanIsTheSampleVarianceOverN) {
  const std::vector<double> x = {3.0, 1.5, 8.25, -2.0, 4.0, 0.5, 7.0};
  const double n = double(x.size());
  double sum = 0, sq = 0;
  for (double v : x) sum += v;
  for (double v : x) sq += (v - sum / n) * (v - sum / n);
  std::vector<double> left_out;
  for (double v : x) left_out.push_back((sum - v) / (n - 1));
  left_out.push_back(std::nan(""));  // an undefined replicate is left out
  EXPECT_NEAR(detail::jackknife_variance(left_out), sq / (n - 1) / n, 1e-14);
  EXPECT_TRUE(std::isnan(detail::jackknife_variance({1.0, std::nan("")})));
}

// Every used cluster is left out exactly once, in at most kJackknifeGroups groups, and the
// groups are the same clusters however an engine numbered them (through their rank).
TEST(Jackknife, GroupsPartitionTheUsedClustersByRank) {
  for (size_t clusters : {1u, 5u, 2500u}) {
    std::mt19937_64 rng(clusters);
    std::vector<bool> used(clusters + 7);
    for (size_t c = 0; c < used.size(); ++c) used[c] = c < 3 || rng() % 8 != 0;
    std::vector<uint32_t> rank(used.size()), id(used.size());  // id: the ranked order
    for (uint32_t c = 0; c < rank.size(); ++c) rank[c] = c;
    std::shuffle(rank.begin(), rank.end(), rng);
    for (uint32_t c = 0; c < rank.size(); ++c) id[c] = rank[c];
    const detail::JackknifeGroups g = detail::jackknife_groups(used, rank);
    const size_t n_used = size_t(std::count(used.begin(), used.end(), true));
    EXPECT_EQ(g.size(), std::min(n_used, detail::kJackknifeGroups));
    std::vector<int> seen(used.size(), 0);
    for (uint32_t c : g.members) ++seen[c];
    for (size_t c = 0; c < used.size(); ++c) EXPECT_EQ(seen[c], used[c] ? 1 : 0) << c;
    // The same clusters numbered in rank order: group by group, the same ids.
    std::vector<bool> by_id(used.size());
    for (uint32_t c = 0; c < used.size(); ++c) by_id[id[c]] = used[c];
    const detail::JackknifeGroups h = detail::jackknife_groups(by_id, {});
    ASSERT_EQ(g.start, h.start);
    for (size_t p = 0; p < g.members.size(); ++p) EXPECT_EQ(id[g.members[p]], h.members[p]);
  }
}

// Brought to 2·jackknife − bootstrap: the interval keeps its shape around the estimate,
// never gets wider than the bootstrap's, nor narrower than a third of its variance.
TEST(Jackknife, PairCorrectionScalesTheSpreadWithinItsBounds) {
  const Spread boot{0.2, 0.5, 1.3, 100};  // estimate 0.9: 0.4 below, 0.4 above
  const Spread part = detail::pair_corrected(boot, 0.9, 0.03125, 0);  // 2J − B = 0.0225: k = 3/4
  EXPECT_NEAR(part.std_error, 0.15, 1e-15);
  EXPECT_NEAR(part.ci_low, 0.6, 1e-15);
  EXPECT_NEAR(part.ci_high, 1.2, 1e-15);
  EXPECT_EQ(part.resamples, 100u);
  const Spread wider = detail::pair_corrected(boot, 0.9, 0.09, 0);
  EXPECT_DOUBLE_EQ(wider.std_error, boot.std_error);
  EXPECT_DOUBLE_EQ(wider.ci_low, boot.ci_low);
  const Spread least = detail::pair_corrected(boot, 0.9, 0.0, 0);
  EXPECT_DOUBLE_EQ(least.std_error, 0.2 / std::sqrt(3.0));
  const Spread none = detail::pair_corrected(boot, 0.9, std::nan(""), 0);
  EXPECT_EQ(none.std_error, boot.std_error);
  // Half the population drawn: L + P = 0.0225 of which P = (0.04 − 0.0225) / 2 = 0.00875;
  // (1 − ½)·0.0225 + ½·½·0.00875.
  const Spread half = detail::pair_corrected(boot, 0.9, 0.03125, 0.5);
  EXPECT_NEAR(half.std_error, std::sqrt(0.5 * 0.0225 + 0.25 * 0.00875), 1e-15);
}

TEST(Bootstrap, EveryIntervalLiesInItsRangeAndHoldsItsEstimate) {
  // Random clusterings of 40 items in 12 truth clusters: many values sit at 0 or 1, where
  // a moved percentile interval would leave [0, 1].
  const std::vector<Comparison> c = random_runs(5, 40, 12, 3);
  std::vector<ClusterSums> sums;
  for (const Comparison& x : c) sums.push_back(truth_cluster_sums(x, nullptr));
  const BootstrapResult b = paired_bootstrap(sums, {300, 3, 0.95});
  const auto check = [](double estimate, const Spread& s, double lo, double hi) {
    if (s.none != NoInterval::kNo) {
      EXPECT_TRUE(std::isnan(s.ci_low) && std::isnan(s.ci_high) && std::isnan(s.std_error));
      return;
    }
    if (std::isnan(s.ci_low)) return;  // no resample defined it
    EXPECT_GE(s.ci_low, lo);
    EXPECT_LE(s.ci_high, hi);
    EXPECT_LE(s.ci_low, estimate);
    EXPECT_GE(s.ci_high, estimate);
    EXPECT_GT(s.ci_high, s.ci_low);
    EXPECT_GT(s.std_error, 0);
  };
  for (const ValueRow& v : b.values) check(v.estimate, v.spread, 0.0, 1.0);
  for (const DeltaRow& d : b.rows) check(d.delta, d.spread, -1.0, 1.0);
}

// Cluster c drawn n times counts 1 + √(1 − π_c)·(n − 1) times: a cluster drawn surely
// (π = 1) counts once whatever the draws. With truth clusters {1, 2} sure and {3}, {4, 5}
// drawn with π = 0, the resampled values are exactly those with the last two counted as
// three draws from the three clusters fall (27 ways, equally likely): their standard
// deviation, brute force, is what 2,000 resamples must find.
TEST(Bootstrap, InclusionProbabilitiesCorrectEachClustersSpread) {
  std::vector<int64_t> items = {1, 2, 3, 4, 5}, truth = {10, 10, 20, 30, 30};
  std::vector<std::vector<int64_t>> runs = {{7, 8, 7, 7, 9}, {1, 1, 1, 2, 2}};
  std::vector<Comparison> c;
  for (const auto& a : runs)
    c.emplace_back(ClusteringInput{"truth", ints(items), ints(truth)},
                   ClusteringInput{"actual", ints(items), ints(a)}, nullptr,
                   MetricFamily::kPointwise, TruthScope::kEntities);
  std::vector<ClusterSums> s;
  for (const Comparison& x : c) s.push_back(truth_cluster_sums(x, nullptr));
  const auto with = [&](std::vector<double> pi, std::vector<double> design) {
    std::vector<ClusterSums> t = s;
    for (ClusterSums& x : t) x.inclusion = pi, x.design = design;
    return paired_bootstrap(t, {2000, 4, 0.9});
  };
  const BootstrapResult sure = with({1.0, 1.0, 1.0}, {});
  for (const ValueRow& v : sure.values) EXPECT_EQ(v.spread.none, NoInterval::kNothingMovesIt);
  const BootstrapResult some = with({1.0, 0.0, 0.0}, {});
  std::vector<BootstrapResult> at_n;  // a count of 0 leaves the cluster out: design 0
  for (int way = 0; way < 27; ++way) {
    double n[3] = {0, 0, 0};
    for (int d = 0, w = way; d < 3; ++d, w /= 3) ++n[w % 3];
    at_n.push_back(with({}, {1.0, n[1], n[2]}));
  }
  size_t checked = 0;
  for (size_t i = 0; i < some.values.size(); ++i) {
    const ValueRow& v = some.values[i];
    if (v.spread.none != NoInterval::kNo) continue;
    double mean = 0, var = 0;
    for (const BootstrapResult& b : at_n) mean += b.values[i].estimate / 27;
    for (const BootstrapResult& b : at_n) {
      const double d = b.values[i].estimate - mean;
      var += d * d / 27;
    }
    EXPECT_NEAR(v.spread.std_error, std::sqrt(var), 0.05 * std::sqrt(var)) << v.metric;
    ++checked;
  }
  EXPECT_GT(checked, 3u);
  std::vector<ClusterSums> bad = s;
  for (ClusterSums& x : bad) x.inclusion = {1.0};
  EXPECT_THROW(paired_bootstrap(bad, {10, 1, 0.9}), std::invalid_argument);
  for (ClusterSums& x : bad) x.inclusion = {1.0, 1.5, 0.5};
  EXPECT_THROW(paired_bootstrap(bad, {10, 1, 0.9}), std::invalid_argument);
}

// The common scope's share drawn scales every spread (detail::pair_corrected): all of the
// population drawn, nothing varies.
TEST(Bootstrap, TheCommonScopesShareDrawnNarrowsTheSpread) {
  const std::vector<Comparison> c = random_runs(12, 60, 10, 2);
  std::vector<CellSums> s;
  for (const Comparison& x : c) s.push_back(cell_sums(x, nullptr));
  const BootstrapResult plain = paired_bootstrap(s, {400, 9, 0.9});
  for (CellSums& x : s) x.sampled_share = x.pair_share = 0.25;
  const BootstrapResult part = paired_bootstrap(s, {400, 9, 0.9});
  for (CellSums& x : s) x.sampled_share = x.pair_share = 1;
  const BootstrapResult all = paired_bootstrap(s, {400, 9, 0.9});
  size_t narrower = 0;
  for (size_t i = 0; i < plain.rows.size(); ++i) {
    if (plain.rows[i].spread.none != NoInterval::kNo) continue;
    EXPECT_LT(part.rows[i].spread.std_error, plain.rows[i].spread.std_error);
    EXPECT_NE(all.rows[i].spread.none, NoInterval::kNo);
    ++narrower;
  }
  EXPECT_GT(narrower, 5u);
  s[0].sampled_share = -0.5;
  EXPECT_THROW(paired_bootstrap(s, {10, 1, 0.9}), std::invalid_argument);
  s[0].sampled_share = 0.5;
  s[0].pair_share = 1.5;
  EXPECT_THROW(paired_bootstrap(s, {10, 1, 0.9}), std::invalid_argument);
}

// In the common scope with inclusion probabilities stated, the metrics a truth cluster
// fixes alone (recall, under_merge_rate, pair_recall) take the spread of the same
// resamples over each run's sums per truth cluster, with each cluster's own correction;
// the pair metrics' share weighs π_c by (w_c²/π_c)².
TEST(Bootstrap, TheCommonScopesRecallSpreadIsEachClustersOwn) {
  std::vector<Comparison> c = random_runs(21, 80, 12, 2);
  std::vector<double> design(c[0].joined().n_a_clusters());
  for (size_t k = 0; k < design.size(); ++k) design[k] = k % 3 == 0 ? 1.0 : 2.5;  // π 1, 0.4
  std::vector<CellSums> s;
  std::vector<ClusterSums> alone;
  for (Comparison& x : c) {
    x.use_design({DesignKind::kGiven, design, false});
    s.push_back(cell_sums(x, nullptr));
    ASSERT_TRUE(s.back().alone.has_value());
    alone.push_back(*s.back().alone);
  }
  const BootstrapResult got = paired_bootstrap(s, {300, 4, 0.9});
  const BootstrapResult exact = paired_bootstrap(alone, {300, 4, 0.9});
  size_t checked = 0;
  // under_merge_rate = 1 − recall: its delta's interval is recall's, mirrored.
  for (const std::string name : {"recall", "under_merge_rate", "pair_recall"}) {
    const bool mirrored = name == "under_merge_rate";
    const auto at = [&](const BootstrapResult& r) {
      return uint32_t(std::find(r.metrics.begin(), r.metrics.end(), name) - r.metrics.begin());
    };
    for (const DeltaRow& d : got.rows) {
      if (d.metric != at(got)) continue;
      const DeltaRow& e = row_of(exact, d.run_a, d.run_b, d.group, mirrored ? "recall" : name);
      EXPECT_NEAR(d.spread.std_error, e.spread.std_error, 1e-12) << name;
      EXPECT_NEAR(d.spread.ci_low - d.delta,
                  mirrored ? e.delta - e.spread.ci_high : e.spread.ci_low - e.delta, 1e-12)
          << name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3u);
  // Only what is read is summed: precision and recall, then the pair sums.
  EXPECT_EQ(s[0].alone->names, (std::vector<std::string>{"precision", "recall"}));
  // The pair share by hand: Σ π·(w²/π)² / Σ (w²/π)² over the truth clusters.
  const CellTable& cells = c[0].cells();
  double num = 0, den = 0;
  for (size_t k = 0; k < cells.n_rows; ++k) {
    const double pi = 1 / design[k], term = cells.row_weight[k] * cells.row_weight[k] / pi;
    num += pi * term * term, den += term * term;
  }
  EXPECT_NEAR(s[0].pair_share, num / den, 1e-12);
  // Without stated probabilities nothing changes: no per-cluster sums.
  c[0].use_design({});
  EXPECT_FALSE(cell_sums(c[0], nullptr).alone.has_value());
}

TEST(Bootstrap, SampledShareFromTheDesignAndThePopulationsItems) {
  // Truth: clusters of 1, 2 and 3 items (6 items); the actual clustering adds 14 items
  // outside the truth: a population of 20 items.
  std::vector<int64_t> ti = {0, 1, 2, 3, 4, 5}, tc = {1, 2, 2, 3, 3, 3};
  std::vector<int64_t> ai(20), ac(20);
  for (int64_t i = 0; i < 20; ++i) ai[size_t(i)] = i, ac[size_t(i)] = i / 4;
  const JoinedClusterings j = join({"truth", cstest::ints(ti), cstest::ints(tc)},
                                   {"actual", cstest::ints(ai), cstest::ints(ac)}, nullptr);
  // Uniform: the truth's share of the items, 6 / 20.
  EXPECT_NEAR(sampled_share(j, {}, false), 6.0 / 20, 1e-15);
  // In proportion to size: π_c = n·|c| / items, each cluster's term d_c·|c| the same: the
  // mean of π_c, again the truth's share of the items.
  EXPECT_NEAR(sampled_share(j, inverse_size_design(j), false), 6.0 / 20, 1e-15);
  // Unequal terms: π_c weighted by (d_c·|c|)², here 1/π_c = 4 for the single item and 1
  // (drawn surely) for the others: (0.25·16 + 1·4 + 1·9) / (16 + 4 + 9).
  EXPECT_NEAR(sampled_share(j, {4.0, 1.0, 1.0}, true), 17.0 / 29, 1e-15);
  // Stated 1/π_c: n / Σ d_c, whatever the items.
  EXPECT_NEAR(sampled_share(j, {4.0, 4.0, 4.0}, true), 0.25, 1e-15);
  EXPECT_EQ(sampled_share(j, {0.5, 0.5, 0.5}, true), 1.0);  // more than all: all
  EXPECT_THROW(sampled_share(j, {1.0}, true), std::invalid_argument);
  // Each cluster's own: scaled to the population's 20 items, 1/|c| gives n·|c| / 20.
  EXPECT_EQ(inclusion_probabilities(j, {4.0, 1.0, 1.0}, true),
            (std::vector<double>{0.25, 1.0, 1.0}));
  const std::vector<double> pi = inclusion_probabilities(j, inverse_size_design(j), false);
  ASSERT_EQ(pi.size(), 3u);
  for (size_t c = 0; c < 3; ++c) EXPECT_NEAR(pi[c], 3.0 * double(c + 1) / 20, 1e-15);
}

// Groupings stacked into one bootstrap give each grouping's rows with the same bits as its
// own bootstrap, in either scope, with a slice that leaves some items out.
TEST(Bootstrap, StackedGroupingsGiveEachGroupingsOwnRows) {
  const std::vector<Comparison> runs = random_runs(21, 300, 40, 2);
  ItemGrouping some;  // three groups, every fifth item in none
  some.n_groups = 3;
  for (size_t i = 0; i < runs[0].joined().n_items(); ++i)
    some.item_group.push_back(i % 5 == 0 ? kNone : uint32_t(i % 3));
  const BootstrapOptions o{40, 9, 0.9};
  const auto both = [&](const std::vector<const ItemGrouping*>& gs) {
    std::vector<std::variant<ClusterSums, CellSums>> s;
    for (const Comparison& c : runs) s.push_back(run_sums(c, gs));
    std::vector<CellSums> cells;
    for (auto& x : s) cells.push_back(std::get<CellSums>(x));
    return paired_bootstrap(cells, o);
  };
  const BootstrapResult stacked = both({nullptr, &some});
  const BootstrapResult overall = both({nullptr}), sliced = both({&some});
  const auto same = [](const Spread& a, const Spread& b) {
    const auto eq = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    return eq(a.std_error, b.std_error) && eq(a.ci_low, b.ci_low) && eq(a.ci_high, b.ci_high) &&
           a.resamples == b.resamples && a.none == b.none;
  };
  size_t checked = 0;
  for (const DeltaRow& x : stacked.rows) {
    const BootstrapResult& own = x.group == 0 ? overall : sliced;
    const uint32_t group = x.group == 0 ? 0 : x.group - 1;
    for (const DeltaRow& y : own.rows)
      if (y.group == group && y.metric == x.metric) {
        EXPECT_EQ(x.delta, y.delta);
        EXPECT_TRUE(same(x.spread, y.spread)) << x.group << " " << stacked.metrics[x.metric];
        ++checked;
      }
  }
  EXPECT_EQ(checked, overall.rows.size() + sliced.rows.size());
  EXPECT_EQ(stacked.values.size(), overall.values.size() + sliced.values.size());
  EXPECT_THROW(run_sums(runs[0], std::vector<const ItemGrouping*>{}), std::invalid_argument);
}

// Four resamples drawn side by side are each lane's draws alone, counted as they come
// (7 places, and 65,536 + 3 in 256 KB) and by blocks of the four lanes (past
// kLaneDirectBytes), with slots small enough to overflow; each generator left where its
// own draws leave it.
TEST(Bootstrap, DrawsOfFourLanesAreEachLanesDraws) {
  static_assert(4 * (65536 + 3) <= intervals_detail::kLaneDirectBytes);
  static_assert(4 * (33 * 65536 + 7) > intervals_detail::kLaneDirectBytes);
  for (size_t clusters : {size_t(7), size_t(65536) + 3, size_t(33) * 65536 + 7}) {
    for (size_t slot : {size_t(65536 + 4096), size_t(60000), size_t(1)}) {
      const auto gen = [&](size_t l) { return detail::Random::stream(9, clusters + l); };
      detail::Random rng[4] = {gen(0), gen(1), gen(2), gen(3)};
      detail::Random alone[4] = {gen(0), gen(1), gen(2), gen(3)};
      std::vector<uint8_t> drawn(4 * clusters, 7), want(4 * clusters, 7);
      intervals_detail::DrawBlocks blocks;
      blocks.slot = slot;
      intervals_detail::draw_lanes(rng, clusters, drawn.data(), &blocks);
      for (size_t l = 0; l < 4; ++l)
        intervals_detail::draw(alone[l], clusters, want.data() + l, 4, &blocks);
      EXPECT_EQ(drawn, want) << clusters << " " << slot;
      for (size_t l = 0; l < 4; ++l) EXPECT_EQ(rng[l].next(), alone[l].next());
      if (4 * clusters > intervals_detail::kLaneDirectBytes && slot < 65536)
        EXPECT_FALSE(blocks.spill.empty());
    }
  }
}

// A resample's draws counted a block at a time are the draws counted as they come, with
// several blocks, a short last one, and slots small enough to overflow.
TEST(Bootstrap, DrawsCountedByBlocksAreTheDrawsAsTheyCome) {
  // Counted as they come (7, and 3·65536 + 5 in 590 KB), and by blocks (past kDirectBytes).
  static_assert(3 * (3 * 65536 + 5) <= intervals_detail::kDirectBytes);
  static_assert(3 * (6 * 65536 + 5) > intervals_detail::kDirectBytes);
  for (size_t clusters : {size_t(7), size_t(3) * 65536 + 5, size_t(6) * 65536 + 5}) {
    for (size_t slot : {size_t(65536 + 4096), size_t(60000), size_t(1)}) {
      detail::Random rng = detail::Random::stream(5, clusters), again = rng;
      // Every third byte a count, the others left as they were.
      std::vector<uint8_t> drawn(3 * clusters, 7), want(3 * clusters, 7);
      for (size_t p = 0; p < clusters; ++p) want[3 * p] = 0;
      intervals_detail::DrawBlocks blocks;
      blocks.slot = slot;
      intervals_detail::draw(rng, clusters, drawn.data(), 3, &blocks);
      for (size_t d = 0; d < clusters; ++d)
        ++want[3 * size_t((static_cast<unsigned __int128>(again.next()) * clusters) >> 64)];
      EXPECT_EQ(drawn, want) << clusters << " " << slot;
      if (3 * clusters > intervals_detail::kDirectBytes && slot < 65536)
        EXPECT_FALSE(blocks.spill.empty());
    }
  }
}
