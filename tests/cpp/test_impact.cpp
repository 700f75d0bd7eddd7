#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "cells/cell_weights.h"
#include "comparison/comparison.h"
#include "helpers.h"
#include "metrics/impact.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

using namespace clusterscore;
using cstest::ints;

namespace {

// The cells of 20,000 items in `clusters` clusters, one item in `moved_every` moved to a
// random other cluster, with weights that round.
CellTable random_cells(uint64_t seed, uint32_t clusters, uint64_t moved_every) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> rows(20000), cols(20000);
  std::vector<double> w(20000);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i] = uint32_t(rng() % clusters);
    cols[i] = rng() % moved_every == 0 ? uint32_t(rng() % clusters) : rows[i];
    w[i] = 0.1 + double(rng() % 1000) / 7.0;
  }
  return build_cells(rows, cols, w.data(), clusters, clusters, nullptr);
}

}  // namespace

TEST(Impact, SplitAndMergeOfOneItem) {
  // Base {1,2,3} {4}; Exp {1,2} {3,4}: item 3 is split from {1,2} and merged with {4}.
  std::vector<int64_t> items = {1, 2, 3, 4}, base = {0, 0, 0, 1}, exp = {5, 5, 6, 6};
  Comparison c({"base", ints(items), ints(base)}, {"exp", ints(items), ints(exp)}, nullptr,
               MetricFamily::kImpact);
  const MetricTable& m = c.cell_metrics();
  const uint32_t cell3 = c.cell_of_item()[2];
  EXPECT_DOUBLE_EQ(m.at(cell3, m.column("split_distance")), 2.0 / 4);  // B=3 E=2 X=1 U=4
  EXPECT_DOUBLE_EQ(m.at(cell3, m.column("merge_distance")), 1.0 / 4);
  EXPECT_DOUBLE_EQ(m.at(cell3, m.column("split_rate")), 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.at(cell3, m.column("merge_rate")), 1.0 / 2);
  const MetricTable sizes = c.cell_counts();
  EXPECT_EQ(sizes.names, (std::vector<std::string>{"B", "E", "X", "U"}));
  const double want[] = {3, 2, 1, 4};
  for (size_t q = 0; q < 4; ++q) EXPECT_DOUBLE_EQ(sizes.at(cell3, q), want[q]);
  ImpactSummary s = c.impact();
  EXPECT_EQ(s.affected_items, 4u);
  EXPECT_EQ(s.base_clusters_split, 1u);
  EXPECT_EQ(s.exp_clusters_merged, 1u);
  GroupTable o = c.overall();
  const double jd = o.column("jaccard_distance")[0];
  EXPECT_NEAR(jd, o.column("split_distance")[0] + o.column("merge_distance")[0], 1e-15);
  EXPECT_NEAR(o.column("jaccard_index")[0] + jd, 1.0, 1e-15);
  EXPECT_NEAR(s.affected_jaccard_index + s.unaffected_jaccard_index, o.column("jaccard_index")[0],
              1e-15);
}

TEST(Impact, IdenticalClusteringsChangeNothing) {
  std::vector<int64_t> items = {1, 2, 3}, base = {0, 0, 1}, exp = {9, 9, 8};
  Comparison c({"base", ints(items), ints(base)}, {"exp", ints(items), ints(exp)}, nullptr,
               MetricFamily::kImpact);
  GroupTable o = c.overall();
  EXPECT_EQ(o.column("jaccard_distance")[0], 0.0);
  EXPECT_EQ(c.impact().affected_items, 0u);
  EXPECT_EQ(c.impact().unaffected_jaccard_index, 1.0);
}

// The kernel's B − X and E − X are plain subtractions; where the cell is its whole row
// (column) they must be exactly 0, as the counts say, whatever the weights' rounding.
TEST(CellWeights, AWholeRowOrColumnLeavesExactlyZero) {
  const CellTable cells = random_cells(7, 3000, 50);  // many whole rows
  size_t whole_rows = 0, whole_cols = 0;
  for (size_t k = 0; k < cells.size(); ++k) {
    const auto x = detail::cell_weights(cells, cells.col_weight, k);
    if (!detail::splits_row(cells, k)) {
      EXPECT_EQ(x.bx, 0.0) << k;
      ++whole_rows;
    } else {
      EXPECT_GT(x.bx, 0.0) << k;
    }
    if (!detail::merges_column(cells, k)) {
      EXPECT_EQ(x.ex, 0.0) << k;
      ++whole_cols;
    }
  }
  EXPECT_GT(whole_rows, 100u);
  EXPECT_GT(whole_cols, 100u);
}

// jaccard_index, jaccard_distance, under_merge_rate ≡ split_rate and over_merge_rate ≡
// merge_rate are one formula (detail::overlap_shares): on the same cells, truth as Base and
// actual as Exp, the two families give the same bits, on weights that round.
TEST(CellWeights, PointwiseAndImpactShareTheirOverlapShares) {
  const CellTable cells = random_cells(11, 2000, 4);
  const MetricTable p = pointwise_cells(cells, common_marginals(cells));
  const MetricTable q = impact_cells(cells);
  using P = detail::PointwiseColumn;
  const std::pair<size_t, size_t> same[] = {{P::kJaccardIndex, ImpactColumn::kJaccardIndex},
                                            {P::kJaccardDistance, ImpactColumn::kJaccardDistance},
                                            {P::kUnderMergeRate, ImpactColumn::kSplitRate},
                                            {P::kOverMergeRate, ImpactColumn::kMergeRate}};
  size_t inexact = 0;
  for (size_t k = 0; k < cells.size(); ++k) {
    for (const auto& [a, b] : same) EXPECT_EQ(p.at(k, a), q.at(k, b)) << k << " " << a;
    // Where X + (E − X) rounds away from E, the former formula fp / (tp + fp) differed.
    const auto x = detail::cell_weights(cells, cells.col_weight, k);
    inexact += x.x + x.ex != x.e;
  }
  EXPECT_GT(inexact, 0u);
}
