#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "cells/cells.h"
#include "classic/classic_cells.h"
#include "clusterscore/threads.h"
#include "comparison/comparison.h"
#include "detail/kahan.h"
#include "helpers.h"

using namespace clusterscore;
using cstest::ints;

namespace {
struct Figure2 {
  std::vector<int64_t> items = {1, 2, 3}, truth = {10, 10, 20}, actual = {7, 8, 7};
  std::vector<double> w = {1, 2, 3};
  std::vector<int64_t> slice = {0, 1, 1};
  ItemsInput table{ints(items), w.data()};
  Comparison c{{"truth", ints(items), ints(truth)},
               {"actual", ints(items), ints(actual)},
               &table,
               MetricFamily::kPointwise};
};
// n items' truth rows and actual columns (kNone: not in that clustering; row 11 holds
// a seventh of the items, and two thirds of each row's items share its column) and
// weights over 2^57 of magnitudes.
struct RandomItems {
  std::vector<uint32_t> rows, cols;
  std::vector<double> w;
};
RandomItems random_items(std::mt19937_64& rng, size_t n, size_t n_rows, size_t n_cols) {
  RandomItems r{std::vector<uint32_t>(n), std::vector<uint32_t>(n), std::vector<double>(n)};
  for (size_t i = 0; i < n; ++i) {
    r.rows[i] = rng() % 29 == 0 ? kNone : uint32_t(rng() % 7 == 0 ? 11 : rng() % n_rows);
    r.cols[i] = rng() % 31 == 0 ? kNone : uint32_t(rng() % 3 == 0 ? rng() % n_cols : r.rows[i]);
    r.w[i] = std::ldexp(double(rng() % 100000 + 1), -int(rng() % 40));
  }
  return r;
}

}  // namespace

TEST(Pointwise, Figure2Cells) {
  Figure2 f;
  const MetricTable& m = f.c.cell_metrics();
  const MetricTable counts = f.c.cell_counts();
  // cells in item order: (T1,A1) holds i1, (T1,A2) holds i2, (T2,A1) holds i3
  ASSERT_EQ(m.n_rows, 3u);
  ASSERT_EQ(counts.n_rows, 3u);
  EXPECT_EQ(counts.names, (std::vector<std::string>{"tp", "fp", "fn", "tn"}));
  const double want[3][4] = {{1, 3, 2, 0}, {2, 0, 1, 3}, {3, 1, 0, 2}};
  for (size_t k = 0; k < 3; ++k)
    for (size_t q = 0; q < 4; ++q) EXPECT_DOUBLE_EQ(counts.at(k, q), want[k][q]);
  EXPECT_DOUBLE_EQ(m.at(0, m.column("jaccard_distance")), 5.0 / 6);
}

TEST(Pointwise, Figure2EveryLevel) {
  Figure2 f;
  GroupTable o = f.c.overall();
  EXPECT_DOUBLE_EQ(o.column("precision")[0], 0.75);
  EXPECT_DOUBLE_EQ(o.column("recall")[0], 7.0 / 9);
  EXPECT_DOUBLE_EQ(o.column("jaccard_distance")[0], 3.0 / 8);
  GroupTable t = f.c.by_cluster(Side::kA);
  EXPECT_DOUBLE_EQ(t.column("recall")[0], 5.0 / 9);
  EXPECT_DOUBLE_EQ(t.column("jaccard_distance")[0], 0.5);
  GroupTable a = f.c.by_cluster(Side::kB);
  EXPECT_DOUBLE_EQ(a.column("precision")[0], 5.0 / 8);
  EXPECT_DOUBLE_EQ(a.column("jaccard_distance")[0], 19.0 / 48);
  ItemGrouping g = f.c.group_items({ints(f.slice)});
  GroupTable s = f.c.by_items(g);
  ASSERT_EQ(s.size(), 2u);
  // Heaviest first: slice value 1 (weight 5) is group 0, value 0 (weight 1) group 1.
  EXPECT_EQ(g.group_row, (std::vector<uint32_t>{1, 0}));
  EXPECT_DOUBLE_EQ(s.weight[0], 5.0);
  EXPECT_DOUBLE_EQ(s.column("precision")[0], 17.0 / 20);
  EXPECT_DOUBLE_EQ(s.column("recall")[0], 13.0 / 15);
  EXPECT_DOUBLE_EQ(s.column("jaccard_distance")[0], 17.0 / 60);
  EXPECT_EQ(s.items[0], 2u);
}

