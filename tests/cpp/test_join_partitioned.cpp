// The radix-partitioned join against a std::map oracle, with partitions from one row
// (many partitions, growing tables) to all rows (one partition): integer ids, and string
// ids, whose hashes may collide (weak hashes make them), which the join must detect.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "clusterscore/error.h"
#include "clusterscore/threads.h"
#include "detail/hash.h"
#include "helpers.h"
#include "join/parts.h"

using namespace clusterscore;
using cstest::error_of;
using cstest::ints;
using cstest::repeat_of;

namespace {

struct Case {
  std::vector<int64_t> a_items, a_clusters, b_items, b_clusters, t_items;
  std::vector<double> t_weights;
};

// Ids drawn from a universe a little larger than each side, so that A-only, B-only,
// common and items-table-only ids all occur; no repeats within a column. Each column
// holds about its share of the universe.
Case random_case(std::mt19937_64& rng, size_t universe, double a_share = 0.7, double b_share = 0.7,
                 double t_share = 0.8) {
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
  c.a_items = pick(a_share);
  c.b_items = pick(b_share);
  c.t_items = pick(t_share);
  for (size_t i = 0; i < c.a_items.size(); ++i) c.a_clusters.push_back(int64_t(rng() % 7));
  for (size_t i = 0; i < c.b_items.size(); ++i) c.b_clusters.push_back(int64_t(rng() % 5) * 1000);
  for (size_t i = 0; i < c.t_items.size(); ++i) c.t_weights.push_back(0.5 + double(rng() % 100));
  return c;
}

// What join() must produce, from first principles.
JoinedClusterings oracle(const Case& c) {
  JoinedClusterings j;
  std::map<int64_t, uint32_t> a_code, b_code;
  std::unordered_map<int64_t, uint32_t> item;  // millions of ids in the longest case
  item.reserve(c.a_items.size() + c.b_items.size());
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

// join_partitioned() on the case; without the items table if `with_items` is false
// (every weight 1, no items-table rows).
JoinedClusterings run(const Case& c, size_t partition_rows, bool with_items = true) {
  ClusteringInput a{"truth", ints(c.a_items), ints(c.a_clusters)};
  ClusteringInput b{"actual", ints(c.b_items), ints(c.b_clusters)};
  ItemsInput t{ints(c.t_items), c.t_weights.data()};
  JoinedClusterings j;
  EXPECT_TRUE(
      join_detail::join_partitioned(a, b, with_items ? &t : nullptr, partition_rows, nullptr, &j));
  return j;
}

// The case's ids as strings ("item-" and the number): an injective renaming, so the
// oracle's numbering holds for them too.
struct StringCase {
  explicit StringCase(const Case& c)
      : a_items(names(c.a_items)), b_items(names(c.b_items)), t_items(names(c.t_items)) {}
  static cstest::Strings names(const std::vector<int64_t>& ids) {
    std::vector<std::string> out;
    for (int64_t id : ids) out.push_back("item-" + std::to_string(id));
    return cstest::Strings(out);
  }
  cstest::Strings a_items, b_items, t_items;
};

// join_partitioned() on the case's ids as strings: whether it could join them, and how.
std::pair<bool, JoinedClusterings> run_strings(const Case& c, size_t partition_rows,
                                               detail::StringHashFn weak_hash) {
  const StringCase s(c);
  ClusteringInput a{"truth", s.a_items.col(), ints(c.a_clusters)};
  ClusteringInput b{"actual", s.b_items.col(), ints(c.b_clusters)};
  ItemsInput t{s.t_items.col(), c.t_weights.data()};
  JoinedClusterings j;
  const bool joined = join_detail::join_partitioned(a, b, &t, partition_rows, weak_hash, &j);
  return {joined, std::move(j)};
}

// join_with(): the partitioned join, started again with another seed if string hashes
// collided (`weak_hash` is the first attempt's).
JoinedClusterings join_strings(const Case& c, detail::StringHashFn weak_hash) {
  const StringCase s(c);
  ClusteringInput a{"truth", s.a_items.col(), ints(c.a_clusters)};
  ClusteringInput b{"actual", s.b_items.col(), ints(c.b_clusters)};
  ItemsInput t{s.t_items.col(), c.t_weights.data()};
  return join_detail::join_with(a, b, &t, weak_hash);
}

void expect_equal(const JoinedClusterings& got, const JoinedClusterings& want,
                  const std::string& what) {
  EXPECT_EQ(got.a_cluster, want.a_cluster) << what;
  EXPECT_EQ(got.b_cluster, want.b_cluster) << what;
  EXPECT_EQ(got.weight, want.weight) << what;
  EXPECT_EQ(got.items_row, want.items_row) << what;
  EXPECT_EQ(got.a_cluster_first_row, want.a_cluster_first_row) << what;
  EXPECT_EQ(got.b_cluster_first_row, want.b_cluster_first_row) << what;
  EXPECT_EQ(got.items_table_unmatched, want.items_table_unmatched) << what;
  EXPECT_EQ(got.items_table_rows, want.items_table_rows) << what;
}

InputError error_of(const Case& c, size_t partition_rows) {
  return cstest::error_of([&] { run(c, partition_rows); });
}

}  // namespace

TEST(JoinInts, AgreesWithOracleForAnyPartitionSize) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const Case c = random_case(rng, 1 + rng() % 3000);
    const JoinedClusterings want = oracle(c);
    // 1000 rows: partitions big enough to be scattered in one pass, with room to spare.
    for (size_t rows : {size_t(1), size_t(3), size_t(64), size_t(1000), size_t(1) << 20})
      for (unsigned threads : {1u, 3u}) {  // partitions joined by one thread, or several
        set_threads(threads);
        expect_equal(run(c, rows), want,
                     "round " + std::to_string(round) + " rows " + std::to_string(rows) +
                         " threads " + std::to_string(threads));
      }
  }
  set_threads(0);
}

