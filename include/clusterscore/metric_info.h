// What every metric the library reports is, in one list: its group, which direction is
// better, its range and its unit. Presentation reads it (which deltas are improvements,
// how many decimals, which chart axis); tests and docs check every reported name against it.
#pragma once

#include <span>
#include <string_view>

namespace clusterscore {

// Where a metric comes from. A name may appear in two groups with two meanings
// (jaccard_distance: an item's error against a truth, or how much a diff changed it).
enum class MetricGroup {
  kPointwise,  // evaluate: an actual clustering against a truth, per item and its means
  kImpact,     // diff: how Exp differs from Base
  kEstimate,   // estimate: judged shares of a diff
  kClassic,    // clusterscore.metrics and evaluate --classic
};

// Which direction of a change is an improvement. kNeither: a size of change, or a count.
enum class Better { kHigher, kLower, kNeither };

// How a value reads: a share or score (four decimals), a count of items or clusters
// (whole, with thousands separators), a sum of item weights (thousands separators, two
// decimals), or an unbounded score (four decimals).
enum class Unit { kShare, kCount, kWeight, kScore };

struct MetricInfo {
  std::string_view name;
  MetricGroup group;
  Better better;
  Unit unit;
  double low, high;  // the range; ±infinity where unbounded
  // The same value with the two clusterings swapped (truth and actual, Base and Exp, or
  // the two labelings). False where the swap gives another metric (precision ↔ recall),
  // and for estimates, whose judged pairs belong to one direction of the diff.
  bool symmetric;
  // Accepts item weights; false for the two adjusted classic metrics, whose chance models
  // need counts (weighted, they are null).
  bool weightable;
};

// Every metric, by group, in the order the library reports them. O(1).
std::span<const MetricInfo> metric_registry() noexcept;

}  // namespace clusterscore
