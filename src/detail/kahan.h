// Compensated (Neumaier) summation: sums of billions of weights stay exact to ~1 ulp.
#pragma once

#include <cmath>

namespace clusterscore::detail {

// Adds x to the compensated sum (sum, comp), as Neumaier's algorithm does: comp collects
// the exact rounding error of each addition. That error is found by Knuth's TwoSum (five
// additions, no comparison), not by Neumaier's test of which operand is larger followed
// by (big - t) + small: both give the exact error, so the same bits, but the test and its
// selects cost more.
inline void neumaier_add(double& sum, double& comp, double x) {
  const double t = sum + x;
  const double x_part = t - sum;  // what t took of x
  comp += (sum - (t - x_part)) + (x - x_part);
  sum = t;
}

struct KahanSum {
  double sum = 0.0;
  double comp = 0.0;

  void add(double x) { neumaier_add(sum, comp, x); }
  void add(const KahanSum& o) {
    add(o.sum);
    add(o.comp);
  }
  double value() const { return sum + comp; }
};

}  // namespace clusterscore::detail
