// Scores an actual clustering against a truth with the C++ core alone (the worked example of
// docs/metrics.md).
#include <clusterscore/comparison.h>

#include <cstdint>
#include <iostream>
#include <vector>

int main() {
  using namespace clusterscore;
  const std::vector<int64_t> items = {1, 2, 3};
  const std::vector<int64_t> truth = {10, 10, 20};  // {i1, i2}, {i3}
  const std::vector<int64_t> actual = {7, 8, 7};    // {i1, i3}, {i2}
  const std::vector<double> weights = {1.0, 2.0, 3.0};

  ClusteringInput t{"truth", IdColumn::of_ints(items.data(), 3),
                    IdColumn::of_ints(truth.data(), 3)};
  ClusteringInput a{"actual", IdColumn::of_ints(items.data(), 3),
                    IdColumn::of_ints(actual.data(), 3)};
  ItemsInput w{IdColumn::of_ints(items.data(), 3), weights.data()};
  Comparison c(t, a, &w, MetricFamily::kPointwise);
  const GroupTable overall = c.overall();
  std::cout << "precision " << overall.column("precision")[0] << "\n"
            << "recall " << overall.column("recall")[0] << "\n"
            << "jaccard_distance " << overall.column("jaccard_distance")[0] << "\n";
  return 0;
}
