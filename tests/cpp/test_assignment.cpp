// The matching solver against exhaustive search on small random graphs (ties, integer
// and fractional profits), and the interrupt check stopping a long computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "classic/assignment.h"
#include "classic/classic_cells.h"
#include "clusterscore/interrupt.h"
#include "clusterscore/threads.h"

using namespace clusterscore;

namespace {

struct Graph {
  size_t rows = 0, cols = 0;
  std::vector<uint64_t> start{0};
  std::vector<uint32_t> col;
  std::vector<double> profit;
};

Graph random_graph(std::mt19937_64& rng, bool integers) {
  Graph g;
  g.rows = 1 + rng() % 6;
  g.cols = 1 + rng() % 6;
  for (size_t r = 0; r < g.rows; ++r) {
    for (uint32_t q = 0; q < g.cols; ++q) {
      if (rng() % 3 == 0) continue;
      g.col.push_back(q);
      g.profit.push_back(integers ? double(1 + rng() % 3) : 0.25 + double(rng() % 1000) / 300);
    }
    g.start.push_back(g.col.size());
  }
  return g;
}

// The best matching's profit by trying every column (or none) for each row in turn.
double exhaustive(const Graph& g) {
  std::vector<bool> used(g.cols, false);
  std::function<double(size_t)> best = [&](size_t r) -> double {
    if (r == g.rows) return 0.0;
    double b = best(r + 1);
    for (uint64_t e = g.start[r]; e < g.start[r + 1]; ++e) {
      if (used[g.col[e]]) continue;
      used[g.col[e]] = true;
      b = std::max(b, g.profit[e] + best(r + 1));
      used[g.col[e]] = false;
    }
    return b;
  };
  return best(0);
}

double matched_profit(const Graph& g, const std::vector<uint32_t>& match) {
  std::vector<bool> used(g.cols, false);
  double total = 0;
  for (size_t r = 0; r < g.rows; ++r) {
    if (match[r] == UINT32_MAX) continue;
    EXPECT_FALSE(used[match[r]]) << "column matched twice";
    used[match[r]] = true;
    bool found = false;
    for (uint64_t e = g.start[r]; e < g.start[r + 1]; ++e)
      if (g.col[e] == match[r]) total += g.profit[e], found = true;
    EXPECT_TRUE(found) << "row matched along no edge";
  }
  return total;
}

}  // namespace

TEST(Assignment, EqualsExhaustiveSearch) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    const bool integers = trial % 2 == 0;
    const Graph g = random_graph(rng, integers);
    const auto match = detail::max_weight_matching(g.rows, g.cols, g.start, g.col, g.profit);
    const double want = exhaustive(g), got = matched_profit(g, match);
    if (integers)
      ASSERT_EQ(got, want) << "trial " << trial;
    else
      ASSERT_NEAR(got, want, 1e-9) << "trial " << trial;
  }
}

namespace {
int polls = 0;
// Stops at the third poll: before the information metrics, after them, then the
// matching's first.
bool stop_at_the_third() { return ++polls >= 3; }
}  // namespace

TEST(Interrupt, AnInstalledCheckStopsAComputation) {
  std::mt19937_64 rng(3);
  const size_t n = 100000;  // unrelated labelings: the matching has work left to poll in
  std::vector<int64_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i] = int64_t(rng() % 30000), b[i] = int64_t(rng() % 30000);
  const LabelCells lc =
      cells_from_labels(IdColumn::of_ints(a.data(), n), IdColumn::of_ints(b.data(), n), nullptr);
  ClassicOptions o;
  o.adjusted_mutual_info = false;
  polls = 0;
  set_threads(1);  // the polls counted below are the caller's, in order
  set_interrupt_check(&stop_at_the_third);
  EXPECT_THROW(classic_scores(lc.cells, o), Interrupted);
  EXPECT_EQ(polls, 3);
  polls = 0;
  o.matching = false;  // two polls only: never asked to stop
  EXPECT_NO_THROW(classic_scores(lc.cells, o));
  set_interrupt_check(nullptr);
  o.matching = true;
  EXPECT_NO_THROW(classic_scores(lc.cells, o));  // no check installed: runs to the end
  set_threads(0);
}
