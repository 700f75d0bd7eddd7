// Uncertainty of scores against a truth that is a sample of truth clusters (docs/metrics.md,
// intervals and the truth scope): each run's estimates, and the delta
// of every metric between two runs, overall and per slice, from a bootstrap that draws
// truth clusters with replacement, the same draws for every run (so deltas are paired).
//
// Entities scope (and ABCDE impact): a truth item's values do not depend on which other
// truth clusters were sampled, so a weighted mean is Σ_c d_c·S_c / Σ_c d_c·W_c, with S_c
// the sum of weight·value over truth cluster c's items, W_c their weight and d_c its
// design weight (a pair metric: a ratio of two such sums), and a resample gives cluster
// c drawn n times the factor n in every sum (ClusterSums).
//
// Common scope: a truth item's false positives are the items of *other sampled* truth
// clusters in its actual cluster, so the score is a U-statistic of the sample, and summing
// fixed per-cluster values misses the variance of which clusters are sampled together
// (standard errors 15-20% too small in simulation). Each resample therefore recomputes
// every cell from the drawn clusters: its actual cluster holds n_c' copies of each other
// truth cluster c' but only one copy of its own (copies of one cluster are one entity, not
// a false merge), and the cell counts n times in every mean (CellSums). Redrawing overstates
// the part of the spread that pairs of truth clusters make, so there the spread is then
// brought to the design's, estimated from it and a delete-one (or, past 200 clusters,
// delete-a-group) jackknife's (detail::pair_corrected).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "comparison/comparison.h"

