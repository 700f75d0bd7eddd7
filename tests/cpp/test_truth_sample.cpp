// Drawing the truth sample: the seed draw is uniform without replacement and a prefix of a
// longer draw; π matches the binomial-coefficient formula and the draw's own frequencies;
// a draw in proportion to weights meets each record and entity at its stated chance;
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

TEST(SeedChances, InProportionSummingToNWithTheLargestCertain) {
  const std::vector<double> w = {1, 2, 3, 4};
  const auto p = seed_chances(w, 2);
  for (size_t r = 0; r < w.size(); ++r) EXPECT_NEAR(p[r], 2 * w[r] / 10, 1e-15);
  // 100 against ten 1s, 3 expected: the 100 is certain, the ten share the other 2.
  std::vector<double> heavy(11, 1.0);
  heavy[0] = 100;
  const auto q = seed_chances(heavy, 3);
  EXPECT_EQ(q[0], 1.0);
  for (size_t r = 1; r < q.size(); ++r) EXPECT_NEAR(q[r], 0.2, 1e-15);
  // A second round: 50 is certain only once 100 is (3 of {100, 50, 1 × 50}).
  std::vector<double> two(52, 1.0);
  two[0] = 100;
  two[1] = 50;
  const auto t = seed_chances(two, 3);
  EXPECT_EQ(t[0], 1.0);
  EXPECT_EQ(t[1], 1.0);
  EXPECT_NEAR(t[2], 1.0 / 50, 1e-15);
  EXPECT_EQ(seed_chances(w, 4), std::vector<double>(4, 1.0));
  EXPECT_THROW(seed_chances(w, 0), std::invalid_argument);
  EXPECT_THROW(seed_chances(w, 5), std::invalid_argument);
  for (double bad : {0.0, -1.0, double(NAN), double(INFINITY)}) {
    EXPECT_THROW(seed_chances(std::vector<double>{1, bad}, 1), std::invalid_argument);
  }
}

TEST(DrawInProportion, EachRecordAtItsChanceInARandomOrder) {
  const std::vector<double> p = {0.05, 0.2, 0.5, 1.0, 0.0};
  const int runs = 40000;
  std::vector<int> hits(p.size());
  int first_is_certain = 0;
  for (int s = 0; s < runs; ++s) {
    const auto d = draw_records_in_proportion(p, s);
    for (uint64_t r : d) ++hits[r];
    first_is_certain += !d.empty() && d[0] == 3;
  }
  for (size_t r = 0; r < p.size(); ++r) {
    EXPECT_NEAR(double(hits[r]) / runs, p[r], 5 * std::sqrt(p[r] * (1 - p[r]) / runs) + 1e-12);
  }
  // The certain record is first as often as a random order puts it first (it leads
  // whenever drawn alone, and by its uniform key otherwise): not always, not never.
  EXPECT_GT(first_is_certain, runs / 2);
  EXPECT_LT(first_is_certain, runs - runs / 20);
  EXPECT_EQ(draw_records_in_proportion(p, 3), draw_records_in_proportion(p, 3));
}

// π of each entity from its records' chances, through the grouped call.
std::vector<double> pi_of(const std::vector<double>& chances,
                          const std::vector<std::vector<uint64_t>>& entities) {
  std::vector<uint64_t> record;
  std::vector<uint32_t> entity;
  for (uint32_t e = 0; e < entities.size(); ++e) {
    for (uint64_t r : entities[e]) {
      record.push_back(r);
      entity.push_back(e);
    }
  }
  return entity_inclusion_probabilities(chances, record, entity, entities.size());
}

TEST(EntityInclusionProbability, OneMinusEveryRecordMissedAndTheDraw) {
  const std::vector<double> c = {0.1, 0.2, 1.0, 0.5};
  const auto pi = pi_of(c, {{0, 1}, {1, 2}, {3}, {}});
  EXPECT_NEAR(pi[0], 1 - 0.9 * 0.8, 1e-15);
  EXPECT_EQ(pi[1], 1.0);
  EXPECT_EQ(pi[2], 0.5);
  EXPECT_EQ(pi[3], 0.0);
  EXPECT_THROW(pi_of(c, {{4}}), std::invalid_argument);
  EXPECT_THROW(pi_of({1.5}, {{0}}), std::invalid_argument);
  EXPECT_THROW(
      entity_inclusion_probabilities(c, std::vector<uint64_t>{0}, std::vector<uint32_t>{1}, 1),
      std::invalid_argument);
  // Records 0..2 form one entity: how often does a draw meet it?
  const std::vector<double> p = seed_chances(std::vector<double>{3, 1, 1, 4, 2, 2, 5}, 2);
  int met = 0;
  const int runs = 40000;
  for (int s = 0; s < runs; ++s) {
    for (uint64_t r : draw_records_in_proportion(p, s)) {
      if (r < 3) {
        ++met;
        break;
      }
    }
  }
  const double e = pi_of(p, {{0, 1, 2}})[0];
  EXPECT_NEAR(double(met) / runs, e, 5 * std::sqrt(e * (1 - e) / runs));
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