// Past 2^20 rows of A, its rows are found again in their partitions a stretch at a time,
// each from where the scatter was at its first row, on any thread: the oracle's join on
// 1 thread and on 3, whether the partitions were scattered with room to spare or counted
// first (one partition of all rows).
TEST(JoinInts, LongInputsFoundAgainInStretchesAgreeWithOracle) {
  std::mt19937_64 rng(29);
  const Case c = random_case(rng, 3'200'000, 0.95, 0.7, 0.5);
  ASSERT_GT(c.a_items.size(), size_t(2) << 20);
  const JoinedClusterings want = oracle(c);
  for (size_t rows : {size_t(1) << 16, size_t(1) << 22})
    for (unsigned threads : {1u, 3u}) {
      set_threads(threads);
      expect_equal(run(c, rows), want,
                   "rows " + std::to_string(rows) + " threads " + std::to_string(threads));
    }
  set_threads(0);
}

// A small truth against a big clustering and items table, as evaluations usually are:
// most items are only in B, whose partitions then hold what each of those was found to
// have until it is appended, and the items table sets the number of partitions.
TEST(JoinInts, SmallTruthAgreesWithOracleWithAndWithoutItemsTable) {
  std::mt19937_64 rng(23);
  for (int round = 0; round < 20; ++round) {
    const Case c = random_case(rng, 1 + rng() % 5000, 0.03, 0.9, 0.95);
    const JoinedClusterings want = oracle(c);
    Case no_items = c;
    no_items.t_items.clear();
    no_items.t_weights.clear();
    const JoinedClusterings want_unweighted = oracle(no_items);
    for (size_t rows : {size_t(1), size_t(64), size_t(1000), size_t(1) << 20}) {
      const std::string what = "round " + std::to_string(round) + " rows " + std::to_string(rows);
      expect_equal(run(c, rows), want, what);
      const JoinedClusterings got = run(c, rows, false);
      EXPECT_EQ(got.a_cluster, want_unweighted.a_cluster) << what;
      EXPECT_EQ(got.b_cluster, want_unweighted.b_cluster) << what;
      EXPECT_EQ(got.weight, want_unweighted.weight) << what;
      EXPECT_TRUE(got.items_row.empty()) << what;
      EXPECT_EQ(got.a_cluster_first_row, want_unweighted.a_cluster_first_row) << what;
      EXPECT_EQ(got.b_cluster_first_row, want_unweighted.b_cluster_first_row) << what;
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
    EXPECT_EQ(repeat_of(e), "item 11 appears twice (rows 1 and 3)");
  }
  // In B: a repeat of an item of A, and of an item only in B; the earlier one wins.
  c = Case{{10, 11}, {0, 0}, {13, 10, 14, 13, 10}, {0, 0, 0, 0, 0}, {}, {}};
  for (size_t rows : {size_t(1), size_t(100)}) {
    InputError e = error_of(c, rows);
    EXPECT_EQ(e.source(), "actual");
    EXPECT_EQ(repeat_of(e), "item 13 appears twice (rows 0 and 3)");
  }
  // Repeats in many partitions, found by several threads: still the earliest.
  c = Case{};
  for (int64_t i = 0; i < 5000; ++i) c.a_items.push_back(i), c.a_clusters.push_back(0);
  for (int64_t i : {4000, 3000, 100, 2000}) c.a_items.push_back(i), c.a_clusters.push_back(0);
  c.b_items = {1};
  c.b_clusters = {0};
  for (unsigned threads : {1u, 2u, 4u}) {
    set_threads(threads);
    InputError e = error_of(c, 16);
    EXPECT_EQ(repeat_of(e), "item 4000 appears twice (rows 4000 and 5000)") << threads;
  }
  set_threads(0);
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
  EXPECT_EQ(repeat_of(error_of(c, 1)), "item 10 appears twice (rows 0 and 1)");
}

TEST(JoinStrings, AgreesWithOracleForAnyPartitionSize) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 20; ++round) {
    const Case c = random_case(rng, 1 + rng() % 3000);
    const JoinedClusterings want = oracle(c);
    for (size_t rows : {size_t(1), size_t(64), size_t(1000), size_t(1) << 20}) {
      auto [joined, got] = run_strings(c, rows, nullptr);
      ASSERT_TRUE(joined) << "round " << round;
      expect_equal(got, want, "round " + std::to_string(round) + " rows " + std::to_string(rows));
    }
  }
}

