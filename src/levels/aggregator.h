// What aggregate() does for every unit, whatever the strategy that orders the units: add it
// to its group's sums, and write a group's means. The strategies, a file each:
// aggregate_in_place.h (few groups), aggregate_runs.h (units already by group) and
// aggregate_partitioned.h (many groups, in any order); aggregate.cpp chooses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "detail/prefetch.h"
#include "detail/stretches.h"
#include "input/clustering.h"
#include "levels/aggregate.h"
#include "levels/output_rows.h"

namespace clusterscore::levels_detail {

// Internal linkage: this is levels/aggregate.cpp's own code (it alone includes this header and
// the others of its kind), and GCC inlines and specialises a function called once only
// where it has internal linkage.
namespace {

// Per-group accumulators that fit in L2 are updated in place; beyond that, units are
// partitioned by ranges of groups whose accumulators fit, and each partition is summed in
// place: millions of accumulator sets updated at random would miss the cache every time.
constexpr size_t kInPlaceBytes = size_t(1) << 20;
using detail::kPrefetch;
// The in-place loop does so little per unit that its metric-row prefetches must be issued
// further ahead to keep enough misses in flight (further still was no better).
constexpr size_t kGatherAhead = 2 * kPrefetch;

// A unit as the partitioned path carries it: 16 bytes, or 32 with an item count (a size
// that divides a cache line, so that detail::LineScatter buffers one line per stream).
struct WeightedUnit {
  double weight;
  uint32_t cell, group;
};
struct alignas(32) CountedUnit {
  double weight;
  uint64_t count;
  uint32_t cell, group;
};
template <class Rec>
concept Counted = requires(Rec r) { r.count; };

using detail::stretch_units;
using detail::UnitStretches;

// The runs path's stretches: unit ranges [begin[p], begin[p + 1]) holding groups[p] whole
// groups.
struct Stretches {
  std::vector<size_t> begin, groups;
};

template <class Sums>
class Aggregator {
 public:
  // totals: each group's sums, not their means (aggregate_totals()).
  Aggregator(const MetricTable& per_cell, const Units& units, bool totals)
      : m_(per_cell), u_(units), k_(per_cell.width()), totals_(totals) {}

  uint32_t cell(size_t u) const { return u_.cell.empty() ? uint32_t(u) : u_.cell[u]; }
  bool skip(size_t u) const { return u_.group[u] == kNone || cell(u) == kNone; }
  // Both prefetchers must be inlined: GCC deems a function whose only effect is a
  // prefetch pure and deletes calls to it (so none of this ran before they were).
  [[gnu::always_inline]] void prefetch(size_t u) const {
    if (u < u_.group.size() && !skip(u)) prefetch_unit(u);
  }
  // What add(u) reads at random, when units come in order: the unit's metric row (one
  // line in big tables, whose rows are 64-byte aligned, unless wider than 8 values). Its
  // weight and count are read in order, which the hardware prefetches already.
  [[gnu::always_inline]] void prefetch_unit(size_t u) const {
    const double* row = m_.row(cell(u));
    detail::prefetch(row);
    if (k_ > 8) detail::prefetch(row + k_ - 1);
  }
  void add(size_t u, Sums* s) const {
    const double w = u_.weight[u];
    s->count += u_.count.empty() ? 1 : u_.count[u];
    s->weight.add(w);
    s->add_metrics(w, m_.row(cell(u)));
  }
  void emit(uint32_t g, const Sums& s, Output* out) const {
    if (s.count == 0) return;
    const double w = s.weight.value();
    // A division by 1 is exact: the totals are the sums' own values.
    s.means(totals_ ? 1.0 : w, k_, out->add(g, s.count, w), Output::kStage);
  }

  // The strategies, each in its own file with why it is shaped as it is (defined `inline`
  // there, as a definition in the class is, so that the compiler inlines them alike).
  // aggregate_in_place.h: few groups, each stretch of units summed into sums of its own.
  void in_place(size_t n_groups, GroupTable* out) const;
  void sum_in_place(size_t begin, size_t end, std::vector<Sums>& sums) const;
  // aggregate_runs.h: units already in group order (groups_in_order() says), run by run.
  bool groups_in_order(Stretches* st) const;
  void runs(const Stretches& st, GroupTable* out) const;
  // aggregate_partitioned.h: many groups in any order, partitioned by ranges of groups.
  void partitioned(size_t n_groups, GroupTable* out) const;
  unsigned group_bits() const;
  template <class Rec>
  void partitioned_as(size_t n_groups, GroupTable* out) const;
  template <class Rec>
  Rec record(size_t u) const;
  template <class Rec>
  void add(const Rec& r, Sums* s) const;

 private:
  const MetricTable& m_;
  const Units& u_;
  size_t k_;
  bool totals_;
};

}  // namespace
}  // namespace clusterscore::levels_detail
