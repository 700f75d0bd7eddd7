// How many pairs to judge (docs/metrics.md, judging, "planning the judgements"): the stratum sizes
// that bring each requested estimate's interval to a half-width, from the diff's exact multipliers
// and the class proportions (the worst case 1/2, or a judged pilot's).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "clusterscore/pair_sample.h"

namespace clusterscore {

struct PlanRequest {
  SampleTotals totals;  // of the diff to be judged
  // The share of i ≡ j among judged split, merge and stable non-self pairs.
  double same_split = 0.5, same_merge = 0.5, same_stable = 0.5;
  double half_width = 0.01;  // > 0
  double confidence = 0.95;  // in (0, 1)
  // Among plannable_metrics(); empty: the good and bad split and merge distances and the
  // affected indices.
  std::vector<std::string> metrics;
};

struct Plan {
  uint64_t pairs = 0;         // diff pairs to draw (the diff stratum)
  uint64_t stable_pairs = 0;  // stable pairs to draw (the stable stratum)
  uint64_t judgements = 0;    // at most this many verdicts: the draws that are not self pairs
  std::vector<std::pair<std::string, double>> predicted_half_width;  // per metric asked for
};

// The metrics a plan can be made for.
const std::vector<std::string>& plannable_metrics();

// Each stratum gets the fewest draws that bring every metric estimated from it to the
// half-width, by the normal approximation: a metric's variance is K / n for its stratum's
// n draws (split pairs take the share sd / (sd + md) of the diff draws, non-self stable
// pairs the share 1 − self of the stable ones). A metric whose multiplier is 0 is exact
// and needs none. Throws std::invalid_argument for an unknown metric, a proportion outside
// [0, 1] or options out of range. O(metrics).
Plan plan_pairs(const PlanRequest& request);

}  // namespace clusterscore
