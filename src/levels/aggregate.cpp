#include "levels/aggregate.h"

#include <iterator>
#include <stdexcept>

#include "detail/simd.h"
#include "input/clustering.h"
#include "levels/aggregate_in_place.h"
#include "levels/aggregate_partitioned.h"
#include "levels/aggregate_runs.h"
#include "levels/unit_sums.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore {
namespace {

using levels_detail::Aggregator;
using levels_detail::kInPlaceBytes;
using levels_detail::Stretches;
using levels_detail::Sums;
using levels_detail::Sums8;
using levels_detail::WithPairs;

// `k`: the means' columns, which alone choose the strategy (as they did before the pair
// sums joined: the same strategy, the same order of additions, the same bits).
template <class Sums>
[[gnu::always_inline]] inline void run(const Aggregator<Sums>& a, size_t n_groups, size_t k,
                                       GroupTable* out) {
  Stretches st;
  if (n_groups * (k + 1) * sizeof(detail::KahanSum) <= kInPlaceBytes)
    a.in_place(n_groups, out);
  else if (a.groups_in_order(&st))
    a.runs(st, out);
  else
    a.partitioned(n_groups, out);
}

template <class Sums>
void run_with(const MetricTable& table, const Units& units, size_t n_groups, bool totals,
              const PairInputs* pairs, GroupTable* out) {
  const size_t k = table.width();
  if (pairs)
    run(Aggregator<WithPairs<Sums>>(table, units, totals, pairs), n_groups, k, out);
  else
    run(Aggregator<Sums>(table, units, totals), n_groups, k, out);
}

// aggregate() and aggregate_totals(): sums (totals) or means of the metrics of `per_cell`.
CLUSTERSCORE_SIMD_CLONES
GroupTable aggregate_as(const MetricTable& per_cell, const Units& units, size_t n_groups,
                        const std::vector<std::pair<std::string, std::string>>& rename, bool totals,
                        const PairInputs* pairs) {
  const size_t n_units = units.group.size();
  if (units.weight.size() != n_units || (!units.count.empty() && units.count.size() != n_units) ||
      (!units.cell.empty() && units.cell.size() != n_units) ||
      (!units.weight_sq.empty() && units.weight_sq.size() != n_units))
    throw std::invalid_argument("clusterscore: aggregate() unit arrays differ in length");
  if (n_units >= kNone) throw std::length_error("clusterscore: too many units to aggregate");
  // A unit of several items (or a whole cell) pairs them among themselves: its Σw² is
  // needed.
  if (pairs && (!units.count.empty() || pairs->over_cells) && units.weight_sq.empty())
    throw std::invalid_argument("clusterscore: pair sums over units need their squared weights");
  if (pairs && pairs->cell.size() != per_cell.n_rows)
    throw std::invalid_argument("clusterscore: pair inputs are needed for every cell");
  GroupTable out;
  for (std::string name : per_cell.names) {
    for (const auto& [from, to] : rename)
      if (name == from) name = to;
    out.names.push_back(name);
  }
  if (pairs) out.names.insert(out.names.end(), std::begin(kPairSumNames), std::end(kPairSumNames));
  out.columns.resize(out.names.size());
  // Without columns every unit reads the same empty row: a stride of 0.
  static const MetricTable kNoMetrics;
  const MetricTable& table = per_cell.width() == 0 ? kNoMetrics : per_cell;
  if (table.stride == 8)
    run_with<Sums8>(table, units, n_groups, totals, pairs, &out);
  else
    run_with<Sums>(table, units, n_groups, totals, pairs, &out);
  return out;
}

}  // namespace

GroupTable aggregate(const MetricTable& per_cell, const Units& units, size_t n_groups,
                     const std::vector<std::pair<std::string, std::string>>& rename,
                     const PairInputs* pairs) {
  return aggregate_as(per_cell, units, n_groups, rename, false, pairs);
}

GroupTable aggregate_totals(const MetricTable& per_cell, const Units& units, size_t n_groups,
                            const PairInputs* pairs) {
  return aggregate_as(per_cell, units, n_groups, {}, true, pairs);
}

}  // namespace clusterscore
