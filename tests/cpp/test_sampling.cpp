#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string_view>

#include "clusterscore/estimate.h"
#include "helpers.h"
#include "judging/sampling.h"

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
// One verdict per pair ('s'ame, 'd'ifferent, 'u'nsure, '-' none), as the core counts
// verdicts: `same` of `votes`.
struct Votes {
  explicit Votes(std::string_view v) {
    for (char x : v) {
      votes.push_back(x == 's' || x == 'd' ? 1 : 0);
      same.push_back(x == 's' ? 1 : 0);
    }
  }
  std::vector<uint32_t> same, votes;
};

// Split pairs of one stratum, item i's weights U = 4, B = 2, E = 3, drawn `draws` times and
// judged `verdicts` (as Votes reads them): the judged sample most estimate tests read.
struct SplitPairs {
  SplitPairs(std::vector<uint64_t> d, std::string_view verdicts)
      : draws(std::move(d)),
        kind(draws.size(), PairKind::kSplit),
        stratum(draws.size(), 0),
        U(draws.size(), 4),
        B(draws.size(), 2),
        E(draws.size(), 3),
        v(verdicts) {}
  JudgedSample sample() const {
    return {kind, stratum, draws, U, B, E, v.same, v.votes, SampleTotals{}, SampleMode::kPlain};
  }
  std::vector<uint64_t> draws;
  std::vector<PairKind> kind;
  std::vector<uint8_t> stratum;
  std::vector<double> U, B, E;
  Votes v;
};

}  // namespace

TEST(Sampling, KindsMatchTheClusterings) {
  Case k;
  PairSampleTable t = sample_pairs(k.c, SampleOptions{2000, 0, SampleMode::kPlain, 7});
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
  PairSampleTable a = sample_pairs(k.c, SampleOptions{500, 0, SampleMode::kPlain, 3});
  PairSampleTable b = sample_pairs(k.c, SampleOptions{500, 0, SampleMode::kPlain, 3});
  EXPECT_EQ(a.item_i, b.item_i);
  EXPECT_EQ(a.item_j, b.item_j);
  EXPECT_EQ(a.draws, b.draws);
  // More stable pairs do not change which diff pairs are drawn.
  PairSampleTable s1 = sample_pairs(k.c, SampleOptions{300, 10, SampleMode::kStratified, 3});
  PairSampleTable s2 = sample_pairs(k.c, SampleOptions{300, 90, SampleMode::kStratified, 3});
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
  EXPECT_THROW(sample_pairs(c, SampleOptions{10, 0, SampleMode::kPlain, 1}), std::invalid_argument);
}

TEST(Estimate, HandComputedMeansAndErrors) {
  // Three distinct split pairs drawn 2, 1, 1 times; verdicts different, same, unsure.
  const SplitPairs pairs({2, 1, 1}, "dsu");
  JudgedSample s = pairs.sample();
  s.totals.split_distance = 0.5;
  std::vector<Estimate> e = estimate(s);
  ASSERT_EQ(e[0].name, "good_split_distance");
  // judged draws: 2 different, 1 same ⇒ mean 2/3 of "different", times 0.5
  EXPECT_NEAR(*e[0].estimate, 0.5 * 2.0 / 3, 1e-15);
  EXPECT_NEAR(*e[1].estimate, 0.5 / 3, 1e-15);
  EXPECT_EQ(e[0].pairs, 3u);
  // Raters not measured: the distinct pair is the unit, Σ (c·d·g)² / W² · N/(N − 1),
  // c = 4/3 (3 of 4 draws judged), g = 1/3 (drawn twice) and −2/3, N = 3 judged draws.
  const double c = 4.0 / 3, m = 2.0 / 3, w = 3 * c;
  const double var = (std::pow(c * 2 * (1 - m), 2) + std::pow(c * m, 2)) / (w * w) * 1.5;
  EXPECT_NEAR(*e[0].std_error, 0.5 * std::sqrt(var), 1e-15);
  // merge_distance 0: known exactly, whatever was judged.
  EXPECT_TRUE(e[2].exact && *e[2].estimate == 0 && *e[2].ci_low == 0 && *e[2].ci_high == 0);
  EXPECT_NEAR(*e[4].estimate, *e[0].estimate, 1e-15);  // good_distance: defined
  s.totals.merge_distance = 0.25;  // merge pairs exist but none was drawn: no estimate
  EXPECT_FALSE(estimate(s)[2].estimate.has_value());
}

TEST(Estimate, BothOrdersOfAPairAreOneUnit) {
  // Rows 0 and 1 are (i, j) and (j, i), drawn 2 and 1 times, judged different (one
  // verdict); row 2 is another pair, judged same, drawn once. As one unit the two rows'
  // terms add before squaring (N = 4 judged draws).
  const SplitPairs pairs({2, 1, 1}, "dds");
  std::vector<uint32_t> unit = {0, 0, 2};
  JudgedSample s = pairs.sample();
  s.unit = unit;
  s.totals.split_distance = 1.0;
  const double m = 3.0 / 4;  // mean of "different" over 4 draws
  const double paired = (std::pow(3 * (1 - m), 2) + std::pow(m, 2)) / 16 * 4 / 3;
  EXPECT_NEAR(*estimate(s)[0].std_error, std::sqrt(paired), 1e-15);
  s.unit = {};
  const double apart = (std::pow(2 * (1 - m), 2) + std::pow(1 - m, 2) + m * m) / 16 * 4 / 3;
  EXPECT_NEAR(*estimate(s)[0].std_error, std::sqrt(apart), 1e-15);
  std::vector<uint32_t> past = {0, 0, 3};
  s.unit = past;
  EXPECT_THROW(estimate(s), std::invalid_argument);
}

