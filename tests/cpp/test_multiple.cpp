// Benjamini–Hochberg against its definition on small cases and a brute force on random
// p-values; the normal p-value against known quantiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "intervals/multiple.h"

namespace clusterscore {
namespace {

TEST(NormalPValue, KnownValuesAndUntested) {
  EXPECT_NEAR(normal_p_value(1.959963984540054, 1.0), 0.05, 1e-12);
  EXPECT_NEAR(normal_p_value(-0.2, 0.1), normal_p_value(0.2, 0.1), 0);
  EXPECT_DOUBLE_EQ(normal_p_value(0, 1), 1.0);
  EXPECT_TRUE(std::isnan(normal_p_value(0.1, 0)));
  EXPECT_TRUE(std::isnan(normal_p_value(std::nan(""), 1)));
}

TEST(StudentPValue, KnownValuesTendToTheNormal) {
  // Two-sided p-values of Student's t (scipy.stats.t.sf(t, df) * 2).
  EXPECT_NEAR(student_p_value(2.0, 1.0, 11), 0.07338803477074037, 1e-13);    // df 10
  EXPECT_NEAR(student_p_value(-3.0, 1.0, 6), 0.030099247897462586, 1e-13);   // df 5
  EXPECT_NEAR(student_p_value(4.0, 1.0, 31), 0.0003818456360837564, 1e-15);  // df 30
  EXPECT_NEAR(student_p_value(1.0, 1.0, 2), 0.5, 1e-14);                     // df 1: Cauchy
  EXPECT_NEAR(student_p_value(3.0, 1.0, 1000001), 0.0026998625414218, 1e-11);
  EXPECT_NEAR(student_p_value(3.0, 1.0, 1000001), normal_p_value(3.0, 1.0), 1e-7);
  EXPECT_DOUBLE_EQ(student_p_value(0, 1, 10), 1.0);
  EXPECT_TRUE(std::isnan(student_p_value(1, 1, 1)));
  EXPECT_TRUE(std::isnan(student_p_value(1, 0, 10)));
}

TEST(BenjaminiHochberg, StepUpFromTheLargestKept) {
  // m = 4, level 0.05: thresholds 0.0125, 0.025, 0.0375, 0.05. p_(3) = 0.03 ≤ 0.0375, so
  // the three smallest are kept although p_(2) = 0.03 > 0.025 (step-up, not step-down).
  const std::vector<double> p = {0.03, 0.5, 0.001, 0.03};
  EXPECT_EQ(benjamini_hochberg(p, 0.05), (std::vector<uint8_t>{1, 0, 1, 1}));
  const std::vector<double> none = {0.2, 0.3, std::nan("")};
  EXPECT_EQ(benjamini_hochberg(none, 0.05), (std::vector<uint8_t>{0, 0, 0}));
  // A NaN is not counted: m = 1, so 0.04 ≤ 0.05 is kept.
  const std::vector<double> one = {std::nan(""), 0.04};
  EXPECT_EQ(benjamini_hochberg(one, 0.05), (std::vector<uint8_t>{0, 1}));
  EXPECT_THROW(benjamini_hochberg(one, 0), std::invalid_argument);
  EXPECT_THROW(benjamini_hochberg(one, 1), std::invalid_argument);
}

TEST(BenjaminiHochberg, MatchesTheDefinitionOnRandomPValues) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 0.2);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> p(1 + trial % 40);
    for (double& x : p) x = u(rng);
    const auto kept = benjamini_hochberg(p, 0.05);
    // The definition: the largest K with p_(K) ≤ K·q/m; kept iff p ≤ p_(K).
    std::vector<double> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    double cut = -1;
    for (size_t k = 0; k < sorted.size(); ++k) {
      if (sorted[k] <= double(k + 1) * 0.05 / double(p.size())) cut = sorted[k];
    }
    for (size_t k = 0; k < p.size(); ++k) EXPECT_EQ(kept[k], p[k] <= cut) << trial;
  }
}

}  // namespace
}  // namespace clusterscore
