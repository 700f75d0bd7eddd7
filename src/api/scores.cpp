// The value API (include/clusterscore/scores.h): a Comparison's results copied out of the
// core's own tables, which Python hands on without a copy.
#include "clusterscore/scores.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "comparison/comparison.h"
#include "judging/sampling.h"

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

namespace {

// What evaluate() and diff() both return, in the order of their first fields.
struct Levels {
  Coverage coverage;
  ScoreTable overall, per_a, per_b;
  std::vector<uint64_t> a_row, b_row;
};

Levels levels_of(const Comparison& c) {
  return {c.coverage(),
          to_scores(c.overall()),
          to_scores(c.by_cluster(Side::kA)),
          to_scores(c.by_cluster(Side::kB)),
          to_vector(c.joined().a_cluster_first_row),
          to_vector(c.joined().b_cluster_first_row)};
}

}  // namespace

Evaluation evaluate(const ClusteringInput& truth, const ClusteringInput& actual,
                    const ItemsInput* items, const EvaluateOptions& options) {
  Comparison c(truth, actual, items, MetricFamily::kPointwise, options.scope);
  if (!options.cluster_weights.empty()) c.set_design(options.cluster_weights);
  Levels l = levels_of(c);
  return {l.coverage,         std::move(l.overall), std::move(l.per_a),
          std::move(l.per_b), std::move(l.a_row),   std::move(l.b_row)};
}

DiffResult diff(const ClusteringInput& base, const ClusteringInput& exp, const ItemsInput* items) {
  const Comparison c(base, exp, items, MetricFamily::kImpact);
  Levels l = levels_of(c);
  return {l.coverage,         std::move(l.overall), std::move(l.per_a), std::move(l.per_b),
          std::move(l.a_row), std::move(l.b_row),   c.impact(),         sample_totals(c)};
}

PairSampleTable sample_pairs(const ClusteringInput& base, const ClusteringInput& exp,
                             const ItemsInput* items, const SampleOptions& options) {
  return sample_pairs(Comparison(base, exp, items, MetricFamily::kImpact), options);
}

}  // namespace clusterscore
