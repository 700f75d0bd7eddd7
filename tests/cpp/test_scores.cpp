// The value API (include/clusterscore/scores.h) returns exactly what the core's own tables hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "classic/classic_cells.h"
#include "clusterscore/scores.h"
#include "comparison/comparison.h"
#include "helpers.h"
#include "judging/sampling.h"

namespace cs = clusterscore;

namespace {

// Two random clusterings of overlapping items (some only in one), and weights for both.
struct Random {
  std::vector<int64_t> a_items, a_clusters, b_items, b_clusters, w_items;
  std::vector<double> w;
  explicit Random(uint32_t seed) {
    std::mt19937_64 rng(seed);
    for (int64_t i = 0; i < 3000; ++i) {
      const uint64_t r = rng() % 10;
      if (r != 0) a_items.push_back(i), a_clusters.push_back(int64_t(rng() % 200));
      if (r != 1) b_items.push_back(i), b_clusters.push_back(int64_t(rng() % 150));
      w_items.push_back(i), w.push_back(0.5 + double(rng() % 1000) / 500);
    }
  }
  cs::ClusteringInput a() const {
    return {"truth", cstest::ints(a_items), cstest::ints(a_clusters)};
  }
  cs::ClusteringInput b() const {
    return {"actual", cstest::ints(b_items), cstest::ints(b_clusters)};
  }
  cs::ItemsInput items() const { return {cstest::ints(w_items), w.data()}; }
};

void expect_same(const cs::GroupTable& want, const cs::ScoreTable& got) {
  ASSERT_EQ(want.names, got.names);
  ASSERT_EQ(want.size(), got.size());
  for (size_t r = 0; r < want.size(); ++r) {
    EXPECT_EQ(want.group[r], got.group[r]);
    EXPECT_EQ(want.items[r], got.items[r]);
    EXPECT_EQ(want.weight[r], got.weight[r]);
    for (size_t k = 0; k < want.names.size(); ++k) {
      const double x = want.columns[k][r], y = got.columns[k][r];
      EXPECT_TRUE(x == y || (x != x && y != y)) << want.names[k] << " row " << r;
    }
  }
}

}  // namespace

TEST(Scores, EvaluateReturnsTheCoreTablesInBothScopesWithClusterWeights) {
  const Random in(1);
  const cs::ItemsInput items = in.items();
  for (cs::TruthScope scope : {cs::TruthScope::kCommon, cs::TruthScope::kEntities}) {
    cs::Comparison c(in.a(), in.b(), &items, cs::MetricFamily::kPointwise, scope);
    std::vector<double> design(c.joined().a_cluster_first_row.size());
    for (size_t k = 0; k < design.size(); ++k) design[k] = 1.0 + double(k % 7);
    c.set_design(design);
    const cs::Evaluation e = cs::evaluate(in.a(), in.b(), &items, {scope, design});
    expect_same(c.overall(), e.overall);
    expect_same(c.by_cluster(cs::Side::kA), e.per_truth_cluster);
    expect_same(c.by_cluster(cs::Side::kB), e.per_actual_cluster);
    EXPECT_EQ(e.coverage.common_items, c.coverage().common_items);
    EXPECT_EQ(e.truth_cluster_row.size(), c.joined().a_cluster_first_row.size());
    EXPECT_EQ(e.actual_cluster_row.back(), c.joined().b_cluster_first_row.back());
  }
}

TEST(Scores, ClusterRowsNameEachGroupsCluster) {
  const Random in(2);
  const cs::Evaluation e = cs::evaluate(in.a(), in.b());
  for (size_t r = 0; r < e.per_truth_cluster.size(); ++r) {
    const uint64_t row = e.truth_cluster_row[e.per_truth_cluster.group[r]];
    uint64_t n = 0;  // common items of that truth cluster, counted by hand
    for (size_t i = 0; i < in.a_items.size(); ++i)
      if (in.a_clusters[i] == in.a_clusters[row] &&
          std::find(in.b_items.begin(), in.b_items.end(), in.a_items[i]) != in.b_items.end())
        ++n;
    EXPECT_EQ(e.per_truth_cluster.items[r], n);
  }
}

TEST(Scores, AColumnTheTableLacksIsNamed) {
  const Random in(3);
  const cs::Evaluation e = cs::evaluate(in.a(), in.b());
  EXPECT_EQ(e.overall.column("precision").size(), 1u);
  try {
    (void)e.overall.column("split_distance");
    ADD_FAILURE() << "no exception";
  } catch (const std::out_of_range& x) {
    EXPECT_NE(std::string(x.what()).find("'split_distance'"), std::string::npos) << x.what();
  }
}

