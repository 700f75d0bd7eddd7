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

// One row per distinct sampled pair (as PairSampleTable), with the verdicts on it. Self
// pairs count as i ≡ j whatever their verdicts say.
struct JudgedSample {
  std::span<const PairKind> kind;
  std::span<const uint8_t> stratum;
  std::span<const uint64_t> draws;
  std::span<const double> U, B, E;
  // Per pair, the verdicts on its unordered pair (the same on both orders' rows): `votes`
  // raters said same or different (0: none, or only unsure), `same` of them said i ≡ j.
  // A pair judged by several raters has their mean as its verdict.
  std::span<const uint32_t> same, votes;
  SampleTotals totals;
  SampleMode mode = SampleMode::kPlain;  // distance only: no stable estimate, no delta_precision
  // Per pair, its unit of the standard error: the row of its unordered pair's first order
  // (a pair drawn as (i, j) and as (j, i) has one verdict, so its rows vary together).
  // Empty: every row its own unit.
  std::span<const uint32_t> unit;
  // What each stratum's labels need (all 0: not known, nothing marked).
  DrawsNeeded needed;
};

// An estimate with its standard error and 95% interval; absent (nullopt) when no judged
// pair informs it. `pairs` counts the judged draws used; `exact`: known from the diff
// alone (a multiplier of 0), interval [estimate, estimate]. `draws_needed` > 0: unreliable,
// the judged draws of `needed_of` (e.g. "stable pairs") fall short of what the tail of its
// labels needs (DrawsNeeded) for the normal interval to hold.
struct Estimate {
  std::string name;
  std::optional<double> estimate, std_error, ci_low, ci_high;
  uint64_t pairs = 0;
  bool exact = false;
  uint64_t draws_needed = 0;
  std::string needed_of;
};

// What the replicated pairs (judged by two raters or more) say of the raters: `noise`, the
// pooled within-pair variance of verdicts Σ_j Σ_k (v_jk − v̄_j)² / Σ_j (m_j − 1) over every
// replicated non-self pair; per class (split, merge, stable) its replicated pairs and the
// share of their pairs of verdicts that disagree. `measured`: some pair is replicated.
struct RaterAgreement {
  bool measured = false;
  double noise = 0;
  uint64_t replicated[3] = {0, 0, 0};
  std::optional<double> disagreement[3];
};
RaterAgreement rater_agreement(const JudgedSample& sample);

// Every estimate of docs/metrics.md, judging, in a fixed order: good/bad split and merge distances,
// good/bad distance, affected good/bad index, delta_precision, good/bad split and merge
// rates. Unsure and missing verdicts are dropped and each class (split, merge, other
// stable) re-weighted to keep its sampled total. Self pairs are not estimated: their part
// (totals.self_mass, self_delta) is known. The variance of a class mean over N judged draws
// is the draws' with-replacement variance plus the raters' noise each distinct unordered
// pair (JudgedSample::unit) carries into all of its draws, Σ_j n_j(n_j − 1)/N² · σ̂²/m_j;
// without a replicated pair (noise not measured) the conservative distinct-pair form. Intervals:
// Wilson-type on the effective number of judgements for the distances and indices (never of zero
// width unless exact), normal elsewhere but no narrower than the Wilson width of the judged share,
// all within the metric's range ([0, multiplier], [0, 1] for rates, [−1, 1] for delta_precision).
// Throws std::invalid_argument on inconsistent lengths, a stratum other than 0 or 1, a unit past
// the pairs or more same verdicts than votes (so do the other functions of a JudgedSample).
// O(pairs).
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

// The `count` most-drawn distinct non-self unordered pairs, as the rows of their first
// order (`unit` as JudgedSample's: a pair's draws in both orders add; empty: every row
// its own pair), the most drawn first, ties in row order: the pairs a second rater judges
// so that the raters' noise is measured where it weighs most. Throws
// std::invalid_argument on inconsistent lengths. O(pairs log pairs).
std::vector<uint32_t> replicated_pairs(std::span<const PairKind> kind,
                                       std::span<const uint64_t> draws,
                                       std::span<const uint32_t> unit, uint64_t count);

// For each verdict row (vi[r], vj[r]), the index of the sample pair (si, sj) with the same
// two ids, or kNone. Ids of one kind (all integers or all strings). O(rows) expected.
std::vector<uint32_t> match_pairs(const IdColumn& si, const IdColumn& sj, const IdColumn& vi,
                                  const IdColumn& vj);

}  // namespace clusterscore
