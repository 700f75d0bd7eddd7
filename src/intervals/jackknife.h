// The delete-a-group jackknife over truth clusters (bootstrap.cpp): which clusters each
// replicate leaves out, the variance of a statistic from its replicates, and the
// bootstrap's spread brought to the design's with it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "input/clustering.h"
#include "intervals/bootstrap.h"
#include "intervals/deviations.h"

namespace clusterscore::detail {

// At most this many replicates: one per cluster up to it (the delete-one jackknife), then
// clusters share groups. A replicate costs about what a resample does, and the variance from
// 200 groups is known to ~10%: in simulation 100 groups of 3 clusters covered as 300 of 1.
inline constexpr size_t kJackknifeGroups = 200;

// Group g of the clusters left out together is members[start[g], start[g + 1]).
struct JackknifeGroups {
  std::vector<size_t> start;
  std::vector<uint32_t> members;
  size_t size() const { return start.size() - 1; }
};

// The clusters c with used[c], in the order of `rank` (rank[c] is c's place; empty: their
// own order), cut into min(their number, kJackknifeGroups) groups: the p-th in that order
// joins group p % groups, so that a group does not depend on how an engine numbered them.
inline JackknifeGroups jackknife_groups(const std::vector<bool>& used,
                                        const std::vector<uint32_t>& rank) {
  std::vector<uint32_t> by_rank(used.size(), kNone);
  for (uint32_t c = 0; c < used.size(); ++c)
    if (used[c]) by_rank[rank.empty() ? c : rank[c]] = c;
  std::vector<uint32_t> order;
  for (uint32_t c : by_rank)
    if (c != kNone) order.push_back(c);
  const size_t groups = std::min(order.size(), kJackknifeGroups);
  JackknifeGroups out;
  out.start.assign(groups + 1, 0);
  if (groups == 0) return out;
  for (size_t p = 0; p < order.size(); ++p) ++out.start[p % groups + 1];
  for (size_t g = 0; g < groups; ++g) out.start[g + 1] += out.start[g];
  out.members.resize(order.size());
  std::vector<size_t> at(out.start.begin(), out.start.end() - 1);
  for (size_t p = 0; p < order.size(); ++p) out.members[at[p % groups]++] = order[p];
  return out;
}

// The jackknife's variance of a statistic from its values with each group left out (NaN
// where undefined): (G − 1)/G · Σ (θ_g − their mean)² over the G defined ones; NaN under 2.
// For the mean of n values left out one at a time, this is their sample variance / n.
inline double jackknife_variance(const std::vector<double>& left_out) {
  const Deviations d = deviations(left_out);
  if (d.n < 2) return std::numeric_limits<double>::quiet_NaN();
  return d.squares * double(d.n - 1) / double(d.n);
}

// The bootstrap's spread `s` of a statistic brought to the variance of the sample design,
// for the pairs of truth clusters a common-scope estimate depends on (docs/metrics.md,
// intervals). A pair term's resampled factor n_a·n_b has variance 3 where the sample
// design's is about 1, while the terms of one cluster have the same variance in both: to
// first order the bootstrap's variance is L + 3P, the delete-one jackknife's L + 2P, and
// the design's L + P = 2·jackknife − bootstrap, kept within [bootstrap / 3, bootstrap]
// (all pairs, none). With a share f of the population drawn (BootstrapOptions::
// sampled_share) a cluster's terms vary as 1 − f and a pair's as 1 − f² (both of its
// clusters drawn): (1 − f)·L + (1 − f²)·P. The variance scales the standard error and the
// percentile interval's distances from the estimate, so the interval keeps its shape.
inline Spread pair_corrected(Spread s, double estimate, double jackknife, double share) {
  const double boot = s.std_error * s.std_error;
  if (!(boot > 0)) return s;
  const double design =
      std::isnan(jackknife) ? boot : std::clamp(2 * jackknife - boot, boot / 3, boot);
  const double pairs = (boot - design) / 2;  // P, from L + 3P and L + P
  const double k = std::sqrt(((1 - share) * design + share * (1 - share) * pairs) / boot);
  s.std_error *= k;
  s.ci_low = estimate + (s.ci_low - estimate) * k;
  s.ci_high = estimate + (s.ci_high - estimate) * k;
  return s;
}

}  // namespace clusterscore::detail
