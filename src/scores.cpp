// The value API (include/clusterscore/scores.h): a Comparison's results copied out of the
// core's own tables, which Python hands on without a copy.
#include "clusterscore/scores.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "clusterscore/comparison.h"
#include "clusterscore/sampling.h"

namespace clusterscore {
namespace {

template <class T>
std::vector<T> to_vector(const BigVector<T>& v) {
  return std::vector<T>(v.begin(), v.end());
}

ScoreTable to_scores(const GroupTable& g) {
  ScoreTable t;
  t.group = to_vector(g.group);
  t.items = to_vector(g.items);
  t.weight = to_vector(g.weight);
  t.names = g.names;
  t.columns.reserve(g.columns.size());
  for (const BigVector<double>& c : g.columns) t.columns.push_back(to_vector(c));
  return t;
}

}  // namespace

const std::vector<double>& ScoreTable::column(std::string_view name) const {
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return columns[k];
  throw std::out_of_range("clusterscore: no column '" + std::string(name) + "' in this table");
}

Evaluation evaluate(const ClusteringInput& truth, const ClusteringInput& actual,
                    const ItemsInput* items, const EvaluateOptions& options) {
  Comparison c(truth, actual, items, MetricFamily::kPointwise, options.scope);
  if (!options.cluster_weights.empty()) c.set_design(options.cluster_weights);
  Evaluation e;
  e.coverage = c.coverage();
  e.overall = to_scores(c.overall());
  e.per_truth_cluster = to_scores(c.by_cluster(Side::kA));
  e.per_actual_cluster = to_scores(c.by_cluster(Side::kB));
  e.truth_cluster_row = to_vector(c.joined().a_cluster_first_row);
  e.actual_cluster_row = to_vector(c.joined().b_cluster_first_row);
  return e;
}

DiffResult diff(const ClusteringInput& base, const ClusteringInput& exp, const ItemsInput* items) {
  const Comparison c(base, exp, items, MetricFamily::kImpact);
  DiffResult d;
  d.coverage = c.coverage();
  d.summary = c.impact();
  d.totals = sample_totals(c);
  d.overall = to_scores(c.overall());
  d.per_base_cluster = to_scores(c.by_cluster(Side::kA));
  d.per_exp_cluster = to_scores(c.by_cluster(Side::kB));
  d.base_cluster_row = to_vector(c.joined().a_cluster_first_row);
  d.exp_cluster_row = to_vector(c.joined().b_cluster_first_row);
  return d;
}

PairSampleTable sample_pairs(const ClusteringInput& base, const ClusteringInput& exp,
                             const ItemsInput* items, const SampleOptions& options) {
  return sample_pairs(Comparison(base, exp, items, MetricFamily::kImpact), options);
}

}  // namespace clusterscore
