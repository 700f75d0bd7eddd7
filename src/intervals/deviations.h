// Squared deviations of a statistic's replicates from their mean: the one computation behind
// the bootstrap's standard error and the jackknife's variance (bootstrap.cpp, jackknife.h).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "detail/kahan.h"

namespace clusterscore::detail {

struct Deviations {
  size_t n = 0;        // the defined (non-NaN) values
  double squares = 0;  // Σ (v − their mean)², compensated; 0 without values
};

// Over the values that are not NaN, in order. O(values).
inline Deviations deviations(const std::vector<double>& values) {
  KahanSum sum;
  size_t n = 0;
  for (double v : values)
    if (!std::isnan(v)) sum.add(v), ++n;
  if (n == 0) return {};
  const double mean = sum.value() / double(n);
  KahanSum sq;
  for (double v : values)
    if (!std::isnan(v)) sq.add((v - mean) * (v - mean));
  return {n, sq.value()};
}

}  // namespace clusterscore::detail
