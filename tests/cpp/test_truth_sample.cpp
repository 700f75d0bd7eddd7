// Drawing the truth sample: the seed draw is uniform without replacement and a prefix of a
// longer draw; π matches the binomial-coefficient formula and the draw's own frequencies;
// candidates are exactly the records sharing a group with each seed.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "clusterscore/truth_sample.h"

namespace clusterscore {
namespace {

// C(N − s, n) / C(N, n) as the product over the n draws (the core multiplies over the s
// records): the same number by the other identity.
long double all_missed(uint64_t records, uint64_t n, uint64_t size) {
  long double p = 1;
  for (uint64_t k = 0; k < n; ++k) p *= (long double)(records - size - k) / (records - k);
  return p;
}

TEST(DrawRecords, DistinctSeededAndPrefixOfALongerDraw) {
  const auto a = draw_records(1000, 300, 7);
  EXPECT_EQ(std::set<uint64_t>(a.begin(), a.end()).size(), 300u);
  for (uint64_t r : a) EXPECT_LT(r, 1000u);
  EXPECT_EQ(a, draw_records(1000, 300, 7));
  EXPECT_NE(a, draw_records(1000, 300, 8));
  const auto longer = draw_records(1000, 500, 7);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), longer.begin()));
  const auto all = draw_records(50, 50, 1);
  EXPECT_EQ(std::set<uint64_t>(all.begin(), all.end()).size(), 50u);
  EXPECT_THROW(draw_records(10, 11, 1), std::invalid_argument);
  EXPECT_TRUE(draw_records(0, 0, 1).empty());
}

TEST(DrawRecords, EveryRecordEquallyLikely) {
  // 20,000 draws of 3 of 10: each record drawn 6,000 times in expectation (sd ≈ 65).
  std::vector<int> hits(10);
  for (uint64_t s = 0; s < 20000; ++s) {
    for (uint64_t r : draw_records(10, 3, s)) ++hits[r];
  }
  for (int h : hits) EXPECT_NEAR(h, 6000, 5 * 65);
}

TEST(InclusionProbability, MatchesTheFormulaAndTheDraw) {
  for (uint64_t size : {1u, 2u, 5u, 40u}) {
    const double exact = double(1 - all_missed(1000, 30, size));
    EXPECT_NEAR(inclusion_probability(1000, 30, size), exact, 1e-14);
  }
  EXPECT_DOUBLE_EQ(inclusion_probability(100, 10, 1), 0.1);
  EXPECT_EQ(inclusion_probability(10, 8, 3), 1.0);
  EXPECT_EQ(inclusion_probability(10, 0, 3), 0.0);
  // Records 0..4 form one entity: how often does a draw of 3 of 20 meet it?
  int met = 0;
  const int runs = 40000;
  for (int s = 0; s < runs; ++s) {
    for (uint64_t r : draw_records(20, 3, s)) {
      if (r < 5) {
        ++met;
        break;
      }
    }
  }
  const double p = inclusion_probability(20, 3, 5);
  EXPECT_NEAR(double(met) / runs, p, 5 * std::sqrt(p * (1 - p) / runs));
  EXPECT_THROW(inclusion_probability(10, 3, 0), std::invalid_argument);
  EXPECT_THROW(inclusion_probability(10, 3, 11), std::invalid_argument);
  EXPECT_THROW(inclusion_probability(10, 11, 1), std::invalid_argument);
}

TEST(GatherCandidates, RecordsSharingAGroupWithEachSeed) {
  const std::vector<uint32_t> run = {0, 0, 1, 1, 1, 2, kNoGroup};
  const std::vector<uint32_t> block = {5, 6, 5, 6, 6, 6, 5};
  const std::vector<std::span<const uint32_t>> groups = {run, block};
  const std::vector<uint64_t> seeds = {6, 0};
  auto c = gather_candidates(groups, seeds, 100);
  const std::vector<std::pair<uint32_t, uint64_t>> want = {{0, 0}, {0, 2}, {0, 6}, {1, 0},
                                                           {1, 1}, {1, 2}, {1, 6}};
  EXPECT_EQ(c.pairs, want);
  EXPECT_EQ(c.groups_too_large, 0u);
  // A group larger than the limit adds the seed only.
  c = gather_candidates(groups, seeds, 2);
  const std::vector<std::pair<uint32_t, uint64_t>> small = {{0, 6}, {1, 0}, {1, 1}};
  EXPECT_EQ(c.pairs, small);
  EXPECT_EQ(c.groups_too_large, 1u);  // the blocking value both seeds share
  const std::vector<uint64_t> bad = {7};
  EXPECT_THROW(gather_candidates(groups, bad, 10), std::invalid_argument);
}

}  // namespace
}  // namespace clusterscore
