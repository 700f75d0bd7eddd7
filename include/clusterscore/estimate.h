// Estimates of the quality of a diff from judged pairs (docs/metrics.md, judging).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "clusterscore/ids.h"
#include "clusterscore/pair_sample.h"

namespace clusterscore {

enum class Verdict : uint8_t { kSame, kDifferent, kUnsure, kMissing };

// One row per distinct sampled pair (as PairSampleTable), with its verdict. Self pairs
// count as kSame whatever their verdict says.
struct JudgedSample {
  std::span<const PairKind> kind;
  std::span<const uint8_t> stratum;
  std::span<const uint64_t> draws;
  std::span<const double> U, B, E;
  std::span<const Verdict> verdict;
  SampleTotals totals;
  SampleMode mode = SampleMode::kPlain;  // distance only: no stable estimate, no delta_precision
  // Per pair, its unit of the standard error: the row of its unordered pair's first order
  // (a pair drawn as (i, j) and as (j, i) has one verdict, so its rows vary together).
  // Empty: every row its own unit.
  std::span<const uint32_t> unit;
};

// An estimate with its standard error and 95% interval; absent (nullopt) when no judged
// pair informs it. `pairs` counts the judged draws used; `exact`: known from the diff
// alone (a multiplier of 0), interval [estimate, estimate].
struct Estimate {
  std::string name;
  std::optional<double> estimate, std_error, ci_low, ci_high;
  uint64_t pairs = 0;
  bool exact = false;
};

// Every estimate of docs/metrics.md, judging, in a fixed order: good/bad split and merge distances,
// good/bad distance, affected good/bad index, delta_precision, good/bad split and merge
// rates. Unsure and missing verdicts are dropped and each class (split, merge, other
// stable) re-weighted to keep its sampled total. Self pairs are not estimated: their part
// (totals.self_mass, self_delta) is known. Standard errors take the distinct unordered pair
// (JudgedSample::unit) as the unit. Intervals: Wilson-type on the effective number of judgements
// for the distances and indices (never of zero width unless exact), normal elsewhere but no
// narrower than the Wilson width of the judged share, all within the metric's range ([0,
// multiplier], [0, 1] for rates, [−1, 1] for delta_precision). Throws std::invalid_argument on
// inconsistent lengths or a unit past the pairs. O(pairs).
std::vector<Estimate> estimate(const JudgedSample& sample);

// The share of i ≡ j among the judged split, merge and stable non-self pairs: the class
// proportions the estimates scale (nullopt for a class without a judged pair), as a
// judged pilot gives them to the planner (plan.h). O(pairs).
struct JudgedShares {
  std::optional<double> split, merge, stable;
};
JudgedShares judged_shares(const JudgedSample& sample);

// Shares of the distance by the value of an attribute of item i (docs/metrics.md, judging,
// exploring the difference): each diff pair's draws carry its stratum's mass / the stratum's draws.
struct Contributions {
  std::vector<uint32_t> first_pair;  // per value: a pair holding it
  std::vector<uint64_t> draws;
  std::vector<double> jaccard_distance, split_distance, merge_distance;
};
Contributions contributions(const IdColumn& value_of_pair, const JudgedSample& sample);

// For each verdict row (vi[r], vj[r]), the index of the sample pair (si, sj) with the same
// two ids, or kNone. Ids of one kind (all integers or all strings). O(rows) expected.
std::vector<uint32_t> match_pairs(const IdColumn& si, const IdColumn& sj, const IdColumn& vi,
                                  const IdColumn& vj);

}  // namespace clusterscore
