// Weighted sampling of item pairs for judging a diff (docs/metrics.md, judging): pairs (i, j) with
// j ∈ Base(i) ∪ Exp(i) drawn with replacement in proportion to
// w_ij = w(i)·w(j) / (w(T)·U_i), without ever enumerating pairs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "clusterscore/pair_sample.h"
#include "comparison/comparison.h"

namespace clusterscore {

// Which pairs a stratum draws from.
enum class Population : uint8_t {
  kAll,     // split and merge pairs of every item, stable and self pairs of affected items
  kDiff,    // split and merge pairs only
  kStable,  // stable and self pairs of affected items only
};

SampleTotals sample_totals(const Comparison& diff);

// What each stratum of a sample drawn in `mode` needs (pair_sample.h). O(items + cells).
DrawsNeeded draws_needed(const Comparison& diff, SampleMode mode);

// Draws the sample. `diff` must be an impact comparison of items. Throws
// std::invalid_argument if a stratum with draws has an empty population (e.g. no item
// changed), or if `diff` holds units (ItemsInput::counts). O(items +
// cells) set-up, then O(log cells + log cluster size) a draw.
PairSampleTable sample_pairs(const Comparison& diff, const SampleOptions& options);

// Every draw of a sample, in draw order, down to the units that hold its two items, for a
// diff of units (ItemsInput::counts) whose items another engine holds. Unit indices are
// joined-item indices; `at_i` and `at_j` in [0, 1) say where in its unit's weight the item
// lies: the engine takes the unit's items in a canonical order (by id) and picks the first
// whose running weight exceeds at × the unit's weight. kStable means stable or self (the
// same item twice), which the engine decides. The same draws as sample_pairs() makes (for
// single items, each unit is its item). Throws as sample_pairs() does, units aside.
struct UnitPairDraws {
  std::vector<uint32_t> unit_i, unit_j;
  std::vector<double> at_i, at_j;
  std::vector<PairKind> kind;
  std::vector<uint8_t> stratum;  // 0: the plain or diff stratum, 1: the stable stratum
  std::vector<double> U, B, E;   // item i's union, Base and Exp weights (within T)
};
UnitPairDraws sample_unit_pairs(const Comparison& diff, const SampleOptions& options);

// What that engine does with a unit's position: per draw d, the member of group
// draw_group[d] whose running weight first exceeds at[d] × the group's weight (members of
// a group in the order given; the same rule the sampler draws by). `member_group` and
// `weight` are per member. Returns member indices; throws std::invalid_argument for a draw
// into a group without members. O(members + draws × log group size).
std::vector<uint32_t> pick_by_weight(std::span<const uint32_t> member_group,
                                     std::span<const double> weight,
                                     std::span<const uint32_t> draw_group,
                                     std::span<const double> at);

}  // namespace clusterscore
