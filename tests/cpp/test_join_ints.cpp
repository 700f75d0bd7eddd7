// The radix-partitioned join of integer ids against a std::map oracle, with partitions
// from one row (many partitions, growing tables) to all rows (one partition).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>

#include "clusterscore/error.h"
#include "detail/hash.h"
#include "helpers.h"
#include "join_parts.h"

using namespace clusterscore;
using cstest::ints;

namespace {

struct Case {
  std::vector<int64_t> a_items, a_clusters, b_items, b_clusters, t_items;
  std::vector<double> t_weights;
};

// Ids drawn from a universe a little larger than each side, so that A-only, B-only,
// common and items-table-only ids all occur; no repeats within a column.
Case random_case(std::mt19937_64& rng, size_t universe) {
  std::vector<int64_t> ids(universe);
  for (auto& id : ids) id = int64_t(rng()) >> int(rng() % 60);  // spread over magnitudes
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto pick = [&](double share) {
    std::vector<int64_t> out;
    for (int64_t id : ids)
      if (std::uniform_real_distribution<>(0, 1)(rng) < share) out.push_back(id);
    std::shuffle(out.begin(), out.end(), rng);
    return out;
  };
  Case c;
  c.a_items = pick(0.7);
  c.b_items = pick(0.7);
  c.t_items = pick(0.8);
  for (size_t i = 0; i < c.a_items.size(); ++i) c.a_clusters.push_back(int64_t(rng() % 7));
  for (size_t i = 0; i < c.b_items.size(); ++i) c.b_clusters.push_back(int64_t(rng() % 5) * 1000);
  for (size_t i = 0; i < c.t_items.size(); ++i) c.t_weights.push_back(0.5 + double(rng() % 100));
  return c;
}

// What join() must produce, from first principles.
JoinedClusterings oracle(const Case& c) {
  JoinedClusterings j;
  std::map<int64_t, uint32_t> item, a_code, b_code;
  for (size_t r = 0; r < c.a_items.size(); ++r) {
    item[c.a_items[r]] = uint32_t(r);
    auto [it, fresh] = a_code.emplace(c.a_clusters[r], uint32_t(a_code.size()));
    if (fresh) j.a_cluster_first_row.push_back(r);
    j.a_cluster.push_back(it->second);
    j.b_cluster.push_back(kNone);
  }
  for (size_t r = 0; r < c.b_items.size(); ++r) {
    auto [cl, fresh] = b_code.emplace(c.b_clusters[r], uint32_t(b_code.size()));
    if (fresh) j.b_cluster_first_row.push_back(r);
    auto [it, new_item] = item.emplace(c.b_items[r], uint32_t(j.a_cluster.size()));
    if (new_item) {
      j.a_cluster.push_back(kNone);
      j.b_cluster.push_back(kNone);
    }
    j.b_cluster[it->second] = cl->second;
  }
  j.weight.assign(j.a_cluster.size(), 1.0);
  j.items_row.assign(j.a_cluster.size(), kNone);
  for (size_t r = 0; r < c.t_items.size(); ++r) {
    auto it = item.find(c.t_items[r]);
    if (it == item.end()) {
      ++j.items_table_unmatched;
      continue;
    }
    j.items_row[it->second] = uint32_t(r);
    j.weight[it->second] = c.t_weights[r];
  }
  j.items_table_rows = c.t_items.size();
  return j;
}

JoinedClusterings run(const Case& c, size_t partition_rows) {
  ClusteringInput a{"truth", ints(c.a_items), ints(c.a_clusters)};
  ClusteringInput b{"actual", ints(c.b_items), ints(c.b_clusters)};
  ItemsInput t{ints(c.t_items), c.t_weights.data()};
  JoinedClusterings j;
  join_detail::join_int_ids(a, b, &t, partition_rows, &j);
  return j;
}

InputError error_of(const Case& c, size_t partition_rows) {
  try {
    run(c, partition_rows);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return InputError("", -1, "");
}

}  // namespace

TEST(JoinInts, AgreesWithOracleForAnyPartitionSize) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const Case c = random_case(rng, 1 + rng() % 3000);
    const JoinedClusterings want = oracle(c);
    // 1000 rows: partitions big enough to be scattered in one pass, with room to spare.
    for (size_t rows : {size_t(1), size_t(3), size_t(64), size_t(1000), size_t(1) << 20}) {
      const JoinedClusterings got = run(c, rows);
      ASSERT_EQ(got.a_cluster, want.a_cluster) << "round " << round << " rows " << rows;
      ASSERT_EQ(got.b_cluster, want.b_cluster);
      ASSERT_EQ(got.weight, want.weight);
      ASSERT_EQ(got.items_row, want.items_row);
      ASSERT_EQ(got.a_cluster_first_row, want.a_cluster_first_row);
      ASSERT_EQ(got.b_cluster_first_row, want.b_cluster_first_row);
      ASSERT_EQ(got.items_table_unmatched, want.items_table_unmatched);
      ASSERT_EQ(got.items_table_rows, want.items_table_rows);
    }
  }
}

