// Compensated (Neumaier) summation: sums of billions of weights stay exact to ~1 ulp.
#pragma once

#include <cmath>

namespace clusterscore::detail {

// Adds x to the compensated sum (sum, comp). Neumaier: recover the low-order bits lost by
// whichever operand is smaller. Selects, not branches: which operand is larger is
// unpredictable in short sums, and selects let loops over many sums vectorise.
inline void neumaier_add(double& sum, double& comp, double x) {
  const double t = sum + x;
  const bool sum_larger = std::fabs(sum) >= std::fabs(x);
  const double big = sum_larger ? sum : x, small = sum_larger ? x : sum;
  comp += (big - t) + small;
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
