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
#include "levels/pair_terms.h"
#include "levels/unit_sums.h"

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

// A unit as the partitioned path carries it: 16 bytes, or 32 with an item count and Σw²
// (a size that divides a cache line, so that detail::LineScatter buffers one line per
// stream).
struct WeightedUnit {
  double weight;
  uint32_t cell, group;
};
struct alignas(32) CountedUnit {
  double weight;
  uint64_t count;
  uint32_t cell, group;
  double weight_sq;  // read by the pair sums only
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
  // `pairs` (null: none) for a Paired<Sums> only.
  Aggregator(const MetricTable& per_cell, const Units& units, bool totals,
             const PairInputs* pairs = nullptr)
      : m_(per_cell), u_(units), p_(pairs), k_(per_cell.width()), totals_(totals) {}

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
  [[gnu::always_inline]] void prefetch_unit(size_t u) const { prefetch_cell(cell(u)); }
  [[gnu::always_inline]] void prefetch_cell(uint32_t k) const {
    const double* row = m_.row(k);
    detail::prefetch(row);
    if (k_ > 8) detail::prefetch(row + k_ - 1);
    if constexpr (Paired<Sums>) detail::prefetch(&p_->cell[k]);
  }
  void add(size_t u, Sums* s) const {
    const uint64_t count = u_.count.empty() ? 1 : u_.count[u];
    double sq = 0.0;  // read only where the pair sums need it
    if constexpr (Paired<Sums>) sq = u_.weight_sq.empty() ? 0.0 : u_.weight_sq[u];
    add_unit(u_.weight[u], count, sq, cell(u), s);
  }
  // One unit of `count` items, weight w and Σw² `sq` (0 where not given), in cell k.
  [[gnu::always_inline]] void add_unit(double w, uint64_t count, double sq, uint32_t k,
                                       Sums* s) const {
    s->count += count;
    if constexpr (Paired<Sums>) {
      const PairCell& c = p_->cell[k];
      // Times a design weight of 1 (no design) is exact: the same bits as w alone.
      const double wd = w * c.design;
      s->weight.add(wd);
      s->add_metrics(wd, m_.row(k));
      const detail::PairTerms x = pair_terms(w, count, sq, c);
      s->pairs.together.add(c.design * x.together);
      s->pairs.actual.add(c.design * x.actual);
      s->pairs.truth.add(c.design * x.truth);
      s->pairs.weight.add(w);
    } else {
      s->weight.add(w);
      s->add_metrics(w, m_.row(k));
    }
  }
  // A unit's pair terms (levels/pair_terms.h): a whole cell's from its Σw², unscaled; an
  // item's, or a unit's of several items, scaled.
  [[gnu::always_inline]] detail::PairTerms pair_terms(double w, uint64_t count, double sq,
                                                      const PairCell& c) const {
    if (p_->over_cells) return detail::cell_pair_terms(w, sq, c.tp, c.actual, c.truth, 1.0);
    if (u_.weight_sq.empty()) return detail::item_pair_terms(w, c.tp, c.actual, c.truth, p_->scale);
    return detail::unit_pair_terms(w, sq, count, c.tp, c.actual, c.truth, p_->scale);
  }
  void emit(uint32_t g, const Sums& s, Output* out) const {
    if (s.count == 0) return;
    const double w = s.weight.value();
    double weight = w;
    if constexpr (Paired<Sums>) weight = s.pairs.weight.value();
    double* at = out->add(g, s.count, weight);
    // A division by 1 is exact: the totals are the sums' own values.
    s.means(totals_ ? 1.0 : w, k_, at, Output::kStage);
    if constexpr (Paired<Sums>) {
      at[k_ * Output::kStage] = s.pairs.together.value();
      at[(k_ + 1) * Output::kStage] = s.pairs.actual.value();
      at[(k_ + 2) * Output::kStage] = s.pairs.truth.value();
    }
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
  const PairInputs* p_;
  size_t k_;
  bool totals_;
};

}  // namespace
}  // namespace clusterscore::levels_detail