TEST(Pointwise, CoverageCountsItemsOutsideT) {
  std::vector<int64_t> ai = {1, 2, 3}, ac = {0, 0, 1}, bi = {2, 3, 4, 5}, bc = {0, 0, 0, 1};
  Comparison c({"truth", ints(ai), ints(ac)}, {"actual", ints(bi), ints(bc)}, nullptr,
               MetricFamily::kPointwise);
  Coverage v = c.coverage();
  EXPECT_EQ(v.common_items, 2u);
  EXPECT_EQ(v.a_only_items, 1u);
  EXPECT_EQ(v.b_only_items, 2u);
  EXPECT_EQ(v.a_clusters_common, 2u);
  EXPECT_EQ(v.b_clusters_common, 1u);
  EXPECT_DOUBLE_EQ(v.b_only_weight, 2.0);
}

TEST(Cells, FromListsAddsRepeatsAndDerivesMarginals) {
  CellTable t =
      cells_from_lists(2, 2, {0, 1, 0}, {0, 1, 0}, {1, 2, 3}, {1.0, 2.0, 3.0}, {1.0, 2.0, 5.0});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.count[0], 4u);
  EXPECT_DOUBLE_EQ(t.weight_sq[0], 6.0);
  EXPECT_DOUBLE_EQ(t.row_weight[1], 2.0);
  EXPECT_EQ(t.total_count, 6u);
  EXPECT_THROW(cells_from_lists(1, 1, {1}, {0}, {1}, {1.0}, {1.0}), std::invalid_argument);
}

// build_cells against a map of (row, col) pairs, on random items (some outside T) with
// every record the row sort may use: with weights, without weights but with each item's
// cell, and with neither. Per cell: the items, Σw and Σw² (compensated, in item order, as
// the map adds them), cells in row order then first appearance; marginals to rounding.
// One row in five items is a giant row (a block of the row sort on its own when rows are
// counted one by one); 300,000 rows are counted in buckets of several rows.
static void check_cells_against_map(size_t n, size_t n_rows, size_t n_cols, unsigned seed) {
  SCOPED_TRACE(n_rows);
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> rows(n), cols(n);
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) {
    rows[i] = rng() % 13 == 0 ? kNone : uint32_t(rng() % 5 == 0 ? 7 : rng() % n_rows);
    cols[i] = rng() % 17 == 0 ? kNone : uint32_t(rng() % 5 == 0 ? rng() % n_cols : rows[i]);
    w[i] = 0.25 + double(rng() % 1000) / 7.0;
  }
  for (int kind = 0; kind < 4; ++kind) {  // kind 3: weighted, without squared weights
    SCOPED_TRACE(kind);
    const bool weighted = kind == 0 || kind == 3, with_cells = kind != 2, squares = kind != 3;
    BigVector<uint32_t> cell_of_item;
    const CellTable t = build_cells(rows, cols, weighted ? w.data() : nullptr, n_rows, n_cols,
                                    with_cells ? &cell_of_item : nullptr,
                                    squares ? WeightSquares::kSum : WeightSquares::kSkip);
    if (!squares) EXPECT_TRUE(t.weight_sq.empty());
    struct Want {
      uint64_t count = 0;
      detail::KahanSum w, w2;
      size_t first = 0;
    };
    std::map<std::pair<uint32_t, uint32_t>, Want> want;
    for (size_t i = 0; i < n; ++i) {
      if (rows[i] == kNone || cols[i] == kNone) continue;
      const double wi = weighted ? w[i] : 1.0;
      auto [it, fresh] = want.try_emplace({rows[i], cols[i]});
      if (fresh) it->second.first = i;
      ++it->second.count;
      it->second.w.add(wi);
      it->second.w2.add(wi * wi);
    }
    ASSERT_EQ(t.size(), want.size());
    std::vector<std::pair<uint32_t, size_t>> order;  // (row, first item) of each cell
    for (size_t k = 0; k < t.size(); ++k) {
      const auto it = want.find({t.row[k], t.col[k]});
      ASSERT_NE(it, want.end()) << k;
      ASSERT_EQ(t.count[k], it->second.count) << k;
      ASSERT_EQ(t.weight[k], it->second.w.value()) << k;
      if (squares) ASSERT_EQ(t.weight_sq[k], it->second.w2.value()) << k;
      order.push_back({t.row[k], it->second.first});
    }
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
    std::vector<double> col_w(n_cols, 0.0);
    std::vector<uint64_t> col_n(n_cols, 0);
    for (size_t k = 0; k < t.size(); ++k)
      col_w[t.col[k]] += t.weight[k], col_n[t.col[k]] += t.count[k];
    for (size_t c = 0; c < n_cols; ++c) {
      ASSERT_EQ(t.col_count[c], col_n[c]) << c;
      ASSERT_NEAR(t.col_weight[c], col_w[c], 1e-9 * (1 + col_w[c])) << c;
    }
    if (!with_cells) continue;
    for (size_t i = 0; i < n; ++i) {
      const bool in_t = rows[i] != kNone && cols[i] != kNone;
      ASSERT_EQ(cell_of_item[i] == kNone, !in_t) << i;
      if (in_t) ASSERT_TRUE(t.row[cell_of_item[i]] == rows[i] && t.col[cell_of_item[i]] == cols[i]);
    }
  }
}

