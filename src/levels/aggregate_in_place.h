// aggregate()'s strategy for few groups (levels/aggregator.h): every group's sums in place.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "levels/aggregator.h"

namespace clusterscore::levels_detail {

// Internal linkage: see levels/aggregator.h.
namespace {

// Few groups: each stretch of units (stretch_units()) is summed into sums of its own,
// on any thread, and the stretches' sums are added up in order.
template <class Sums>
inline void Aggregator<Sums>::in_place(size_t n_groups, GroupTable* out) const {
  const UnitStretches st(u_.group.size());
  std::vector<std::vector<Sums>> part(st.count);
  detail::parallel_for(st.count, [&](size_t, size_t p) {
    part[p].assign(n_groups, Sums(k_));
    sum_in_place(st.begin(p), st.end(p), part[p]);
  });
  std::vector<Sums>& sums = part[0];
  for (size_t p = 1; p < st.count; ++p)
    for (size_t g = 0; g < n_groups; ++g) sums[g].merge(part[p][g]);
  size_output(out, size_t(std::count_if(sums.begin(), sums.end(),
                                        [](const Sums& s) { return s.count > 0; })));
  Output o(out, 0);
  for (size_t g = 0; g < n_groups; ++g) emit(uint32_t(g), sums[g], &o);
  o.flush();
}

template <class Sums>
inline void Aggregator<Sums>::sum_in_place(size_t begin, size_t end,
                                           std::vector<Sums>& sums) const {
  for (size_t u = begin; u < end; ++u) {
    detail::poll_every(u);
    prefetch(u + kGatherAhead);
    // And the arrays read in order (detail::prefetch_stream, whose figures are these).
    if (!u_.cell.empty()) detail::prefetch_stream(u_.cell.data(), u);
    detail::prefetch_stream(u_.group.data(), u);
    detail::prefetch_stream(u_.weight.data(), u);
    if (!skip(u)) add(u, &sums[u_.group[u]]);
  }
}

}  // namespace
}  // namespace clusterscore::levels_detail
