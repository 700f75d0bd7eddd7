// Uncertainty of scores against a truth that is a sample (SPEC §1, "several actual
// clusterings, one truth", and §1b): each run's estimates, and the delta of every metric
// between two runs, overall and per slice, from a bootstrap that resamples independent
// units of the truth, the same draws for every run (so the deltas are paired).
//
// A weighted mean over items is Σ_c d_c·S_c / Σ_c d_c·W_c, with S_c the sum of
// weight·value over truth cluster c's common items, W_c their weight and d_c its design
// weight; a pair metric is a ratio of two such sums. A resample draws as many units as
// there are, with replacement, and gives every truth cluster of a unit drawn n times the
// factor n in every sum. Per-item values are those of the full evaluation (the usual
// cluster bootstrap of a ratio of sums).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clusterscore/comparison.h"

namespace clusterscore {

// The sums of a run's means and pair metrics, per (truth cluster, group) holding common
// items of the run.
struct ClusterSums {
  size_t n_clusters = 0;                 // truth clusters (side A of the comparison)
  size_t n_groups = 0;                   // groups of the grouping (1 without one)
  std::vector<std::string> names;        // the metrics that are means: S / W
  bool pairs = false;                    // then 3 sums more: PairSums' together, actual, truth
  std::vector<uint32_t> cluster, group;  // per entry
  std::vector<double> weight;            // per entry: W (compensated)
  std::vector<double> sums;              // per entry, width() of them (compensated)
  std::vector<double> design;            // per truth cluster (empty: all 1)
  size_t size() const { return cluster.size(); }
  size_t width() const { return names.size() + (pairs ? 3 : 0); }
};

// Per truth cluster (side A) and group of `grouping` (null: every item in group 0), with
// the comparison's design weights; pair sums for pointwise comparisons. Items outside T,
// or in no group (kNone), are left out. O(items) expected time.
ClusterSums truth_cluster_sums(const Comparison& c, const ItemGrouping* grouping);

// The resampling unit of each truth cluster in the common scope: truth clusters joined,
// transitively, by sharing an actual cluster (on T) in any of `runs` (which share their
// truth), numbered densely in order of their smallest truth cluster. O(cells).
std::vector<uint32_t> linked_units(const std::vector<const Comparison*>& runs);

struct BootstrapOptions {
  uint32_t resamples = 1000;  // > 0
  uint64_t seed = 0;
  double confidence = 0.95;  // in (0, 1)
  // Per truth cluster, its resampling unit in [0, max + 1) (empty: each its own unit).
  std::vector<uint32_t> units;
};

// The spread of a statistic over the resamples where it is defined: its standard
// deviation (n − 1 in the denominator; NaN under 2 resamples) and percentile interval at
// `confidence` (linear interpolation between order statistics, as numpy's default).
struct Spread {
  double std_error = 0, ci_low = 0, ci_high = 0;
  uint32_t resamples = 0;
};

// One metric of one group of one run: its estimate on all truth clusters, and its spread.
struct ValueRow {
  uint32_t run = 0, group = 0, metric = 0;
  double estimate = 0;
  Spread spread;
};

// One metric of one group, for runs a < b: their estimates, delta = value_b − value_a,
// and the spread of the deltas over the resamples where both are defined.
struct DeltaRow {
  uint32_t run_a = 0, run_b = 0, group = 0, metric = 0;
  double value_a = 0, value_b = 0, delta = 0;
  Spread spread;
};

struct BootstrapResult {
  // The runs' mean names, then f1_of_means if precision and recall are among them, then
  // pair_precision, pair_recall and pair_f1 if the runs have pair sums.
  std::vector<std::string> metrics;
  size_t units = 0;              // resampling units holding an entry of some run; under 2,
                                 // nothing varies: every spread is NaN, from 0 resamples
  std::vector<ValueRow> values;  // by run, group, metric; groups with weight in the run
  std::vector<DeltaRow> rows;    // by pair (a, b) in order, group, metric; only where both
                                 // estimates are defined
};

// Throws std::invalid_argument for no runs, runs of different truth clusters, groups or
// metrics, or options out of range. Deterministic for a given seed. O(resamples × (units
// + Σ entries × metrics)) time; every resample's values are kept: (runs + pairs) × groups
// × metrics × resamples doubles.
BootstrapResult paired_bootstrap(const std::vector<ClusterSums>& runs, const BootstrapOptions& o);

}  // namespace clusterscore
