#include <gtest/gtest.h>

#include "clusterscore/comparison.h"
#include "helpers.h"

using namespace clusterscore;
using cstest::ints;

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