// The inverse of detail::mix64, to make ids that hash into a chosen partition.
uint64_t unmix64(uint64_t x) {
  auto inverse = [](uint64_t c) {  // of an odd c, mod 2^64 (Newton's iteration)
    uint64_t v = c;
    for (int i = 0; i < 6; ++i) v *= 2 - c * v;
    return v;
  };
  x ^= (x >> 31) ^ (x >> 62);
  x *= inverse(0x94D049BB133111EBull);
  x ^= (x >> 27) ^ (x >> 54);
  x *= inverse(0xBF58476D1CE4E5B9ull);
  x ^= (x >> 30) ^ (x >> 60);
  return x;
}

TEST(JoinInts, CrowdedPartitionFallsBackToCounting) {
  // 20,000 rows in 8 partitions have room for 2,964 each; 3,000 ids hashed into
  // partition 0 overflow it, and the scatter starts again after counting.
  std::mt19937_64 rng(11);
  Case c = random_case(rng, 24000);
  ASSERT_GT(c.a_items.size(), 12000u);
  for (size_t i = 0; i < 3000; ++i) {
    const uint64_t id = unmix64((rng() >> 3) | 1);  // top 3 hash bits 0: partition 0
    c.a_items[i] = int64_t(id);
    ASSERT_EQ(detail::mix64(id) >> 61, 0u);
  }
  std::sort(c.a_items.begin(), c.a_items.end());
  c.a_items.erase(std::unique(c.a_items.begin(), c.a_items.end()), c.a_items.end());
  c.a_clusters.resize(c.a_items.size());
  c.b_items.insert(c.b_items.end(), c.a_items.begin(), c.a_items.begin() + 1000);
  std::sort(c.b_items.begin(), c.b_items.end());
  c.b_items.erase(std::unique(c.b_items.begin(), c.b_items.end()), c.b_items.end());
  c.b_clusters.resize(c.b_items.size(), 3000);
  std::shuffle(c.a_items.begin(), c.a_items.end(), rng);
  const JoinedClusterings want = oracle(c), got = run(c, 4096);
  EXPECT_EQ(got.a_cluster, want.a_cluster);
  EXPECT_EQ(got.b_cluster, want.b_cluster);
  EXPECT_EQ(got.weight, want.weight);
  EXPECT_EQ(got.items_row, want.items_row);
}

TEST(JoinInts, EarliestRepeatIsReportedWithBothRows) {
  Case c{{10, 11, 12, 11, 10}, {0, 0, 0, 0, 0}, {10, 13}, {0, 0}, {}, {}};
  for (size_t rows : {size_t(1), size_t(100)}) {
    InputError e = error_of(c, rows);
    EXPECT_EQ(e.source(), "truth");
    EXPECT_STREQ(e.what(), "item 11 appears twice (rows 1 and 3)");
  }
  // In B: a repeat of an item of A, and of an item only in B; the earlier one wins.
  c = Case{{10, 11}, {0, 0}, {13, 10, 14, 13, 10}, {0, 0, 0, 0, 0}, {}, {}};
  for (size_t rows : {size_t(1), size_t(100)}) {
    InputError e = error_of(c, rows);
    EXPECT_EQ(e.source(), "actual");
    EXPECT_STREQ(e.what(), "item 13 appears twice (rows 0 and 3)");
  }
}

TEST(JoinInts, ItemsTableRepeatsOfEveryKindAreFound) {
  // Item 10 is in A and B, 13 only in B, 99 in neither.
  const std::vector<std::vector<int64_t>> tables = {{10, 5, 10}, {13, 5, 13}, {99, 5, 99}};
  for (const auto& t : tables) {
    Case c{{10, 11}, {0, 0}, {13, 10}, {0, 0}, t, {1, 1, 1}};
    for (size_t rows : {size_t(1), size_t(100)}) {
      InputError e = error_of(c, rows);
      EXPECT_EQ(e.source(), "items");
      EXPECT_EQ(e.row(), 2);
    }
  }
}

TEST(JoinInts, EveryKindOfBadWeightIsFoundWhileScattering) {
  // Weights are checked as the items table is partitioned, in one pass (1000 rows a
  // partition) or counted first (one partition): the first bad row is named either way.
  std::mt19937_64 rng(13);
  const Case good = random_case(rng, 6000);
  ASSERT_GT(good.t_items.size(), 4000u);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, 0.0, -1.0}) {
    Case c = good;
    c.t_weights[3000] = bad;
    c.t_weights[3500] = bad;
    for (size_t rows : {size_t(1000), size_t(1) << 20}) {
      InputError e = error_of(c, rows);
      EXPECT_EQ(e.source(), "items");
      EXPECT_EQ(e.row(), 3000) << bad << " rows " << rows;
    }
  }
  EXPECT_NO_THROW(run(good, 1000));
}

TEST(JoinInts, RepeatsComeBeforeBadWeights) {
  // join() reports clustering repeats first, then weights, then items-table repeats.
  Case c{{10, 11}, {0, 0}, {10, 10}, {0, 0}, {10, 10}, {-1, 1}};
  EXPECT_EQ(error_of(c, 1).source(), "actual");
  c.b_items = {10, 11};
  EXPECT_STREQ(error_of(c, 1).what(), "weight -1 of item 10 is not a finite number > 0");
  c.t_weights = {1, 1};
  EXPECT_STREQ(error_of(c, 1).what(), "item 10 appears twice (rows 0 and 1)");
}