TEST(JoinStrings, SmallTruthAgreesWithOracle) {
  std::mt19937_64 rng(29);
  for (int round = 0; round < 10; ++round) {
    const Case c = random_case(rng, 1 + rng() % 5000, 0.03, 0.9, 0.95);
    const JoinedClusterings want = oracle(c);
    for (size_t rows : {size_t(1), size_t(1000), size_t(1) << 20}) {
      auto [joined, got] = run_strings(c, rows, nullptr);
      ASSERT_TRUE(joined) << "round " << round;
      expect_equal(got, want, "round " + std::to_string(round) + " rows " + std::to_string(rows));
    }
  }
}

// A hash of 8 bits: with hundreds of ids, many different ones share a hash.
uint64_t hash_of_8_bits(std::string_view s) { return detail::hash_bytes(s) >> 56 << 56; }
// A hash of 20 bits: with ~2,000 ids, about two collisions per case, sometimes none.
uint64_t hash_of_20_bits(std::string_view s) { return detail::hash_bytes(s) >> 44 << 44; }

// Whether two different ids of the case (in any of its columns) share a hash.
bool any_collision(const Case& c, detail::StringHashFn h) {
  std::map<uint64_t, int64_t> seen;
  for (const auto* ids : {&c.a_items, &c.b_items, &c.t_items})
    for (int64_t id : *ids) {
      auto [it, fresh] = seen.emplace(h("item-" + std::to_string(id)), id);
      if (!fresh && it->second != id) return true;
    }
  return false;
}

