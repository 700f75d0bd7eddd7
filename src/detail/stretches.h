// Stretches of units summed apart and then added up in order, cut by the input's size
// alone: the stretches, and so every sum's bits, are the same on any number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "detail/kahan.h"
#include "detail/parallel.h"

namespace clusterscore::detail {

// Stretches of at least kStretchUnits and at most kMostStretches in all. Below
// kStretchUnits units there is one stretch, summed as one loop would.
constexpr size_t kStretchUnits = size_t(1) << 20;
constexpr size_t kMostStretches = 32;
inline size_t stretch_units(size_t n) {
  return std::max(kStretchUnits, (n + kMostStretches - 1) / kMostStretches);
}

// n units cut into stretches of stretch_units(n): stretch s is [begin(s), end(s)).
struct UnitStretches {
  explicit UnitStretches(size_t units)
      : n(units), per(stretch_units(units)), count(std::max<size_t>(1, (units + per - 1) / per)) {}
  size_t begin(size_t s) const { return s * per; }
  size_t end(size_t s) const { return std::min(n, (s + 1) * per); }
  size_t n, per, count;
};

// Σ term(i) over i < n, a compensated sum: stretches of kSumStretch terms summed on any
// thread, their sums added in order. Shorter stretches than the aggregator's: a term
// costs a logarithm or two here, not a cache miss, and the threads must share them out
// evenly. Up to kSumStretch terms, the bits of one loop.
constexpr size_t kSumStretch = size_t(1) << 16;
template <class Term>
double stretch_sum(size_t n, const Term& term) {
  const size_t stretches = std::max<size_t>(1, (n + kSumStretch - 1) / kSumStretch);
  std::vector<KahanSum> part(stretches);
  parallel_for(stretches, [&](size_t, size_t s) {
    // Summed in a local: neighbouring stretches' sums share a cache line, which two
    // threads adding to them term by term would pass back and forth.
    KahanSum sum;
    const size_t end = std::min(n, (s + 1) * kSumStretch);
    for (size_t i = s * kSumStretch; i < end; ++i) sum.add(term(i));
    part[s] = sum;
  });
  KahanSum total = part[0];
  for (size_t s = 1; s < stretches; ++s) total.add(part[s]);
  return total.value();
}

}  // namespace clusterscore::detail
