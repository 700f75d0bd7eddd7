// The compensated additions (neumaier_add, and neumaier_add4 lane by lane) against the
// textbook Neumaier step: the same bits for every addition, on sums that cancel, mix
// signs and span 120 binary orders of magnitude. They find the rounding error by
// TwoSum, not by Neumaier's comparison: both are exact, so nothing may differ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "detail/kahan.h"
#include "detail/lanes.h"

#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::detail {
namespace {

void textbook(double& sum, double& comp, double x) {
  const double t = sum + x;
  if (std::fabs(sum) >= std::fabs(x))
    comp += (sum - t) + x;
  else
    comp += (x - t) + sum;
  sum = t;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A term for a sum now at `sum`: large, small, negative, or cancelling it exactly.
double term(std::mt19937_64& rng, double sum) {
  const double sign = (rng() & 1) ? 1.0 : -1.0;
  switch (rng() % 4) {
    case 0:
      return sign * std::ldexp(double(rng() >> 11), int(rng() % 120) - 60);
    case 1:
      return double(rng() % 1000) / 1000;
    case 2:
      return -sum;
    default:
      return sign * std::ldexp(1.0, int(rng() % 200) - 100);
  }
}

TEST(Compensated, ScalarAddIsNeumaiersBits) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 20000; ++trial) {
    double s = 0, c = 0, want_s = 0, want_c = 0;
    for (int i = 0; i < 60; ++i) {
      const double x = term(rng, want_s);
      textbook(want_s, want_c, x);
      neumaier_add(s, c, x);
      ASSERT_TRUE(same_bits(s, want_s) && same_bits(c, want_c))
          << "trial " << trial << " term " << i << ": " << c << " vs " << want_c;
    }
  }
}

TEST(Compensated, FourLanesAreNeumaiersBits) {
  std::mt19937_64 rng(24);
  for (int trial = 0; trial < 5000; ++trial) {
    Lanes4 s = {0, 0, 0, 0}, c = {0, 0, 0, 0};
    double want_s[4] = {}, want_c[4] = {};
    for (int i = 0; i < 60; ++i) {
      Lanes4 x;
      for (int k = 0; k < 4; ++k) x[k] = term(rng, want_s[k]);
      neumaier_add4(s, c, x);
      for (int k = 0; k < 4; ++k) {
        textbook(want_s[k], want_c[k], x[k]);
        ASSERT_TRUE(same_bits(s[k], want_s[k]) && same_bits(c[k], want_c[k]))
            << "trial " << trial << " term " << i << " lane " << k;
      }
    }
  }
}

}  // namespace
}  // namespace clusterscore::detail