namespace clusterscore {

// Per (truth cluster, group) holding common items of one run: the sums of its means and
// pair metrics.
struct ClusterSums {
  size_t n_clusters = 0;                 // truth clusters (side A of the comparison)
  size_t n_groups = 0;                   // groups of the grouping (1 without one)
  std::vector<std::string> names;        // the metrics that are means: S / W
  bool pairs = false;                    // then 3 sums more: the pair sums together, actual, truth
  std::vector<uint32_t> cluster, group;  // per entry
  std::vector<double> weight;            // per entry: W (compensated)
  std::vector<double> sums;              // per entry, width() of them (compensated)
  std::vector<double> design;            // per truth cluster (empty: all 1)
  // Per truth cluster, its inclusion probability π_c (Comparison::inclusion(); empty where
  // none is known): a resample counts cluster c drawn n times 1 + √(1 − π_c)·(n − 1) times,
  // which gives it the variance (1 − π_c) times the bootstrap's, as sampling without
  // replacement does (the finite-population correction, cluster by cluster: a cluster drawn
  // surely does not vary at all). One share for every cluster put the certain largest
  // entities' spread on the rest: with half the entities drawn in proportion to size, pair
  // recall covered 99% and precision 92% in simulation. Each in [0, 1].
  std::vector<double> inclusion;
  size_t size() const { return cluster.size(); }
  size_t width() const { return names.size() + (pairs ? 3 : 0); }
};

// Per (cell, group) holding common items of one pointwise run in the common scope, with
// what recomputing the cells needs.
struct CellSums {
  size_t n_clusters = 0, n_cols = 0, n_groups = 0;  // truth clusters, actual clusters meeting
                                                    // T, groups
  std::vector<uint32_t> row, col;                   // per cell (col: dense among n_cols)
  std::vector<double> cell_weight;                  // per cell, over T
  std::vector<double> row_weight;                   // per truth cluster, over T
  double scale = 1;                                 // pair_scale(): the pair terms' weights × scale
  // The share f of the population's entities the truth clusters are (Comparison::
  // sampled_share(); 0 where unknown): the spread is brought to the design's, without
  // replacement, by it (detail::pair_corrected). One share for all clusters: a per-cluster
  // correction (as ClusterSums') read from the jackknife covered precision 89% in
  // simulation, where a pair of clusters drawn with unequal π shrinks by 1 − π_a·π_b. In
  // [0, 1].
  double sampled_share = 0;
  // The same share for the pair metrics, whose terms a cluster holds in proportion to its
  // squared weight: the inclusion probabilities weighted by (d_c·w(c)²)², so that the
  // certain largest clusters, which carry most pairs, count as drawn surely
  // (Comparison::pair_sampled_share()). In [0, 1].
  double pair_share = 0;
  // Where the design states inclusion probabilities: the same run's sums per truth cluster
  // (truth_cluster_sums(), kept to precision, recall and the pair sums, the columns read),
  // for the metrics a truth cluster fixes alone, whatever else is
  // drawn (recall, under_merge_rate, pair_recall: its items' cells and its own weight).
  // Theirs need no pair correction, and each cluster's own finite-population correction
  // (ClusterSums::inclusion) is then exact: one share for all had them over-cover (99-100%
  // with half the entities drawn in proportion to size), the certain largest clusters'
  // spread put on the rest.
  std::optional<ClusterSums> alone;
  std::vector<uint32_t> cell, group;      // per entry, the entries of a cell together
  std::vector<double> weight, weight_sq;  // per entry: Σw, Σ(w·scale)² (compensated)
  size_t size() const { return cell.size(); }
};

// ClusterSums of a comparison in the entities scope or of the impact family, CellSums of
// a pointwise comparison in the common scope; per group of `grouping` (null: every item in
// group 0). Items outside T, or in no group (kNone), are left out. O(items) expected time.
ClusterSums truth_cluster_sums(const Comparison& c, const ItemGrouping* grouping);
CellSums cell_sums(const Comparison& c, const ItemGrouping* grouping);
// What the bootstrap needs of one run: CellSums where the common scope's pointwise scores
// are recomputed from the clusters drawn, ClusterSums otherwise (the choice above).
std::variant<ClusterSums, CellSums> run_sums(const Comparison& c, const ItemGrouping* grouping);
// run_sums() of several groupings at once (null: every item in one group), their groups
// numbered one grouping after another (grouping i's from the sum of the earlier ones'
// n_groups): one bootstrap then draws the resamples once for all of them, and each
// grouping's rows are the same bits as its own bootstrap's. Throws std::invalid_argument
// for no groupings.
std::variant<ClusterSums, CellSums> run_sums(const Comparison& c,
                                             const std::vector<const ItemGrouping*>& groupings);

struct BootstrapOptions {
  uint32_t resamples = 1000;  // > 0
  uint64_t seed = 0;          // resample r draws from its own generator of (seed, r): the same
                              // resamples on any number of threads
  double confidence = 0.95;   // in (0, 1)
  // Per truth cluster, its place in the order resamples draw clusters in (a permutation of
  // 0..n_clusters-1; empty: their own order). The caller's order of the clusters' ids makes
  // a seed's resamples independent of the row order of the input and of the engine that
  // numbered them.
  std::vector<uint32_t> cluster_rank;
};

// The spread of a statistic over the resamples where it is defined: its standard
// deviation (n − 1 in the denominator; NaN under 2 resamples) and its percentile interval
// at `confidence` moved by (full-sample value − median of the resamples), so that it is
// centred as the estimate is (quantiles interpolate linearly between order statistics,
// as numpy's default); for CellSums, then brought to the design's variance and widened to
// hold estimate ± z·SE (detail::pair_corrected).
//
// Every interval is honest (docs/metrics.md, intervals): it lies within the metric's range
// ([0, 1] for a value, [-1, 1] for a delta) and holds the estimate; where a group holds
// fewer than two truth clusters, or no resample moves the statistic (an interval of zero
// width, which would claim the value is known exactly), there is none: std_error,
// ci_low and ci_high are NaN and `none` says why.
enum class NoInterval : uint8_t {
  kNo = 0,         // there is an interval
  kFewClusters,    // its group holds fewer than two truth clusters
  kNothingMovesIt  // every resample gives the same value
};
struct Spread {
  double std_error = 0, ci_low = 0, ci_high = 0;
  uint32_t resamples = 0;
  uint32_t units = 0;  // the truth clusters its group holds (of both runs, for a delta)
  NoInterval none = NoInterval::kNo;
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
  // The means' names, then f1_of_means if precision and recall are among them, then
  // pair_precision, pair_recall and pair_f1 for pointwise runs.
  std::vector<std::string> metrics;
  size_t clusters = 0;           // truth clusters holding common items of some run; under
                                 // 2, nothing varies: every spread is NaN, from 0 resamples
  std::vector<ValueRow> values;  // by run, group, metric; groups with weight in the run
  std::vector<DeltaRow> rows;    // by pair (a, b) in order, group, metric; only where both
                                 // estimates are defined
};

// Throws std::invalid_argument for no runs, runs of different truth clusters, design
// weights, groups or metrics, or options out of range. Deterministic for a given seed.
// O(resamples × (clusters + Σ entries × metrics)) time (CellSums: entries of the cells
// whose actual cluster holds several truth clusters' items, the others summed per truth
// cluster once (intervals/recomputed_cells.h), and as many jackknife replicates as
// clusters, at most 200, each costing what a resample does); every resample's values are
// kept: (runs + pairs) × groups × metrics × resamples doubles.
BootstrapResult paired_bootstrap(const std::vector<ClusterSums>& runs, const BootstrapOptions& o);
BootstrapResult paired_bootstrap(const std::vector<CellSums>& runs, const BootstrapOptions& o);

}  // namespace clusterscore