TEST(Estimate, AgreeingVerdictsStillGiveAnIntervalWithinRange) {
  // Ten split pairs, every one judged "different": all good splits.
  const SplitPairs pairs(std::vector<uint64_t>(10, 1), "dddddddddd");
  JudgedSample s = pairs.sample();
  s.totals.split_distance = 0.5;
  const std::vector<Estimate> e = estimate(s);
  // good_split_distance 0.5 · 1, interval 0.5 · [Wilson lower bound for 10 of 10, 1].
  const double z2 = 1.959963984540054 * 1.959963984540054;
  EXPECT_NEAR(*e[0].estimate, 0.5, 1e-15);
  EXPECT_NEAR(*e[0].ci_low, 0.5 * 10 / (10 + z2), 1e-12);
  EXPECT_NEAR(*e[0].ci_high, 0.5, 1e-15);
  // bad_split_distance 0, interval [0, 0.5 · z²/(10 + z²)]: not zero width.
  EXPECT_EQ(*e[1].estimate, 0);
  EXPECT_EQ(*e[1].ci_low, 0);
  EXPECT_NEAR(*e[1].ci_high, 0.5 * z2 / (10 + z2), 1e-12);
  for (const Estimate& x : e)
    if (x.estimate && !x.exact) EXPECT_LT(*x.ci_low, *x.ci_high) << x.name;
  // Rates stay within [0, 1]: good_split_rate = 0.5 · mean(U/B) = 1.
  EXPECT_LE(*e[9].ci_high, 1.0);
  EXPECT_GE(*e[10].ci_low, 0.0);
}

TEST(Estimate, SelfPairsPartIsKnownNotSampled) {
  // One stable non-self pair judged same, one self pair (never judged): the affected
  // good index is aji·(s + (1 − s)·1) with s the self pairs' share of the stable mass.
  std::vector<PairKind> kind = {PairKind::kStable, PairKind::kSelf};
  std::vector<uint8_t> stratum = {0, 0};
  std::vector<uint64_t> draws = {3, 5};
  std::vector<double> U = {4, 4}, B = {2, 2}, E = {3, 3};
  const Votes v("s-");
  JudgedSample s{kind,           stratum,           draws, U, B, E, v.same, v.votes,
                 SampleTotals{}, SampleMode::kPlain};
  s.totals.affected_jaccard_index = 0.8;
  s.totals.stable_mass = 0.4;
  s.totals.self_mass = 0.1;
  s.totals.self_delta = -0.05;
  const std::vector<Estimate> e = estimate(s);
  EXPECT_NEAR(*e[6].estimate, 0.8, 1e-15);  // aji·(1/4 + 3/4·1)
  EXPECT_NEAR(*e[7].estimate, 0.0, 1e-15);
  // delta_precision: self part −0.05 plus (0.4 − 0.1)·mean(l·1[≡]), l = U/E − U/B = −2/3.
  EXPECT_NEAR(*e[8].estimate, -0.05 + 0.3 * (4.0 / 3 - 2), 1e-15);
}

TEST(Estimate, ReplicatedVerdictsMeasureTheRaters) {
  // Three split pairs drawn 3, 1, 1 times: the first judged twice (same, different), the
  // others once (same; different). σ̂² = (1 − 1²/2)/(2 − 1) = 1/2; the class mean of i ≡ j
  // is (3·1/2 + 1 + 0)/5 = 1/2. Variance: draws Σ n(f − q)²/N² · N/(N − 1) = 0.5/25 · 5/4,
  // plus noise σ̂²·Σ n_j(n_j − 1)/m_j / N² = 0.5 · (3·2/2) / 25.
  const SplitPairs pairs({3, 1, 1}, "sss");
  std::vector<uint32_t> same = {1, 1, 0}, votes = {2, 1, 1};
  JudgedSample s = pairs.sample();
  s.same = same;
  s.votes = votes;
  s.totals.split_distance = 0.5;
  const RaterAgreement r = rater_agreement(s);
  EXPECT_TRUE(r.measured);
  EXPECT_NEAR(r.noise, 0.5, 1e-15);
  EXPECT_EQ(r.replicated[0], 1u);
  EXPECT_EQ(*r.disagreement[0], 1.0);
  EXPECT_FALSE(r.disagreement[1].has_value());
  const std::vector<Estimate> e = estimate(s);
  EXPECT_NEAR(*e[1].estimate, 0.25, 1e-15);
  EXPECT_NEAR(*e[1].std_error, 0.5 * std::sqrt(0.5 / 25 * 1.25 + 0.5 * 3 / 25), 1e-15);
  // Honest raters (their verdicts agree): the draws alone, each its own unit.
  std::vector<uint32_t> agree = {2, 1, 0};
  s.same = agree;
  const double q = 4.0 / 5, draws_v = (3 * 0.2 * 0.2 + 0.2 * 0.2 + 0.8 * 0.8) / 25 * 1.25;
  EXPECT_EQ(rater_agreement(s).noise, 0.0);
  EXPECT_NEAR(*estimate(s)[1].estimate, 0.5 * q, 1e-15);
  EXPECT_NEAR(*estimate(s)[1].std_error, 0.5 * std::sqrt(draws_v), 1e-15);
}

