// The library's result values: what evaluate() and diff() return (scores.h), plain structs
// and std::vectors that own their data, and the options they take.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clusterscore/pair_sample.h"

namespace clusterscore {

// Which items a truth item's actual cluster is read over (evaluate only; docs/metrics.md,
// truth scope): the common items T, or every item of the actual clustering (the truth's clusters
// are then complete entities, and items outside the truth belong to other entities).
enum class TruthScope { kCommon, kEntities };

// Item counts and weights of A (S), B (S'), T = S ∩ S', S \ S' and S' \ S, and the
// number of clusters of each side in all and meeting T.
struct Coverage {
  uint64_t a_items = 0, b_items = 0, common_items = 0, a_only_items = 0, b_only_items = 0;
  double a_weight = 0, b_weight = 0, common_weight = 0, a_only_weight = 0, b_only_weight = 0;
  uint64_t a_clusters = 0, b_clusters = 0, a_clusters_common = 0, b_clusters_common = 0;
  uint64_t items_table_rows = 0, items_table_unmatched = 0;
};

// Overall figures of docs/metrics.md, diff beyond the weighted means.
struct ImpactSummary {
  uint64_t affected_items = 0;
  double affected_weight = 0.0;
  double affected_jaccard_index = 0.0;    // Σ_affected w·jaccard_index / w(T)
  double unaffected_jaccard_index = 0.0;  // w(unaffected) / w(T)
  uint64_t base_clusters_split = 0;       // Base clusters whose common items span ≥ 2 Exp clusters
  uint64_t exp_clusters_merged = 0;       // Exp clusters whose common items span ≥ 2 Base clusters
};

// Weighted means of one level: one row per group with at least one common item, in
// increasing group order. Column names are the metric registry's (metric_info.h).
struct ScoreTable {
  std::vector<uint32_t> group;  // cluster index of that side (see *_cluster_row), or 0 overall
  std::vector<uint64_t> items;  // common items in the group
  std::vector<double> weight;   // their weight
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;  // one per name, one value per group; NaN: undefined

  size_t size() const { return group.size(); }
  // The column `name`; throws std::out_of_range naming it if the table has none.
  const std::vector<double>& column(std::string_view name) const;
};

struct EvaluateOptions {
  TruthScope scope = TruthScope::kCommon;
  // Per truth cluster (in the order of truth_cluster_row): 1 / its inclusion probability, the
  // weight its items carry in every mean; empty: all 1. docs/metrics.md, truth scope.
  std::vector<double> cluster_weights;
};

// An actual clustering scored against a truth (docs/metrics.md): precision, recall, f1,
// Jaccard, the merge rates and the pair metrics, overall and per cluster of each side.
struct Evaluation {
  Coverage coverage;  // A is the truth, B the actual clustering
  ScoreTable overall, per_truth_cluster, per_actual_cluster;
  // Per cluster index: the first row of the input that names the cluster.
  std::vector<uint64_t> truth_cluster_row, actual_cluster_row;
};

// How Exp differs from Base (docs/metrics.md, diff): split, merge and Jaccard distances,
// affected items, overall and per cluster of each side, with the totals a judged sample
// multiplies by.
struct DiffResult {
  Coverage coverage;  // A is Base, B is Exp
  ScoreTable overall, per_base_cluster, per_exp_cluster;
  std::vector<uint64_t> base_cluster_row, exp_cluster_row;
  ImpactSummary summary;
  SampleTotals totals;
};

}  // namespace clusterscore
