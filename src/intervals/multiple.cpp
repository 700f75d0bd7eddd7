#include "intervals/multiple.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "detail/normal.h"

namespace clusterscore {

namespace {

// The continued fraction of the regularized incomplete beta function I_x(a, b) (modified
// Lentz), for x < (a + 1) / (a + b + 2), where it converges fast.
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-16;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::abs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    for (int odd = 0; odd < 2; ++odd) {
      const double num = odd == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                  : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + num * d;
      d = 1 / (std::abs(d) < kTiny ? kTiny : d);
      c = 1 + num / c;
      if (std::abs(c) < kTiny) c = kTiny;
      h *= d * c;
      if (odd == 1 && std::abs(d * c - 1) < kEps) return h;
    }
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function, for x in [0, 1].
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

double student_p_value(double estimate, double std_error, uint32_t units) {
  if (units < 2 || std::isnan(estimate) || std::isnan(std_error) || !(std_error > 0)) {
    return std::nan("");
  }
  const double t = estimate / std_error, df = double(units - 1);
  return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double normal_p_value(double estimate, double std_error) {
  if (std::isnan(estimate) || std::isnan(std_error) || !(std_error > 0)) return std::nan("");
  return 2 * detail::normal_cdf(-std::abs(estimate) / std_error);
}

std::vector<uint8_t> benjamini_hochberg(std::span<const double> p_values, double level) {
  if (!(level > 0 && level < 1)) {
    throw std::invalid_argument("benjamini_hochberg: level must be in (0, 1)");
  }
  std::vector<size_t> order;
  for (size_t k = 0; k < p_values.size(); ++k) {
    if (!std::isnan(p_values[k])) order.push_back(k);
  }
  // By p-value, ties by position: the same answer on any platform.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  const double m = double(order.size());
  size_t kept = 0;  // K: how many of the smallest are rejected
  for (size_t k = 0; k < order.size(); ++k) {
    if (p_values[order[k]] <= double(k + 1) * level / m) kept = k + 1;
  }
  std::vector<uint8_t> out(p_values.size(), 0);
  for (size_t k = 0; k < kept; ++k) out[order[k]] = 1;
  return out;
}

}  // namespace clusterscore
