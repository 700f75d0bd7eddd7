// Several actual clusterings scored against one truth (SPEC §1, "several actual
// clusterings, one truth"): the delta of every metric between two runs, overall and per
// slice, with an uncertainty from a paired bootstrap that resamples the truth's clusters.
//
// The truth is itself a sample of clusters, so each truth cluster is a unit: a weighted
// mean over items is Σ_c S_c / Σ_c W_c, with S_c the sum of weight·value over the
// cluster's common items and W_c their weight. A resample draws as many truth clusters as
// there are, with replacement, and gives cluster c the weight n_c (its number of draws)
// in both sums; every run gets the same draws, so the deltas are paired. Per-item values
// are those of the full evaluation (the usual cluster bootstrap of a ratio of sums).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clusterscore/comparison.h"

namespace clusterscore {

// The sums of a weighted mean, per (truth cluster, group) holding common items of one run.
struct ClusterSums {
  size_t n_clusters = 0;                 // truth clusters (side A of the comparison)
  size_t n_groups = 0;                   // groups of the grouping (1 without one)
  std::vector<std::string> names;        // the metrics summed
  std::vector<uint32_t> cluster, group;  // per entry
  std::vector<double> weight;            // per entry: W (compensated)
  std::vector<double> sums;              // per entry, names.size() of them: S (compensated)
  size_t size() const { return cluster.size(); }
};

// Per truth cluster (side A) and group of `grouping` (null: every item in group 0).
// Items outside T, or in no group (kNone), are left out. O(items) expected time.
ClusterSums truth_cluster_sums(const Comparison& c, const ItemGrouping* grouping);

struct BootstrapOptions {
  uint32_t resamples = 1000;  // > 0
  uint64_t seed = 0;
  double confidence = 0.95;  // in (0, 1)
};

// One metric of one group, for runs a < b: their weighted means on all truth clusters,
// delta = value_b − value_a, and over the resamples where both means are defined (the
// group has weight in both): the standard deviation of the deltas (std_error, n − 1 in
// the denominator; NaN under 2 resamples) and their percentile interval at
// `confidence` (linear interpolation between order statistics, as numpy's default).
struct DeltaRow {
  uint32_t run_a = 0, run_b = 0, group = 0, metric = 0;
  double value_a = 0, value_b = 0, delta = 0, std_error = 0, ci_low = 0, ci_high = 0;
  uint32_t resamples = 0;
};

struct BootstrapResult {
  std::vector<std::string> metrics;  // the runs' names, then f1_of_means if precision and
                                     // recall are among them
  std::vector<DeltaRow> rows;        // by pair (a, b) in order, group, metric; only groups
                                     // with weight in both runs
};

// Throws std::invalid_argument for fewer than two runs, runs of different truth clusters,
// groups or metrics, or options out of range. Deterministic for a given seed.
// O(resamples × (clusters + Σ entries × metrics)) time; the deltas of every resample are
// kept: pairs × groups × metrics × resamples doubles.
BootstrapResult paired_bootstrap(const std::vector<ClusterSums>& runs, const BootstrapOptions& o);

}  // namespace clusterscore
