// A comparison of two clusterings A and B on their common items T: the joined items,
// the cell table, per-cell metrics of one family, and every level of aggregation.
// `clusterscore::evaluate` (truth vs actual) and `diff` (base vs exp) are both this.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cells/cells.h"
#include "clusterscore/types.h"
#include "input/clustering.h"
#include "levels/aggregate.h"
#include "levels/metric_table.h"
#include "metrics/family.h"
#include "metrics/impact.h"
#include "metrics/pointwise.h"

namespace clusterscore {

enum class Side { kA, kB };

// Items grouped by the values of one or more items-table columns.
struct ItemGrouping {
  BigVector<uint32_t> item_group;  // per joined item
  size_t n_groups = 0;
  // Per group: an items-table row holding its values, or kNone for the group of items
  // that have no row in the items table, when no row has all its values null (else those
  // items are in that row's group: an item without a row has every value null).
  std::vector<uint32_t> group_row;
};

// `g` restricted to its groups `keep` (distinct, each < g.n_groups), renumbered in keep's
// order: items of the other groups are in no group (kNone), so a bootstrap by the result
// costs memory for the kept groups only. Throws std::invalid_argument for a bad `keep`.
// O(items + n_groups).
ItemGrouping keep_groups(const ItemGrouping& g, const std::vector<uint32_t>& keep);

// Rows of the per-item table for some common items: for each, its B cluster's first row,
// its weight, and its cell's columns of `counts` then of the cell metrics, in that order.
struct PerItemRows {
  BigVector<uint64_t> b_cluster_first_row;
  BigVector<double> weight;
  std::vector<std::string> names;          // counts' names, then the metrics'
  std::vector<BigVector<double>> columns;  // one per name, one value per item
};

// changed_flows(), each flow with the first rows of A and B that name its clusters.
struct ClusterFlows {
  FlowTable flows;
  BigVector<uint64_t> a_cluster_row, b_cluster_row;
};

// How the truth clusters were drawn (docs/metrics.md, truth scope).
enum class DesignKind : uint8_t {
  kUniform,      // each with the same probability: all design weights 1
  kInverseSize,  // in proportion to their size: inverse_size_design()
  kGiven,        // per A cluster, 1 / its inclusion probability, as given
};
struct Design {
  DesignKind kind = DesignKind::kUniform;
  std::vector<double> given;  // kGiven only
  // Means over entities (the entities scope's average="entities"): each cluster's design
  // weight divided by its items' weight in T, so that every cluster's mean counts by its
  // design weight alone.
  bool per_entity = false;
};

class Comparison {
 public:
  // Throws InputError as join() does, and when A and B share no item.
  Comparison(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items,
             MetricFamily family, TruthScope scope = TruthScope::kCommon);

  const JoinedClusterings& joined() const { return joined_; }
  const CellTable& cells() const { return cells_; }
  // Per cell, the metrics that are averaged over groups.
  const MetricTable& cell_metrics() const { return metrics_; }
  // Per cell, the weights they are made of (tp, fp, fn, tn or B, E, X, U), computed now.
  MetricTable cell_counts() const;
  MetricFamily family() const { return family_; }
  TruthScope scope() const { return scope_; }
  // The actual clusters' weights the metrics use (ActualMarginals; kPointwise).
  ActualMarginals marginals() const;

  // Design weights (docs/metrics.md, truth scope): per A cluster, the weight its items carry in
  // every mean (and pair sum) from now on; empty for all 1. Throws std::invalid_argument unless
  // there is one per A cluster, each finite and > 0. Weights and counts in the tables
  // stay those of the items.
  void set_design(std::vector<double> design);
  const std::vector<double>& design() const { return design_; }
  // Per cell, its pair inputs with design() (pair_cells(); kPointwise, else empty).
  const BigVector<PairCell>& pair_inputs() const { return pair_cells_; }
  // The design weights of how the truth clusters were drawn, for this comparison's scope:
  // set (the common scope's means stay unweighted: its given weights only correct the
  // intervals), with each cluster's inclusion probability (inclusion()), and the share of
  // the population drawn returned (sampled_share(); 0 where none is known, the common scope
  // without given weights). Throws std::invalid_argument for given weights that are not one
  // finite number > 0 per A cluster.
  double use_design(const Design& d);
  // Per A cluster, its inclusion probability as use_design() found it
  // (inclusion_probabilities()); empty where none is known (the common scope without given
  // weights, or no design set).
  const std::vector<double>& inclusion() const { return inclusion_; }
  double sampled_share() const { return sampled_share_; }  // as use_design() returned it
  // The same share for the pair metrics' terms, which a cluster holds in proportion to its
  // squared weight: π_c weighted by (d_c·w(c)²)² (0 where none is known).
  double pair_sampled_share() const { return pair_share_; }

