// The curve's tables and sort: the open-addressing index against std::map under random
// inserts and erases (backward-shift deletion must leave every other key findable), and
// the links' order and deduplication against a plain sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "clusterscore/error.h"
#include "comparison/comparison.h"
#include "curves/cell_index.h"
#include "curves/sorted_links.h"
#include "curves/threshold_curve.h"
#include "helpers.h"

namespace clusterscore::curves_detail {
namespace {

TEST(FlatIndex, AgreesWithAMapUnderRandomInsertsAndErases) {
  // Few components and truths so that keys collide in their home places and runs form; odd
  // seeds start from the smallest table, which grows (rehashing every key) as keys come.
  for (uint32_t seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(seed);
    FlatIndex<CellKey> index(seed % 2 == 0 ? 64 : 0);
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> oracle;
    for (int op = 0; op < 4000; ++op) {
      const CellKey k{uint32_t(rng() % 16), uint32_t(rng() % 8)};
      const auto key = std::make_pair(k.slot, k.truth);
      const bool present = oracle.count(key) > 0;
      if (present && rng() % 2) {
        index.erase(k);
        oracle.erase(key);
      } else if (!present && oracle.size() < 64) {
        const uint32_t value = uint32_t(rng() % 1000);
        index.insert(k, value);
        oracle[key] = value;
      }
      for (uint32_t r = 0; r < 16; ++r)
        for (uint32_t t = 0; t < 8; ++t) {
          const auto it = oracle.find({r, t});
          const uint32_t want = it == oracle.end() ? FlatIndex<CellKey>::kMissing : it->second;
          ASSERT_EQ(index.find({r, t}), want) << "seed " << seed << " op " << op;
        }
    }
  }
}

TEST(FlatIndex, GroupKeysTellWeightsApart) {
  FlatIndex<GroupKey> index(4);
  index.insert({1, 2.0, 1.0}, 7);
  index.insert({1, 2.0, 1.5}, 8);
  EXPECT_EQ(index.find({1, 2.0, 1.0}), 7u);
  EXPECT_EQ(index.find({1, 2.0, 1.5}), 8u);
  EXPECT_EQ(index.find({2, 2.0, 1.0}), FlatIndex<GroupKey>::kMissing);
  index.erase({1, 2.0, 1.0});
  EXPECT_EQ(index.find({1, 2.0, 1.0}), FlatIndex<GroupKey>::kMissing);
  EXPECT_EQ(index.find({1, 2.0, 1.5}), 8u);
}

// Scores of either sign, zeros of both signs and infinities; few nodes (many repeated
// pairs) and more (the links partitioned by more of lo's bits).
TEST(SortedLinks, EachPairOnceWithItsHighestScoreInDescendingOrder) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const uint32_t nodes : {300u, 70000u}) {
    std::mt19937 rng(3);
    std::vector<uint32_t> left, right;
    std::vector<double> score;
    for (int i = 0; i < 200000; ++i) {  // enough for many parts and every thread
      const uint32_t a = rng() % nodes, b = rng() % nodes;
      if (a == b) continue;
      const double special[] = {0.0, -0.0, inf, -inf};
      left.push_back(a), right.push_back(b);
      score.push_back(rng() % 10 == 0 ? special[rng() % 4] : double(int(rng() % 50) - 20) / 7);
    }
    const ScoredPairs pairs{left, right, score};
    check_pairs(nodes, pairs);
    const auto links = sorted_links(pairs, {});
    std::map<std::pair<uint32_t, uint32_t>, double> highest;
    for (size_t i = 0; i < score.size(); ++i) {
      const auto key = std::minmax(left[i], right[i]);
      auto [it, fresh] = highest.emplace(key, score[i]);
      if (!fresh) it->second = std::max(it->second, score[i]);
    }
    std::vector<std::tuple<double, uint32_t, uint32_t>> want;
    for (const auto& [key, s] : highest) want.emplace_back(-s, key.first, key.second);
    std::sort(want.begin(), want.end());
    ASSERT_EQ(links.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(links[i].score, -std::get<0>(want[i]));
      EXPECT_EQ(links[i].lo, std::get<1>(want[i]));
      EXPECT_EQ(links[i].hi, std::get<2>(want[i]));
    }
  }
}

TEST(SortedLinks, BadRowsAreNamed) {
  const std::vector<uint32_t> left{0, 1}, right{1, 1};
  const std::vector<double> score{0.5, 0.4};
  try {
    check_pairs(2, {left, right, score});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.row(), 1);
    EXPECT_STREQ(e.what(), "the pair names one item twice");
  }
  const std::vector<uint32_t> far{0, 5};
  EXPECT_THROW(check_pairs(2, {left, far, score}), std::invalid_argument);
}

// Every row of a curve equals the overall values of the clustering at its threshold, with
// real-valued weights (every cell a group of its own, so large clusters take the bounded
// path) and with few rows kept (rows skipped on bounds); under the sanitizers this runs
// the pass's tables and moves.
TEST(ThresholdCurve, EveryRowEqualsTheComparisonAtItsThreshold) {
  using cstest::ints;
  std::mt19937 rng(11);
  const size_t n = 600;
  std::vector<int64_t> items(n), truth(n), rows(n);
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i)
    items[i] = int64_t(i), truth[i] = int64_t(rng() % 120), rows[i] = int64_t(i),
    w[i] = 0.5 + double(rng() % 1000) / 700;
  std::vector<uint32_t> left, right;
  std::vector<double> score;
  for (int k = 0; k < 1500; ++k) {
    const uint32_t a = rng() % n, b = rng() % n;
    if (a == b) continue;
    left.push_back(a), right.push_back(b), score.push_back(double(rng() % 40) / 39);
  }
  const ItemsInput table{ints(items), w.data()};
  for (TruthScope scope : {TruthScope::kCommon, TruthScope::kEntities}) {
    // The actual side: one item per cluster, its row the item.
    const Comparison base({"truth", ints(items), ints(truth)}, {"actual", ints(items), ints(rows)},
                          &table, MetricFamily::kPointwise, scope);
    const ScoredPairs pairs{left, right, score};
    for (size_t max_points : {size_t(1000), size_t(8)}) {
      const CurveTable curve = threshold_curve(base, pairs, {{}, max_points});
      ASSERT_GT(curve.threshold.size(), max_points == 8 ? 5u : 30u);
      for (size_t r = 0; r < curve.threshold.size(); ++r) {
        const std::vector<uint32_t> label = components_at(n, pairs, curve.threshold[r]);
        const std::vector<int64_t> actual(label.begin(), label.end());
        const Comparison at({"truth", ints(items), ints(truth)},
                            {"actual", ints(items), ints(actual)}, &table, MetricFamily::kPointwise,
                            scope);
        const GroupTable want = at.overall();
        for (size_t k = 0; k < want.names.size(); ++k) {
          const double got = curve.metrics.column(want.names[k])[r], value = want.columns[k][0];
          if (std::isnan(value)) {
            EXPECT_TRUE(std::isnan(got)) << want.names[k];
          } else {
            EXPECT_NEAR(got, value, 1e-12) << want.names[k] << " at " << curve.threshold[r];
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace clusterscore::curves_detail
