#include <gtest/gtest.h>

#include <random>

#include "detail/interner.h"
#include "helpers.h"

using clusterscore::detail::Interner;
using clusterscore::detail::kNone;

TEST(Interner, DenseIdsInFirstSeenOrderThroughGrowth) {
  std::mt19937_64 rng(1);
  std::vector<int64_t> keys(50000);
  for (auto& k : keys) k = int64_t(rng());
  keys.push_back(keys[10]);
  auto col = cstest::ints(keys);
  Interner in(false, 4);  // forces many grow() calls
  for (size_t r = 0; r < 50000; ++r) {
    auto [id, inserted] = in.insert(col, r);
    EXPECT_TRUE(inserted);
    EXPECT_EQ(id, r);
  }
  auto [id, inserted] = in.insert(col, 50000);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(id, 10u);
  for (size_t r = 0; r < 50000; r += 997) EXPECT_EQ(in.find(col, r), r);
}

TEST(Interner, StringsCompareBytesNotHashes) {
  cstest::Strings a({"", "a", "ab", "abcdefghi", "abcdefgh", "日本"});
  cstest::Strings b({"ab", "abcdefghi", "zz", ""});
  Interner in(true, 2);
  for (size_t r = 0; r < 6; ++r) EXPECT_EQ(in.insert(a.col(), r).first, r);
  EXPECT_EQ(in.find(b.col(), 0), 2u);
  EXPECT_EQ(in.find(b.col(), 1), 3u);
  EXPECT_EQ(in.find(b.col(), 2), kNone);
  EXPECT_EQ(in.find(b.col(), 3), 0u);
}

TEST(Interner, ExtremeIntegers) {
  std::vector<int64_t> keys = {INT64_MIN, INT64_MAX, 0, -1};
  Interner in(false, 1);
  for (size_t r = 0; r < keys.size(); ++r) EXPECT_TRUE(in.insert(cstest::ints(keys), r).second);
  EXPECT_EQ(in.size(), 4u);
}
