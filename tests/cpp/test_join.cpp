#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "clusterscore/error.h"
#include "comparison/comparison.h"
#include "helpers.h"
#include "input/id_chunks.h"

using namespace clusterscore;
using cstest::error_of;
using cstest::ints;
using cstest::repeat_of;

TEST(Join, UnionOfItemsWithSidesAndWeights) {
  std::vector<int64_t> ai = {5, 6, 7}, ac = {1, 1, 2}, bi = {7, 8, 5}, bc = {3, 3, 4};
  std::vector<int64_t> ti = {8, 5, 99};
  std::vector<double> tw = {2.0, 3.0, 4.0};
  ClusteringInput a{"truth", ints(ai), ints(ac)}, b{"actual", ints(bi), ints(bc)};
  ItemsInput t{ints(ti), tw.data()};
  JoinedClusterings j = join(a, b, &t);
  ASSERT_EQ(j.n_items(), 4u);  // 5, 6, 7 from A then 8 from B
  EXPECT_EQ(j.a_cluster, (BigVector<uint32_t>{0, 0, 1, kNone}));
  EXPECT_EQ(j.b_cluster, (BigVector<uint32_t>{1, kNone, 0, 0}));
  EXPECT_EQ(j.weight, (BigVector<double>{3.0, 1.0, 1.0, 2.0}));
  EXPECT_EQ(j.items_table_unmatched, 1u);
  EXPECT_EQ(j.b_cluster_first_row, (BigVector<uint64_t>{0, 2}));
}

TEST(Join, ClusterCodesJoinAsTheIdsTheyStandFor) {
  // Codes numbered in order of first appearance, as column_codes() numbers the ids.
  std::vector<int64_t> ai = {5, 6, 7, 9}, ac = {40, 30, 40, 10}, bi = {7, 8, 5}, bc = {3, 3, 4};
  const ColumnCodes codes = column_codes(ints(ac));
  EXPECT_EQ(codes.code, (BigVector<uint32_t>{0, 1, 0, 2}));
  EXPECT_EQ(codes.first_row, (BigVector<uint64_t>{0, 1, 3}));
  ClusteringInput by_ids{"truth", ints(ai), ints(ac)}, b{"actual", ints(bi), ints(bc)};
  ClusteringInput by_codes{"truth", ints(ai), IdColumn{.size = ai.size()}, codes.code.data()};
  const JoinedClusterings want = join(by_ids, b, nullptr), got = join(by_codes, b, nullptr);
  EXPECT_EQ(got.a_cluster, want.a_cluster);
  EXPECT_EQ(got.a_cluster_first_row, want.a_cluster_first_row);
  EXPECT_EQ(got.b_cluster, want.b_cluster);
  // A code past the next new one is not a numbering by first appearance.
  const std::vector<uint32_t> skipping = {0, 2, 1, 0};
  by_codes.cluster_codes = skipping.data();
  EXPECT_THROW(join(by_codes, b, nullptr), std::invalid_argument);
}

TEST(Join, DuplicateItemsNameRoleAndRows) {
  std::vector<int64_t> ai = {1, 2, 1}, ac = {1, 1, 1}, bi = {1, 2, 3, 2}, bc = {0, 0, 0, 0};
  InputError e = error_of(
      [&] { join({"truth", ints(ai), ints(ac)}, {"actual", ints(bi), ints(bc)}, nullptr); });
  EXPECT_EQ(e.source(), "truth");
  EXPECT_EQ(e.row(), 2);
  EXPECT_EQ(repeat_of(e), "item 1 appears twice (rows 0 and 2)");
  std::vector<int64_t> ai2 = {1, 2};
  e = error_of(
      [&] { join({"truth", ints(ai2), ints(ai2)}, {"actual", ints(bi), ints(bc)}, nullptr); });
  EXPECT_EQ(e.source(), "actual");
  EXPECT_EQ(e.row(), 3);
  EXPECT_EQ(repeat_of(e), "item 2 appears twice (rows 1 and 3)");
}

TEST(Join, BadWeightsAndDuplicateItemsTableRows) {
  std::vector<int64_t> ai = {1, 2}, ac = {1, 1}, ti = {1, 2};
  ClusteringInput a{"truth", ints(ai), ints(ac)};
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    std::vector<double> w = {1.0, bad};
    ItemsInput t{ints(ti), w.data()};
    InputError e = error_of([&] { join(a, a, &t); });
    EXPECT_EQ(e.source(), "items");
    EXPECT_EQ(e.row(), 1);
  }
  std::vector<int64_t> dup = {2, 1, 2};
  ItemsInput t{ints(dup), nullptr};
  InputError e = error_of([&] { join(a, a, &t); });
  EXPECT_EQ(e.row(), 2);
  EXPECT_EQ(repeat_of(e), "item 2 appears twice (rows 0 and 2)");
}

TEST(Join, NoCommonItemsIsAnError) {
  std::vector<int64_t> ai = {1, 2}, bi = {3, 4}, c = {0, 0};
  InputError e = error_of([&] {
    Comparison({"truth", ints(ai), ints(c)}, {"actual", ints(bi), ints(c)}, nullptr,
               MetricFamily::kPointwise);
  });
  EXPECT_EQ(e.row(), -1);
  EXPECT_NE(std::string(e.what()).find("no item is in both truth"), std::string::npos);
}

TEST(Join, MixedIdKindsAreAProgrammingError) {
  std::vector<int64_t> ai = {1}, c = {0};
  cstest::Strings s({"1"});
  EXPECT_THROW(join({"truth", ints(ai), ints(c)}, {"actual", s.col(), ints(c)}, nullptr),
               std::invalid_argument);
}