TEST(Cells, WeightedPairCountsNeedTheSquaredWeights) {
  const std::vector<uint32_t> rows = {0, 0, 1}, cols = {0, 1, 1};
  const std::vector<double> w = {1, 2, 3};
  const CellTable with = build_cells(rows, cols, w.data(), 2, 2, nullptr, WeightSquares::kSum);
  const CellTable without = build_cells(rows, cols, w.data(), 2, 2, nullptr, WeightSquares::kSkip);
  EXPECT_EQ(weighted_pair_confusion(with).tp, 0.0);  // no cell holds two items
  EXPECT_THROW(weighted_pair_confusion(without), std::logic_error);
}

TEST(Cells, BuildCellsAgreesWithAMapOfPairs) {
  check_cells_against_map(200000, 30000, 40000, 3);
  check_cells_against_map(400000, 300000, 400000, 4);
}

// Past 2^20 items the split runs in several chunks and the cell pass in several pieces
// (a few hundred thousand records each), on as many threads as there are: the table, each
// item's cell and every marginal must be the same bits on 1 thread as on 3, and the column
// marginals those of a compensated sum in cell order.
TEST(Cells, ChunksAndPiecesGiveTheSameBitsOnAnyNumberOfThreads) {
  const size_t n = 2'500'000, n_rows = 400'000, n_cols = 500'000;
  std::mt19937_64 rng(21);
  const auto [rows, cols, w] = random_items(rng, n, n_rows, n_cols);
  std::vector<CellTable> tables;
  std::vector<BigVector<uint32_t>> cells(2);
  for (unsigned threads : {1u, 3u}) {
    set_threads(threads);
    tables.push_back(build_cells(rows, cols, w.data(), n_rows, n_cols, &cells[tables.size()]));
  }
  set_threads(0);
  const CellTable &one = tables[0], &three = tables[1];
  const auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
  };
  EXPECT_TRUE(same(one.row, three.row) && same(one.col, three.col) && same(one.count, three.count));
  EXPECT_TRUE(same(one.weight, three.weight) && same(one.weight_sq, three.weight_sq));
  EXPECT_TRUE(same(one.row_count, three.row_count) && same(one.row_weight, three.row_weight));
  EXPECT_TRUE(same(one.row_cells, three.row_cells) && same(one.col_cells, three.col_cells));
  EXPECT_TRUE(same(one.col_count, three.col_count) && same(one.col_weight, three.col_weight));
  EXPECT_TRUE(same(cells[0], cells[1]));
  EXPECT_EQ(one.total_count, three.total_count);
  EXPECT_EQ(std::memcmp(&one.total_weight, &three.total_weight, sizeof(double)), 0);
  std::vector<detail::KahanSum> col_w(n_cols);
  detail::KahanSum total;
  for (size_t k = 0; k < one.size(); ++k) {
    col_w[one.col[k]].add(one.weight[k]);
    total.add(one.weight[k]);
  }
  for (size_t c = 0; c < n_cols; ++c) ASSERT_EQ(one.col_weight[c], col_w[c].value()) << c;
  EXPECT_EQ(one.total_weight, total.value());
  for (size_t i = 0; i < n; ++i) {
    const bool in_t = rows[i] != kNone && cols[i] != kNone;
    ASSERT_EQ(cells[0][i] == kNone, !in_t) << i;
    if (in_t) ASSERT_TRUE(one.row[cells[0][i]] == rows[i] && one.col[cells[0][i]] == cols[i]) << i;
  }
}

