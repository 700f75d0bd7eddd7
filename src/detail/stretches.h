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

// Σ term(i) over i < n, a compensated sum: each stretch summed on any thread, the
// stretches' sums added in order. Below kStretchUnits terms, the bits of one loop.
template <class Term>
double stretch_sum(size_t n, const Term& term) {
  const UnitStretches st(n);
  std::vector<KahanSum> part(st.count);
  parallel_for(st.count, [&](size_t, size_t s) {
    for (size_t i = st.begin(s); i < st.end(s); ++i) part[s].add(term(i));
  });
  KahanSum total = part[0];
  for (size_t s = 1; s < st.count; ++s) total.add(part[s]);
  return total.value();
}

}  // namespace clusterscore::detail
