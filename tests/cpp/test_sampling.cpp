#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "clusterscore/estimate.h"
#include "clusterscore/sampling.h"
#include "helpers.h"

using namespace clusterscore;
using cstest::ints;

namespace {
// Base {0,1,2} {3}; Exp {0,1} {2,3}: item 2 is split from {0,1} and merged with {3}.
struct Case {
  std::vector<int64_t> items = {0, 1, 2, 3}, base = {0, 0, 0, 1}, exp = {5, 5, 6, 6};
  Comparison c{{"base", ints(items), ints(base)},
               {"exp", ints(items), ints(exp)},
               nullptr,
               MetricFamily::kImpact};
};
}  // namespace

TEST(Sampling, KindsMatchTheClusterings) {
  Case k;
  PairSampleTable t = sample_pairs(k.c, SampleOptions{2000, 0, false, false, 7});
  uint64_t total = 0;
  for (size_t p = 0; p < t.draws.size(); ++p) {
    const uint32_t i = t.item_i[p], j = t.item_j[p];
    const bool same_base = k.base[i] == k.base[j], same_exp = k.exp[i] == k.exp[j];
    PairKind want = i == j                  ? PairKind::kSelf
                    : same_base && same_exp ? PairKind::kStable
                    : same_base             ? PairKind::kSplit
                                            : PairKind::kMerge;
    EXPECT_EQ(t.kind[p], want) << i << "," << j;
    total += t.draws[p];
  }
  EXPECT_EQ(total, 2000u);
}

TEST(Sampling, SameSeedSameSampleAndStrataAreIndependentStreams) {
  Case k;
  PairSampleTable a = sample_pairs(k.c, SampleOptions{500, 0, false, false, 3});
  PairSampleTable b = sample_pairs(k.c, SampleOptions{500, 0, false, false, 3});
  EXPECT_EQ(a.item_i, b.item_i);
  EXPECT_EQ(a.item_j, b.item_j);
  EXPECT_EQ(a.draws, b.draws);
  // More stable pairs do not change which diff pairs are drawn.
  PairSampleTable s1 = sample_pairs(k.c, SampleOptions{300, 10, true, false, 3});
  PairSampleTable s2 = sample_pairs(k.c, SampleOptions{300, 90, true, false, 3});
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> d1, d2;
  for (size_t p = 0; p < s1.draws.size(); ++p)
    if (s1.stratum[p] == 0) d1[{s1.item_i[p], s1.item_j[p]}] = s1.draws[p];
  for (size_t p = 0; p < s2.draws.size(); ++p)
    if (s2.stratum[p] == 0) d2[{s2.item_i[p], s2.item_j[p]}] = s2.draws[p];
  EXPECT_EQ(d1, d2);
}

TEST(Sampling, TotalsAreTheExactImpactFigures) {
  Case k;
  SampleTotals t = sample_totals(k.c);
  // items 0,1: B=3 E=2 X=2 U=3; item 2: B=3 E=2 X=1 U=4; item 3: B=1 E=2 X=1 U=2
  EXPECT_NEAR(t.split_distance, (1.0 / 3 + 1.0 / 3 + 2.0 / 4) / 4, 1e-15);
  EXPECT_NEAR(t.merge_distance, (1.0 / 4 + 1.0 / 2) / 4, 1e-15);
  EXPECT_NEAR(t.diff_mass, t.split_distance + t.merge_distance, 1e-15);
  EXPECT_NEAR(t.stable_mass, t.affected_jaccard_index, 1e-15);
}

TEST(Sampling, NothingToDrawIsAnError) {
  std::vector<int64_t> items = {0, 1}, same = {0, 0};
  Comparison c({"base", ints(items), ints(same)}, {"exp", ints(items), ints(same)}, nullptr,
               MetricFamily::kImpact);
  EXPECT_THROW(sample_pairs(c, SampleOptions{10, 0, false, false, 1}), std::invalid_argument);
}

TEST(Estimate, HandComputedMeansAndErrors) {
  // Three distinct split pairs drawn 2, 1, 1 times; verdicts different, same, unsure.
  std::vector<PairKind> kind(3, PairKind::kSplit);
  std::vector<uint8_t> stratum(3, 0);
  std::vector<uint64_t> draws = {2, 1, 1};
  std::vector<double> U = {4, 4, 4}, B = {2, 2, 2}, E = {3, 3, 3};
  std::vector<Verdict> v = {Verdict::kDifferent, Verdict::kSame, Verdict::kUnsure};
  JudgedSample s{kind, stratum, draws, U, B, E, v, SampleTotals{}, false, false};
  s.totals.split_distance = 0.5;
  std::vector<Estimate> e = estimate(s);
  ASSERT_EQ(e[0].name, "good_split_distance");
  // judged draws: 2 different, 1 same ⇒ mean 2/3 of "different", times 0.5
  EXPECT_NEAR(*e[0].estimate, 0.5 * 2.0 / 3, 1e-15);
  EXPECT_NEAR(*e[1].estimate, 0.5 / 3, 1e-15);
  EXPECT_EQ(e[0].pairs, 3u);
  // q = 3/4, c = 4/3: Σ c g² d + c(c−1) g² d² over pairs, g = 1/3 and −2/3
  const double c = 4.0 / 3, m = 2.0 / 3, w = 3 * c;
  const double var = (c * (1 - m) * (1 - m) * 2 + c * (c - 1) * (1 - m) * (1 - m) * 4 +
                      c * m * m * 1 + c * (c - 1) * m * m * 1) /
                     (w * w) * 3.0 / 2.0;
  EXPECT_NEAR(*e[0].std_error, 0.5 * std::sqrt(var), 1e-15);
  EXPECT_FALSE(e[2].estimate.has_value());  // no merge pairs: absent, not NaN
}