TEST(JoinStrings, EveryCollisionIsFoundAndAnotherSeedJoinsThem) {
  std::mt19937_64 rng(19);
  for (int round = 0; round < 30; ++round) {
    const Case c = random_case(rng, 1 + rng() % 3000);
    const JoinedClusterings want = oracle(c);
    for (detail::StringHashFn weak : {hash_of_8_bits, hash_of_20_bits}) {
      const bool collides = any_collision(c, weak);
      for (size_t rows : {size_t(1), size_t(1000)}) {
        auto [joined, got] = run_strings(c, rows, weak);
        ASSERT_EQ(joined, !collides) << "round " << round;
        if (joined) expect_equal(got, want, "round " + std::to_string(round));
      }
      expect_equal(join_strings(c, weak), want, "join_with, round " + std::to_string(round));
    }
  }
}

TEST(JoinStrings, ACollisionOfEveryKindIsFound) {
  // Items 1 and 2 share a hash. Item 3 is in every column, so that nothing is empty.
  struct Kind {
    const char* name;
    std::vector<int64_t> a, b, t;
  };
  const std::vector<Kind> kinds = {
      {"truth and truth", {3, 1, 2}, {3}, {3}}, {"actual and actual", {3}, {3, 1, 2}, {3}},
      {"items and items", {3}, {3}, {3, 1, 2}}, {"truth and actual", {3, 1}, {3, 2}, {3}},
      {"truth and items", {3, 1}, {3}, {3, 2}}, {"actual only and items", {3}, {3, 1}, {3, 2}},
      {"items only", {3}, {3}, {1, 2, 3}},
  };
  for (const Kind& k : kinds) {
    Case c{k.a, std::vector<int64_t>(k.a.size(), 0), k.b, std::vector<int64_t>(k.b.size(), 5),
           k.t, std::vector<double>(k.t.size(), 2.0)};
    for (size_t rows : {size_t(1), size_t(100)})
      EXPECT_FALSE(run_strings(c, rows, cstest::hash_item2_as_item1).first) << k.name;
    expect_equal(join_strings(c, cstest::hash_item2_as_item1), oracle(c), k.name);
  }
}

TEST(JoinStrings, IdsThatCollideUnderEverySeedAreAnError) {
  const Case c{{1, 2, 3}, {0, 0, 1}, {2, 3}, {5, 5}, {}, {}};
  const StringCase s(c);
  ClusteringInput a{"truth", s.a_items.col(), ints(c.a_clusters)};
  ClusteringInput b{"actual", s.b_items.col(), ints(c.b_clusters)};
  EXPECT_NO_THROW(join_detail::join_with(a, b, nullptr, cstest::hash_item2_as_item1, 1));
  EXPECT_THROW(
      join_detail::join_with(a, b, nullptr, cstest::hash_item2_as_item1, join_detail::kJoinSeeds),
      std::runtime_error);
}

TEST(JoinStrings, ARepeatBehindACollisionIsStillReported) {
  // Truth repeats item 1 at row 2; its first hash repeat (row 1) is item 2's collision.
  const Case c{{1, 2, 1}, {0, 0, 0}, {1}, {0}, {}, {}};
  const StringCase s(c);
  ClusteringInput a{"truth", s.a_items.col(), ints(c.a_clusters)};
  ClusteringInput b{"actual", s.b_items.col(), ints(c.b_clusters)};
  const InputError e =
      error_of([&] { join_detail::join_with(a, b, nullptr, cstest::hash_item2_as_item1); });
  EXPECT_EQ(e.source(), "truth");
  EXPECT_EQ(repeat_of(e), "item 'item-1' appears twice (rows 0 and 2)");
  // With the real hash, the partitioned join finds it itself.
  JoinedClusterings j;
  EXPECT_THROW(join_detail::join_partitioned(a, b, nullptr, 100, nullptr, &j), InputError);
}