  Coverage coverage() const;
  GroupTable overall() const;
  GroupTable by_cluster(Side side) const;  // group codes are cluster indices of that side
  GroupTable by_items(const ItemGrouping& grouping) const;
  // Groups items by the values of items-table columns (each of length items_table_rows;
  // nulls allowed and form their own value). Requires an items table. Groups are numbered
  // heaviest first (by their common items' weight, by_items()' weight column; ties in order
  // of first appearance), so every table by a slice lists its values in one order; the
  // group of items without a row, if any, last.
  ItemGrouping group_items(const std::vector<IdColumn>& columns) const;
  ImpactSummary impact() const;  // kImpact only
  ClusterFlows flows() const;    // kImpact only

  // Common items in item order (so in A's row order): item index, cell index.
  BigVector<uint32_t> common_items() const;
  // The per-item rows of `items` (joined item indices of common items; any other index
  // is std::out_of_range), with the cells' columns of `counts` (cell_counts(), computed
  // once by a caller that asks for the rows a slice of the items at a time).
  PerItemRows per_item(std::span<const uint32_t> items, const MetricTable& counts) const;
  const BigVector<uint32_t>& cell_of_item() const { return cell_of_item_; }
  // The items-table row of each joined item in `items` (kNone for one without, and for all
  // without an items table); std::out_of_range for an index that is no joined item.
  std::vector<uint32_t> items_rows(std::span<const uint32_t> items) const;
  // The joined items (or units) as aggregate()'s units, in the groups `group` (one code per
  // joined item; the spans point into this comparison and `group`).
  Units item_units(std::span<const uint32_t> group) const;

 private:
  GroupTable aggregate_cells(std::span<const uint32_t> group, size_t n_groups) const;
  ItemGrouping heaviest_first(ItemGrouping g) const;  // group_items()' numbering
  // Means over `u` (design-weighted), then the derived values and the pair metrics (summed
  // in the same pass), with the items' own weights.
  GroupTable aggregate_units(const Units& u, size_t n_groups) const;
  void whole_actual_clusters();  // fills actual_weight_ and actual_total_
  // Throws std::invalid_argument as set_design() says.
  void check_design(const std::vector<double>& design) const;

  MetricFamily family_;
  TruthScope scope_;
  JoinedClusterings joined_;
  BigVector<uint32_t> cell_of_item_;
  CellTable cells_;
  MetricTable metrics_;
  BigVector<double> actual_weight_;  // kEntities: per B cluster, its weight over S'
  double actual_total_ = 0;          // kEntities: w(S')
  std::vector<double> design_;
  std::vector<double> inclusion_;
  double sampled_share_ = 0, pair_share_ = 0;
  BigVector<PairCell> pair_cells_;  // kPointwise: pair_cells() with design_
  bool pair_cells_ok_ = false;      // pair_sums_by_cell(), checked once
};

// Per A cluster, 1 / its number of items in A (all of them, not only those in T): the
// design weights of entities drawn with probability proportional to their size.
std::vector<double> inverse_size_design(const JoinedClusterings& j);

// Per A cluster, its inclusion probability π_c, at most 1: the truth is a sample of the
// population's entities, drawn with these. `design` per A cluster (empty: all 1). With
// `inverse_probabilities` the weights are 1/π_c. Otherwise they are only proportional to
// 1/π_c (uniform, inverse_size), and the scale comes from the population's items, every
// item of A and B (the entities scope reads the whole actual clustering as the
// population): scaled to 1/π_c the weights must estimate that count, Σ_c |c|·d_c. Throws
// std::invalid_argument unless there is a design weight per A cluster. O(items).
std::vector<double> inclusion_probabilities(const JoinedClusterings& j,
                                            const std::vector<double>& design,
                                            bool inverse_probabilities);

// The share f of the population that A's clusters are, the design in one number (the
// common scope's bootstrap corrects by it; the entities scope's, each cluster by its own
// π_c): in [0, 1]. The variance of a design-weighted sum without replacement is
// Σ_c (1 − π_c)·(d_c·y_c)², of the bootstrap's Σ_c (d_c·y_c)²: f is the mean of π_c
// (inclusion_probabilities()) weighted by (d_c·w(c))², a cluster's weight standing in for
// its term y_c, so that 1 − f is their ratio. Uniform: the truth's share of the items.
// O(items).
double sampled_share(const JoinedClusterings& j, const std::vector<double>& design,
                     bool inverse_probabilities);

}  // namespace clusterscore
