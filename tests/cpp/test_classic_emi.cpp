// expected_mutual_information() against a long-double reference that computes every
// hypergeometric term from lgammal, on tables of more than 2^16 items (where the
// library derives the terms from one another by their ratios, four at a time).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "cells/cells.h"
#include "classic/classic_cells.h"
#include "clusterscore/threads.h"

namespace clusterscore {
namespace {

// A table with these marginals (the function reads nothing else).
CellTable marginals(const std::vector<uint64_t>& rows, const std::vector<uint64_t>& cols) {
  CellTable c;
  uint64_t n = 0;
  for (uint64_t a : rows) c.row_count.push_back(a), n += a;
  for (uint64_t b : cols) c.col_count.push_back(b);
  c.n_rows = rows.size();
  c.n_cols = cols.size();
  c.total_count = n;
  return c;
}

// Σ over row and column pairs of Σ_nij nij/N · log(N·nij/(a·b)) · P(nij), every P from
// lgammal, walking out from the mode until a term is below 1e-30 of the largest.
long double reference(const std::vector<uint64_t>& rows, const std::vector<uint64_t>& cols) {
  long double n = 0, total = 0;
  for (uint64_t a : rows) n += a;
  auto lf = [](long double x) { return lgammal(x + 1); };
  for (uint64_t ua : rows)
    for (uint64_t ub : cols) {
      const long double a = ua, b = ub;
      const long double lo = std::max<long double>(1, a + b - n), hi = std::min(a, b);
      const long double fixed = lf(a) + lf(b) + lf(n - a) + lf(n - b) - lf(n);
      auto p = [&](long double k) {
        return expl(fixed - lf(k) - lf(a - k) - lf(b - k) - lf(n - a - b + k));
      };
      const long double mode = std::clamp(floorl((a + 1) * (b + 1) / (n + 2)), lo, hi);
      const long double peak = p(mode);
      for (int step : {1, -1})
        for (long double k = step > 0 ? mode : mode - 1; k >= lo && k <= hi; k += step) {
          const long double pk = p(k);
          total += k / n * logl(n * k / (a * b)) * pk;
          if (pk < peak * 1e-30L) break;
        }
    }
  return total;
}

void expect_agrees(const std::vector<uint64_t>& rows, const std::vector<uint64_t>& cols) {
  const double got = expected_mutual_information(marginals(rows, cols));
  const long double want = reference(rows, cols);
  // The library's P at each pair's mode is exp of a sum of lgamma values in double, up
  // to lgamma(N + 1): their rounding, a few ulps of lgamma(N + 1) (each ~1e-16 of it),
  // is a relative error of P. That bounds the agreement. A wrong ratio between terms is
  // off by far more.
  double n = 0;
  for (uint64_t a : rows) n += double(a);
  const double tolerance = 1e-14 * std::lgamma(n + 1);
  EXPECT_NEAR(got, double(want), tolerance * double(want)) << "relative tolerance " << tolerance;
}

TEST(ExpectedMutualInformation, FewLargeClustersWithSharesForcedAboveOne) {
  // 30,000 + 40,000 against 20,000 + 25,000 + 25,000: a + b > N for some pairs, so nij
  // starts above 1, and the modes are far from both ends.
  expect_agrees({30000, 40000}, {20000, 25000, 25000});
}

// Row sizes of 1 to max_row until at least n items, then column sizes of 1 to max_col
// over the same items.
std::pair<std::vector<uint64_t>, std::vector<uint64_t>> random_sizes(std::mt19937_64& rng,
                                                                     uint64_t n, uint64_t max_row,
                                                                     uint64_t max_col) {
  std::vector<uint64_t> rows, cols;
  uint64_t total = 0;
  while (total < n) rows.push_back(1 + rng() % max_row), total += rows.back();
  for (uint64_t left = total; left > 0;) {
    cols.push_back(std::min<uint64_t>(left, 1 + rng() % max_col));
    left -= cols.back();
  }
  return {rows, cols};
}

TEST(ExpectedMutualInformation, ManyClustersOfRandomSizes) {
  std::mt19937_64 rng(7);
  const auto [rows, cols] = random_sizes(rng, 100000, 6000, 9000);
  expect_agrees(rows, cols);
}

TEST(ExpectedMutualInformation, SingletonsAndOneGiant) {
  // Sizes 1 (a single term, at nij = 1) beside one cluster of most items, whose pairs
  // with the other side's large clusters walk both ways from their modes.
  std::vector<uint64_t> rows(300, 1), cols(200, 1);
  rows.push_back(80000);
  cols.push_back(60000);
  cols.push_back(23000);
  expect_agrees(rows, cols);
}

TEST(ExpectedMutualInformation, SizesBeyondTheTables) {
  // Cluster sizes above the library's 2^22-entry tables, computed rather than looked up.
  expect_agrees({5000000, 4000000}, {4500000, 4500000});
}

// The row sizes are summed in blocks on every thread: the same bits on 1 thread as on 3,
// through the function and through the blocks run by hand in any order.
TEST(ExpectedMutualInformation, BlocksGiveTheSameBitsOnAnyNumberOfThreads) {
  std::mt19937_64 rng(11);
  const auto [rows, cols] = random_sizes(rng, 200000, 3000, 2000);
  const CellTable c = marginals(rows, cols);
  set_threads(1);
  const double one = expected_mutual_information(c);
  set_threads(3);
  const double three = expected_mutual_information(c);
  set_threads(0);
  EXPECT_EQ(std::memcmp(&one, &three, sizeof(double)), 0) << one << " " << three;
  ExpectedMutualInfo emi(c);
  ASSERT_GT(emi.blocks(), 2u);
  for (size_t b = emi.blocks(); b-- > 0;) emi.run(b);  // last block first
  const double by_hand = emi.value();
  EXPECT_EQ(std::memcmp(&one, &by_hand, sizeof(double)), 0);
  expect_agrees(rows, cols);
}

}  // namespace
}  // namespace clusterscore
