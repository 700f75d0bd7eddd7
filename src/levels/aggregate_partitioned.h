// aggregate()'s strategy for many groups in any order (levels/aggregator.h): units
// partitioned by ranges of groups, each range summed in place.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "detail/big_vector.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/radix_partition.h"
#include "levels/aggregator.h"
#include "levels/unit_sums.h"

namespace clusterscore::levels_detail {

// Internal linkage: see levels/aggregator.h.
namespace {

// The number of bits set in bits [lo, hi) of `words`.
inline size_t count_bits(const std::vector<uint64_t>& words, size_t lo, size_t hi) {
  size_t n = 0;
  for (size_t i = lo; i < hi;) {
    if (i % 64 == 0 && i + 64 <= hi) {
      n += size_t(std::popcount(words[i / 64]));
      i += 64;
    } else {
      n += (words[i / 64] >> (i % 64)) & 1;
      ++i;
    }
  }
  return n;
}

// Units radix-partitioned by group, each partition a range of groups whose sums fit
// in L2, and each partition then summed in place. Records carry what the sum pass
// needs but the metric row, whose reads stay at random. A counting sort by group would
// write every record to a random place among millions of groups; the partitions are
// written as sequential streams (detail::LineScatter). Each group's units keep their order (the
// scatter is stable): the same additions in the same order, the same bits.
template <class Sums>
inline void Aggregator<Sums>::partitioned(size_t n_groups, GroupTable* out) const {
  if (u_.count.empty())
    partitioned_as<WeightedUnit>(n_groups, out);
  else
    partitioned_as<CountedUnit>(n_groups, out);
}

// log2 of the groups per partition: as many as kInPlaceBytes of sums hold.
template <class Sums>
inline unsigned Aggregator<Sums>::group_bits() const {
  const size_t per_group = sizeof(Sums) + (std::is_same_v<Sums, Sums8> ? 0 : 16 * k_);
  unsigned bits = 0;
  while ((per_group << (bits + 1)) <= kInPlaceBytes) ++bits;
  return bits;
}

template <class Sums>
template <class Rec>
inline void Aggregator<Sums>::partitioned_as(size_t n_groups, GroupTable* out) const {
  const size_t n = u_.group.size();
  const unsigned bits = group_bits();
  const size_t parts = ((n_groups - 1) >> bits) + 1;
  // Each stretch of units counts, then scatters, its own units on any thread
  // (detail/radix_partition.h), so each partition holds its units in unit order.
  const UnitStretches st(n);
  const size_t stretches = st.count;
  std::vector<std::vector<size_t>> count(stretches);
  std::vector<std::vector<uint64_t>> seen(stretches);  // one bit a group: in L2
  detail::parallel_for(stretches, [&](size_t, size_t s) {
    count[s].assign(parts, 0);
    size_t* const in_part = count[s].data();
    std::vector<uint64_t>& present = seen[s];
    present.assign((n_groups + 63) / 64, 0);
    for (size_t u = st.begin(s); u < st.end(s); ++u) {
      detail::poll_every(u);
      if (skip(u)) continue;
      const uint32_t g = u_.group[u];
      ++in_part[g >> bits];
      present[g >> 6] |= uint64_t(1) << (g & 63);
    }
  });
  std::vector<uint64_t>& present = seen[0];
  for (size_t s = 1; s < stretches; ++s)
    for (size_t i = 0; i < present.size(); ++i) present[i] |= seen[s][i];
  const detail::Placement placed = detail::place(count, parts);
  const std::vector<size_t>& start = placed.start;
  BigBuffer<Rec> order(start[parts]);
  detail::scatter(order.data(), placed, [&](size_t s, auto put) {
    for (size_t u = st.begin(s); u < st.end(s); ++u) {
      detail::poll_every(u);
      if (skip(u)) continue;
      put(u_.group[u] >> bits, record<Rec>(u));
    }
  });
  // Each partition's groups, summed on any thread, fill their own rows of the output.
  std::vector<size_t> row(parts + 1, 0);
  for (size_t p = 0; p < parts; ++p)
    row[p + 1] = row[p] + count_bits(present, p << bits, std::min(n_groups, (p + 1) << bits));
  size_output(out, row[parts]);
  std::vector<std::vector<Sums>> per_worker(detail::workers_for(parts));
  detail::parallel_for(parts, [&](size_t w, size_t p) {
    std::vector<Sums>& sums = per_worker[w];
    if (sums.empty()) sums.assign(std::min(n_groups, size_t(1) << bits), Sums(k_));
    Output o(out, row[p]);
    const uint32_t base = uint32_t(p << bits);
    const size_t groups = std::min(sums.size(), n_groups - base);
    for (size_t g = 0; g < groups; ++g) sums[g].clear();
    for (size_t e = start[p]; e < start[p + 1]; ++e) {
      detail::prefetch_stream(order.data(), e);
      if (e + kPrefetch < start[parts]) prefetch_cell(order[e + kPrefetch].cell);
      add(order[e], &sums[order[e].group - base]);
    }
    for (size_t g = 0; g < groups; ++g) emit(base + uint32_t(g), sums[g], &o);
    o.flush();
  });
}

template <class Sums>
template <class Rec>
inline Rec Aggregator<Sums>::record(size_t u) const {
  Rec r{};
  r.weight = u_.weight[u];
  r.cell = cell(u);
  r.group = u_.group[u];
  if constexpr (Counted<Rec>) {
    r.count = decltype(r.count)(u_.count[u]);
    // Read only where the pair sums need it: a stream fewer for the others.
    if constexpr (Paired<Sums>) r.weight_sq = u_.weight_sq.empty() ? 0.0 : u_.weight_sq[u];
  }
  return r;
}

// add(u) for a sorted record: the same terms in the same order.
template <class Sums>
template <class Rec>
inline void Aggregator<Sums>::add(const Rec& r, Sums* s) const {
  if constexpr (Counted<Rec>)
    add_unit(r.weight, r.count, r.weight_sq, r.cell, s);
  else
    add_unit(r.weight, 1, 0.0, r.cell, s);
}

}  // namespace
}  // namespace clusterscore::levels_detail
