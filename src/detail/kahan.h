// Compensated (Neumaier) summation: sums of billions of weights stay exact to ~1 ulp.
#pragma once

#include <cmath>

namespace clusterscore::detail {

struct KahanSum {
  double sum = 0.0;
  double comp = 0.0;

  void add(double x) {
    const double t = sum + x;
    // Neumaier: recover the low-order bits lost by whichever operand is smaller.
    if (std::fabs(sum) >= std::fabs(x))
      comp += (sum - t) + x;
    else
      comp += (x - t) + sum;
    sum = t;
  }
  void add(const KahanSum& o) {
    add(o.sum);
    add(o.comp);
  }
  double value() const { return sum + comp; }
};

}  // namespace clusterscore::detail