// The pair sums as aggregate()'s columns (PairInputs) past 2^20 units, by cell and by
// item, into few groups (summed in stretches) and into many (partitioned by ranges of
// groups): the same bits on 1 thread as on 3, and each group's sums those of a
// long-double reference within rounding.
TEST(PairSums, FewOrManyGroupsGiveTheSameBitsOnAnyNumberOfThreads) {
  const size_t n = 2'300'000, n_rows = 300'000, n_cols = 400'000;
  std::mt19937_64 rng(27);
  const auto [rows, cols, w] = random_items(rng, n, n_rows, n_cols);
  BigVector<uint32_t> cell_of_item;
  const CellTable t = build_cells(rows, cols, w.data(), n_rows, n_cols, &cell_of_item);
  const ActualMarginals m = common_marginals(t);
  const MetricTable metrics = pointwise_cells(t, m);
  const BigVector<PairCell> pc = pair_cells(t, m, {});  // no design: each term counts once
  for (bool by_cell : {true, false})
    for (size_t n_groups : {size_t(5), size_t(100'000)}) {
      const size_t units = by_cell ? t.size() : n;
      BigVector<uint32_t> group(units);
      for (size_t u = 0; u < units; ++u)
        group[u] = rng() % 13 == 0 ? kNone : uint32_t(rng() % n_groups);
      const Units u = by_cell ? Units{{}, group, t.weight, t.count, t.weight_sq}
                              : Units{cell_of_item, group, w, {}, {}};
      const PairInputs pairs{pc, by_cell, by_cell ? 1.0 : pair_scale(t)};
      std::vector<GroupTable> got;
      for (unsigned threads : {1u, 3u}) {
        set_threads(threads);
        got.push_back(aggregate(metrics, u, n_groups, {}, &pairs));
      }
      set_threads(0);
      const std::string what =
          std::string(by_cell ? "by cell, " : "by item, ") + std::to_string(n_groups) + " groups";
      ASSERT_EQ(got[0].names.back(), "pair_truth") << what;
      EXPECT_EQ(got[0].group, got[1].group) << what;
      EXPECT_EQ(got[0].weight, got[1].weight) << what;
      for (size_t q = 0; q < got[0].columns.size(); ++q)
        EXPECT_EQ(got[0].columns[q], got[1].columns[q]) << what << ", " << got[0].names[q];
      const size_t means = metrics.width();
      std::vector<double> together(n_groups, 0.0), weight(n_groups, 0.0);
      for (size_t r = 0; r < got[0].size(); ++r) {
        together[got[0].group[r]] = got[0].columns[means][r];
        weight[got[0].group[r]] = got[0].weight[r];
      }
      // The reference: Σ over the group's items of w·(x − w), x its cell's weight, scaled
      // by pair_scale() squared where items are the units. Cells as units compute it as
      // W·x − Σw², whose rounding is relative to W·x (weights here span 2^57): the
      // tolerance is relative to Σ w·x.
      const long double sq = by_cell ? 1.0L : (long double)pair_scale(t) * pair_scale(t);
      std::vector<long double> want_together(n_groups), want_weight(n_groups), scale_of(n_groups);
      for (size_t i = 0; i < n; ++i) {
        const uint32_t k = cell_of_item[i];
        if (k == kNone) continue;
        const uint32_t g = by_cell ? group[k] : group[i];
        if (g == kNone) continue;
        want_together[g] += (long double)w[i] * ((long double)t.weight[k] - w[i]);
        scale_of[g] += (long double)w[i] * t.weight[k];
        want_weight[g] += w[i];
      }
      for (size_t g = 0; g < n_groups; ++g) {
        const double want = double(want_together[g] * sq), of = double(scale_of[g] * sq);
        ASSERT_NEAR(together[g], want, 1e-12 * (1 + of)) << what << " group " << g;
        ASSERT_NEAR(weight[g], double(want_weight[g]), 1e-9 * (1 + double(want_weight[g])))
            << what << " group " << g;
      }
    }
}

// The pair sums' inputs are checked before any unit is summed: cells (or units of several
// items) without their Σw², and pair inputs not one per cell.
TEST(PairSums, RefusesUnitsWithoutSquaresAndPairInputsOfAnotherLength) {
  std::mt19937_64 rng(3);
  const auto [rows, cols, w] = random_items(rng, 1000, 30, 40);
  BigVector<uint32_t> cell_of_item;
  const CellTable t = build_cells(rows, cols, w.data(), 30, 40, &cell_of_item);
  const ActualMarginals m = common_marginals(t);
  const MetricTable metrics = pointwise_cells(t, m);
  const BigVector<PairCell> pc = pair_cells(t, m, {});
  const BigVector<uint32_t> zero(t.size(), 0);
  const PairInputs over_cells{pc, true, 1.0};
  EXPECT_THROW(aggregate(metrics, Units{{}, zero, t.weight, t.count, {}}, 1, {}, &over_cells),
               std::invalid_argument);
  const PairInputs short_inputs{std::span(pc).first(pc.size() - 1), true, 1.0};
  EXPECT_THROW(
      aggregate(metrics, Units{{}, zero, t.weight, t.count, t.weight_sq}, 1, {}, &short_inputs),
      std::invalid_argument);
  const GroupTable ok =
      aggregate(metrics, Units{{}, zero, t.weight, t.count, t.weight_sq}, 1, {}, &over_cells);
  EXPECT_EQ(ok.names.back(), "pair_truth");
}

// Slice codes are gathered through 1-, 2- or 4-byte arrays by the number of values: every
// width must give each common item its own row's value, and items without a row the
// extra "missing" group.
TEST(GroupItems, EveryCodeWidthGivesEachItemItsRowsValue) {
  for (const int64_t values : {3, 300, 70000, 200000}) {
    const size_t n = 250000;
    std::vector<int64_t> items(n), a(n), b(n), t_items, slice;
    for (size_t i = 0; i < n; ++i) {
      items[i] = int64_t(i * 7 + 1);
      a[i] = int64_t(i % 97);
      b[i] = int64_t(i % 89);
    }
    for (size_t r = 0; r < n; ++r) {  // the items table lists items in reverse, skips every 5th
      const size_t i = n - 1 - r;
      if (i % 5 == 0) continue;
      t_items.push_back(items[i]);
      slice.push_back(int64_t((i * 31) % size_t(values)));
    }
    std::vector<double> w(t_items.size(), 1.0);
    ItemsInput table{ints(t_items), w.data()};
    Comparison c({"truth", ints(items), ints(a)}, {"actual", ints(items), ints(b)}, &table,
                 MetricFamily::kPointwise);
    const ItemGrouping g = c.group_items({ints(slice)});
    ASSERT_EQ(g.n_groups, std::set<int64_t>(slice.begin(), slice.end()).size() + 1) << values;
    ASSERT_EQ(g.group_row.back(), kNone);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t got = g.item_group[i];
      if (i % 5 == 0) {
        ASSERT_EQ(got, g.n_groups - 1) << values << " item " << i;
        continue;
      }
      ASSERT_LT(got, g.n_groups - 1);
      ASSERT_EQ(slice[g.group_row[got]], int64_t((i * 31) % size_t(values))) << values << " " << i;
    }
  }
}

// An item with no items-table row has every slice value null: with a row whose values
// are all null, they form one group, not two groups that both show as null.
TEST(GroupItems, ItemsWithoutARowJoinTheRowsWhoseValuesAreAllNull) {
  const std::vector<int64_t> items = {1, 2, 3, 4, 5}, a = {0, 0, 1, 1, 1}, b = {0, 1, 1, 1, 0};
  const std::vector<int64_t> t_items = {1, 2, 3}, country = {7, 0, 8}, source = {5, 0, 0};
  const std::vector<uint8_t> country_valid = {1, 0, 1}, source_valid = {1, 0, 0};
  IdColumn c = ints(country), s = ints(source);
  c.valid = country_valid.data();
  s.valid = source_valid.data();
  ItemsInput table{ints(t_items), nullptr};
  Comparison cmp({"truth", ints(items), ints(a)}, {"actual", ints(items), ints(b)}, &table,
                 MetricFamily::kPointwise);
  for (const bool both : {true, false}) {
    // country alone: item 2's row is null, items 4 and 5 have none -> one null group.
    // country and source: item 2's row is (null, null), item 3's (8, null).
    const ItemGrouping g = both ? cmp.group_items({c, s}) : cmp.group_items({c});
    ASSERT_EQ(g.n_groups, 3u) << both;
    // Heaviest first (unit weights: by items), ties in order of first appearance.
    ASSERT_EQ(g.group_row, (std::vector<uint32_t>{1, 0, 2})) << both;
    EXPECT_EQ(g.item_group, (BigVector<uint32_t>{1, 0, 2, 0, 0})) << both;
    const GroupTable t = cmp.by_items(g);
    EXPECT_EQ(t.items, (BigVector<uint64_t>{3, 1, 1})) << both;
  }
  // Without a row of nulls, the items without a row still get a group of their own.
  const std::vector<uint8_t> all_valid = {1, 1, 1};
  c.valid = all_valid.data();
  const ItemGrouping g = cmp.group_items({c});
  ASSERT_EQ(g.n_groups, 4u);
  EXPECT_EQ(g.group_row.back(), kNone);
  EXPECT_EQ(g.item_group, (BigVector<uint32_t>{0, 1, 2, 3, 3}));
}

TEST(MetricTable, RowsArePaddedToAPowerOfTwoThenToMultiplesOfEight) {
  for (const auto& [width, stride] : std::vector<std::pair<size_t, size_t>>{
           {1, 1}, {3, 4}, {4, 4}, {7, 8}, {8, 8}, {9, 16}, {17, 24}}) {
    MetricTable t(std::vector<std::string>(width, "x"), 2);
    EXPECT_EQ(t.stride, stride) << width;
    std::vector<double> row(width);
    for (size_t r = 0; r < 2; ++r) {
      for (size_t k = 0; k < width; ++k) row[k] = double(10 * r + k);
      t.push_row(row.data());
    }
    ASSERT_EQ(t.n_rows, 2u);
    EXPECT_EQ(t.values.size(), 2 * stride);
    for (size_t r = 0; r < 2; ++r)
      for (size_t k = 0; k < width; ++k) EXPECT_EQ(t.at(r, k), double(10 * r + k));
  }
}
