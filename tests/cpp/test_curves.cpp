// The curve's tables and sort: the open-addressing index against std::map under random
// inserts and erases (backward-shift deletion must leave every other key findable), and
// the links' order and deduplication against a plain sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "clusterscore/error.h"
#include "curves/cell_index.h"
#include "curves/sorted_links.h"

namespace clusterscore::curves_detail {
namespace {

TEST(FlatIndex, AgreesWithAMapUnderRandomInsertsAndErases) {
  // Few roots and truths so that keys collide in their home slots and runs form.
  for (uint32_t seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(seed);
    FlatIndex<CellKey> index(64);
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> oracle;
    for (int op = 0; op < 4000; ++op) {
      const CellKey k{uint32_t(rng() % 16), uint32_t(rng() % 8)};
      const auto key = std::make_pair(k.root, k.truth);
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

TEST(SortedLinks, EachPairOnceWithItsHighestScoreInDescendingOrder) {
  std::mt19937 rng(3);
  std::vector<uint32_t> left, right;
  std::vector<double> score;
  for (int i = 0; i < 200000; ++i) {  // enough to sort in parts on every thread
    const uint32_t a = rng() % 300, b = rng() % 300;
    if (a == b) continue;
    left.push_back(a), right.push_back(b), score.push_back(double(rng() % 50) / 7);
  }
  const ScoredPairs pairs{left, right, score};
  check_pairs(300, pairs);
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

}  // namespace
}  // namespace clusterscore::curves_detail