TEST(Scores, BadClusterWeightsAreRefused) {
  const Random in(4);
  EXPECT_THROW(cs::evaluate(in.a(), in.b(), nullptr, {cs::TruthScope::kCommon, {1.0, 2.0}}),
               std::invalid_argument);
}

TEST(Scores, DiffAndItsSampleAreTheCores) {
  const Random in(5);
  const cs::ItemsInput items = in.items();
  const cs::Comparison c(in.a(), in.b(), &items, cs::MetricFamily::kImpact);
  const cs::DiffResult d = cs::diff(in.a(), in.b(), &items);
  expect_same(c.overall(), d.overall);
  expect_same(c.by_cluster(cs::Side::kA), d.per_base_cluster);
  expect_same(c.by_cluster(cs::Side::kB), d.per_exp_cluster);
  EXPECT_EQ(d.summary.affected_items, c.impact().affected_items);
  EXPECT_EQ(d.totals.diff_mass, cs::sample_totals(c).diff_mass);
  const cs::SampleOptions o{500, 100, cs::SampleMode::kStratified, 9};
  const cs::PairSampleTable want = cs::sample_pairs(c, o);
  const cs::PairSampleTable got = cs::sample_pairs(in.a(), in.b(), &items, o);
  EXPECT_EQ(want.item_i, got.item_i);
  EXPECT_EQ(want.item_j, got.item_j);
  EXPECT_EQ(want.draws, got.draws);
  EXPECT_EQ(want.U, got.U);
}

TEST(Scores, ClassicScoresOfLabelsAreThoseOfTheirCells) {
  const std::vector<int64_t> a = {1, 1, 2, 2, 3, 3, 3}, b = {5, 5, 5, 6, 6, 7, 7};
  const cs::LabelCells lc = cs::cells_from_labels(cstest::ints(a), cstest::ints(b), nullptr);
  const cs::ClassicScores want = cs::classic_scores(lc.cells, {});
  const cs::ClassicScores got = cs::classic_scores(cstest::ints(a), cstest::ints(b), nullptr, {});
  EXPECT_EQ(want.rand_score, got.rand_score);
  EXPECT_EQ(want.adjusted_rand_score, got.adjusted_rand_score);
  EXPECT_EQ(want.clustering_error, got.clustering_error);
  EXPECT_EQ(want.bcubed_f_score, got.bcubed_f_score);
}

TEST(Scores, FlowsNameTheirClustersByFirstRowAndItemRowsAreChecked) {
  const std::vector<int64_t> items = {1, 2, 3, 4}, base = {7, 7, 8, 8}, exp = {5, 6, 6, 6};
  const cs::ClusteringInput b{"base", cstest::ints(items), cstest::ints(base)};
  const cs::ClusteringInput e{"exp", cstest::ints(items), cstest::ints(exp)};
  const cs::ItemsInput w{cstest::ints(items), nullptr};
  const cs::Comparison c(b, e, &w, cs::MetricFamily::kImpact);
  const cs::ClusterFlows f = c.flows();
  ASSERT_EQ(f.flows.row.size(), 3u);  // {1}→5, {2}→6, {3,4}→6: every cell changed
  for (size_t n = 0; n < 3; ++n) {
    EXPECT_EQ(base[f.a_cluster_row[n]], base[c.joined().a_cluster_first_row[f.flows.row[n]]]);
    EXPECT_EQ(exp[f.b_cluster_row[n]], exp[c.joined().b_cluster_first_row[f.flows.col[n]]]);
  }
  EXPECT_EQ(exp[f.b_cluster_row[0]], 6);  // the largest flow: {3, 4} from 8 into 6
  EXPECT_EQ(base[f.a_cluster_row[0]], 8);
  const std::vector<uint32_t> ask = {3, 0};
  EXPECT_EQ(c.items_rows(ask), (std::vector<uint32_t>{3, 0}));
  const std::vector<uint32_t> bad = {4};
  EXPECT_THROW(c.items_rows(bad), std::out_of_range);
  const cs::Comparison p(b, e, nullptr, cs::MetricFamily::kPointwise);
  EXPECT_THROW(p.flows(), std::logic_error);
  EXPECT_EQ(p.items_rows(ask), (std::vector<uint32_t>{cs::kNone, cs::kNone}));
}
