// Scores an actual clustering against a truth with the C++ library alone (the worked example
// of docs/metrics.md), then measures how the actual clustering differs from the truth.
#include <clusterscore/clusterscore.h>

#include <cstdint>
#include <iostream>
#include <vector>

int main() {
  using namespace clusterscore;
  const std::vector<int64_t> items = {1, 2, 3};
  const std::vector<int64_t> truth = {10, 10, 20};  // {i1, i2}, {i3}
  const std::vector<int64_t> actual = {7, 8, 7};    // {i1, i3}, {i2}
  const std::vector<double> weights = {1.0, 2.0, 3.0};

  const ClusteringInput t{"truth", IdColumn::of_ints(items.data(), 3),
                          IdColumn::of_ints(truth.data(), 3)};
  const ClusteringInput a{"actual", IdColumn::of_ints(items.data(), 3),
                          IdColumn::of_ints(actual.data(), 3)};
  const ItemsInput w{IdColumn::of_ints(items.data(), 3), weights.data()};

  const Evaluation e = evaluate(t, a, &w);
  std::cout << "precision " << e.overall.column("precision")[0] << "\n"
            << "recall " << e.overall.column("recall")[0] << "\n"
            << "jaccard_distance " << e.overall.column("jaccard_distance")[0] << "\n";
  for (size_t r = 0; r < e.per_truth_cluster.size(); ++r) {
    const uint32_t cluster = e.per_truth_cluster.group[r];
    std::cout << "truth cluster " << truth[e.truth_cluster_row[cluster]] << " recall "
              << e.per_truth_cluster.column("recall")[r] << "\n";
  }

  const DiffResult d = diff(t, a, &w);
  std::cout << "split_distance " << d.overall.column("split_distance")[0] << "\n"
            << "merge_distance " << d.overall.column("merge_distance")[0] << "\n";
  return 0;
}
