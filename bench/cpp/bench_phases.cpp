// Times each phase of a comparison on synthetic data, to see where time goes.
//   [CLUSTERSCORE_THREADS=N] bench_phases [n_items] [strings]
// With "strings", item and cluster ids are strings ("id" and the number, as the
// Python bench's string variant writes them), laid out as Arrow does.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "clusterscore/threads.h"
#include "comparison/comparison.h"
#include "metrics/pointwise.h"

using namespace clusterscore;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Ids as Arrow strings: "id" followed by the number in decimal.
struct StringColumn {
  StringColumn() = default;
  explicit StringColumn(const std::vector<int64_t>& v) {
    offsets.reserve(v.size() + 1);
    offsets.push_back(0);
    for (int64_t x : v) {
      chars += "id" + std::to_string(x);
      offsets.push_back(int32_t(chars.size()));
    }
  }
  std::string chars;
  std::vector<int32_t> offsets;
};

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  if (const char* t = std::getenv("CLUSTERSCORE_THREADS")) set_threads(unsigned(std::atoi(t)));
  std::mt19937_64 rng(1);
  std::vector<int64_t> ids(n), truth(n), actual(n), ids_b(n), ids_t(n);
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) ids[i] = int64_t(rng() >> 1);
  size_t label = 0;
  for (size_t i = 0; i < n;) {  // power-law-ish sizes
    size_t size = 1 + size_t(1.0 / (1e-4 + std::uniform_real_distribution<>(0, 1)(rng)));
    for (size_t k = 0; k < size && i < n; ++k) truth[i++] = int64_t(label);
    ++label;
  }
  std::shuffle(truth.begin(), truth.end(), rng);  // files are rarely grouped by cluster
  std::vector<size_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  for (size_t i = 0; i < n; ++i) {
    ids_b[i] = ids[perm[i]];
    actual[i] = (rng() % 10 == 0) ? int64_t(rng() % label) : truth[perm[i]];
    ids_t[i] = ids[perm[(i * 7919) % n]];
    w[i] = 0.5 + double(rng() % 1000) / 1000;
  }
  // A two-letter slice column, as Arrow lays strings out.
  std::string country;
  std::vector<int32_t> offsets{0};
  for (size_t i = 0; i < n; ++i) {
    country.append("USDEFRJPBR" + 2 * (rng() % 5), 2);
    offsets.push_back(int32_t(country.size()));
  }
  const bool strings = argc > 2 && std::string(argv[2]) == "strings";
  StringColumn s_ids, s_truth, s_ids_b, s_actual, s_ids_t;
  auto column = [&](const std::vector<int64_t>& v, StringColumn* s) {
    if (!strings) return IdColumn::of_ints(v.data(), v.size());
    *s = StringColumn(v);
    return IdColumn::of_strings(s->chars.data(), s->offsets.data(), v.size());
  };
  ClusteringInput a{"truth", column(ids, &s_ids), column(truth, &s_truth)};
  ClusteringInput b{"actual", column(ids_b, &s_ids_b), column(actual, &s_actual)};
  ItemsInput t{column(ids_t, &s_ids_t), w.data()};

  for (int rep = 0; rep < 3; ++rep) {
    std::printf("-- repetition %d\n", rep);
    auto t0 = Clock::now();
    {  // the phases one by one, freed before the whole is timed
      JoinedClusterings j = join(a, b, &t);
      std::printf("join          %.3f s\n", since(t0));
      t0 = Clock::now();
      BigVector<uint32_t> cell_of_item;
      // As Comparison builds them for a diff.
      CellTable cells = build_cells(j, &cell_of_item, WeightSquares::kSkip);
      std::printf("cells         %.3f s  (%zu cells)\n", since(t0), cells.size());
      t0 = Clock::now();
      MetricTable m = pointwise_cells(cells, common_marginals(cells));
      std::printf("cell metrics  %.3f s\n", since(t0));
    }
    t0 = Clock::now();
    Comparison c(a, b, &t, MetricFamily::kPointwise);
    std::printf("comparison    %.3f s\n", since(t0));
    t0 = Clock::now();
    c.overall();
    std::printf("overall       %.3f s\n", since(t0));
    t0 = Clock::now();
    c.by_cluster(Side::kA);
    std::printf("by A cluster  %.3f s\n", since(t0));
    t0 = Clock::now();
    c.by_cluster(Side::kB);
    std::printf("by B cluster  %.3f s\n", since(t0));
    t0 = Clock::now();
    ItemGrouping g = c.group_items({IdColumn::of_strings(country.data(), offsets.data(), n)});
    std::printf("group items   %.3f s\n", since(t0));
    t0 = Clock::now();
    c.by_items(g);
    std::printf("by slice      %.3f s\n", since(t0));
  }
  return 0;
}