// An unsure verdict drops all of its pair's draws at once: per pair drawn n times the
// variance gains (1 − 1/c)·c²·n(n − 1)·g² / W². Split pairs drawn 3, 1, 1, 2 times, the
// first judged twice alike (raters measured, noise 0), then same, different, unsure: c =
// 7/5, the class mean of i ≡ j q = 4/5, g = 1/5, 1/5, −4/5 over d = 3c, c, c.
TEST(Estimate, PairsDroppedTogetherAddTheirSharedSpread) {
  const SplitPairs pairs({3, 1, 1, 2}, "ssdu");
  std::vector<uint32_t> same = {2, 1, 0, 0}, votes = {2, 1, 1, 0};
  JudgedSample s = pairs.sample();
  s.same = same;
  s.votes = votes;
  s.totals.split_distance = 0.5;
  ASSERT_TRUE(rater_agreement(s).measured);
  const std::vector<Estimate> e = estimate(s);
  EXPECT_NEAR(*e[1].estimate, 0.5 * 0.8, 1e-15);
  const double c = 7.0 / 5, draws = c * c * (3 * 0.04 + 0.04 + 0.64) * 5 / 4;
  const double dropped = (1 - 1 / c) * c * c * 3 * 2 * 0.04;
  EXPECT_NEAR(*e[1].std_error, 0.5 * std::sqrt((draws + dropped) / (25 * c * c)), 1e-15);
  // Every draw judged (c = 1): nothing is dropped, the draws' variance alone.
  std::vector<uint32_t> all_judged = {2, 1, 1, 1};
  s.votes = all_judged;
  const double q = 4.0 / 7;  // same on 3 + 1 of 7 draws
  const double all = (3 * (1 - q) * (1 - q) + (1 - q) * (1 - q) + q * q + 2 * q * q) / 49 * 7 / 6;
  EXPECT_NEAR(*estimate(s)[1].std_error, 0.5 * std::sqrt(all), 1e-15);
}

TEST(Estimate, VerdictCountsMustBeConsistent) {
  const SplitPairs pairs({1, 1}, "ss");
  std::vector<uint32_t> same = {2, 0}, votes = {1, 1}, unit = {0, 0};
  JudgedSample s = pairs.sample();
  s.same = same;
  s.votes = votes;
  EXPECT_THROW(estimate(s), std::invalid_argument);  // more same verdicts than verdicts
  same = {1, 0};
  s.unit = unit;  // one pair in two orders, with two different verdicts
  EXPECT_THROW(estimate(s), std::invalid_argument);
}

TEST(Estimate, StrataAndKindCodesAreChecked) {
  SplitPairs pairs({1, 1}, "sd");
  pairs.stratum[1] = 2;
  const JudgedSample s = pairs.sample();
  EXPECT_THROW(estimate(s), std::invalid_argument);
  EXPECT_THROW(judged_shares(s), std::invalid_argument);
  const std::vector<int64_t> value = {1, 2};
  EXPECT_THROW(contributions(IdColumn::of_ints(value.data(), 2), s), std::invalid_argument);
  const std::vector<uint8_t> codes = {0, 3}, bad = {0, 4};
  EXPECT_EQ(pair_kinds(codes)[1], PairKind::kSelf);
  EXPECT_THROW(pair_kinds(bad), std::invalid_argument);
}

TEST(Estimate, ReplicatesAreTheMostDrawnNonSelfPairs) {
  // Rows 0 and 2 are one pair in two orders (3 + 2 draws); row 1 a self pair drawn 9 times;
  // rows 3, 4 drawn 4 times each (a tie, in row order).
  std::vector<PairKind> kind = {PairKind::kSplit, PairKind::kSelf, PairKind::kSplit,
                                PairKind::kMerge, PairKind::kStable};
  std::vector<uint64_t> draws = {3, 9, 2, 4, 4};
  std::vector<uint32_t> unit = {0, 1, 0, 3, 4};
  EXPECT_EQ(replicated_pairs(kind, draws, unit, 2), (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(replicated_pairs(kind, draws, unit, 10), (std::vector<uint32_t>{0, 3, 4}));
  EXPECT_EQ(replicated_pairs(kind, draws, {}, 1), (std::vector<uint32_t>{3}));
  EXPECT_TRUE(replicated_pairs(kind, draws, unit, 0).empty());
}
