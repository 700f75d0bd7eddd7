// The core's one stable radix partition: records sent to partitions by a key too spread for
// a counting sort in cache (the cell pass's row blocks, the aggregation's ranges of groups,
// the join's id partitions), each partition keeping its records in input order.
//
// The input is cut into stretches. Each stretch counts its records per partition; the
// stretches are then placed: partition p holds stretch 0's records of p, then stretch 1's,
// and so on, so the layout depends on the counts alone, never on the number of threads;
// then every stretch writes its own records, on any thread (LineScatter: a cache line at a
// time where that pays).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "detail/line_scatter.h"
#include "detail/parallel.h"

namespace clusterscore::detail {

struct Placement {
  std::vector<std::vector<size_t>> at;  // per stretch, per partition: where it writes first
  std::vector<size_t> start;            // per partition, and its end: parts + 1 entries
  size_t stretches() const { return at.size(); }
};

// From count[s][p], the records of stretch s in partition p (every stretch with `parts`
// counts). O(stretches × parts).
inline Placement place(const std::vector<std::vector<size_t>>& count, size_t parts) {
  Placement pl;
  pl.at.assign(count.size(), std::vector<size_t>(parts));
  pl.start.assign(parts + 1, 0);
  size_t placed = 0;
  for (size_t p = 0; p < parts; ++p) {
    pl.start[p] = placed;
    for (size_t s = 0; s < count.size(); ++s) {
      pl.at[s][p] = placed;
      placed += count[s][p];
    }
  }
  pl.start[parts] = placed;
  return pl;
}

// Runs write(s, put) for every stretch s, in parallel: `write` calls put(p, record) for each
// of the stretch's records of partition p, in input order, exactly as many as it counted.
// `out` holds start[parts] records.
template <class Rec, class Write>
void scatter(Rec* out, const Placement& pl, Write write) {
  parallel_for(pl.stretches(), [&](size_t, size_t s) {
    std::vector<size_t> next = pl.at[s];
    LineScatter<Rec> to(out, next);
    size_t* const at_next = next.data();
    write(s, [&](size_t p, const Rec& r)
                 __attribute__((always_inline)) { to.put(p, at_next[p]++, r); });
    to.finish(next);
  });
}

}  // namespace clusterscore::detail
