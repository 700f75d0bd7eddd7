// aggregate()'s strategy for units already in group order (levels/aggregator.h): run by run.
#pragma once

#include <cstddef>
#include <vector>

#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "levels/aggregator.h"

namespace clusterscore::levels_detail {

// Internal linkage: see levels/aggregator.h.
namespace {

// Units already in non-decreasing group order (cells by row) are summed run by run;
// skipped units may come between those of one group. Each stretch (whole groups, see
// groups_in_order) is summed on any thread into its own rows of the output.
template <class Sums>
inline void Aggregator<Sums>::runs(const Stretches& st, GroupTable* out) const {
  const size_t stretches = st.groups.size();
  std::vector<size_t> at(stretches + 1, 0);
  for (size_t p = 0; p < stretches; ++p) at[p + 1] = at[p] + st.groups[p];
  size_output(out, at[stretches]);
  detail::parallel_for(stretches, [&](size_t, size_t p) {
    Output o(out, at[p]);
    Sums s(k_);
    uint32_t g = kNone;
    for (size_t u = st.begin[p]; u < st.begin[p + 1]; ++u) {
      detail::poll_every(u);
      prefetch(u + kPrefetch);
      if (skip(u)) continue;
      if (u_.group[u] != g) {
        if (g != kNone) emit(g, s, &o);
        g = u_.group[u];
        s.clear();
      }
      add(u, &s);
    }
    if (g != kNone) emit(g, s, &o);
    o.flush();
  });
}

// If group codes never decrease from one unit to the next (skipped units aside) and
// some unit is not skipped: true, with the units cut into stretches of whole groups,
// each starting at a new group at least stretch_units() after the last cut.
template <class Sums>
inline bool Aggregator<Sums>::groups_in_order(Stretches* st) const {
  const size_t per = stretch_units(u_.group.size());
  st->begin.assign(1, 0);
  st->groups.assign(1, 0);
  size_t total = 0;
  uint32_t last = kNone;
  for (size_t u = 0; u < u_.group.size(); ++u) {
    detail::poll_every(u);
    if (skip(u) || u_.group[u] == last) continue;
    if (last != kNone && u_.group[u] < last) return false;
    if (last != kNone && u - st->begin.back() >= per) {
      st->begin.push_back(u);
      st->groups.push_back(0);
    }
    last = u_.group[u];
    ++st->groups.back();
    ++total;
  }
  st->begin.push_back(u_.group.size());
  return total > 0;
}

}  // namespace
}  // namespace clusterscore::levels_detail
