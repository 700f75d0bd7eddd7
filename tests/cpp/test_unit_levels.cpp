// The levels' sums made per unit (the Spark engine's path, metrics/unit_levels.h) against the
// comparison's own levels, on seeded random items in both scopes and every design.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "comparison/comparison.h"
#include "detail/kahan.h"
#include "helpers.h"
#include "metrics/impact.h"
#include "metrics/pointwise.h"
#include "metrics/unit_levels.h"

using namespace clusterscore;
using cstest::ints;

namespace {

struct Inputs {
  std::vector<int64_t> truth_items, truth, actual_items, actual, items;
  std::vector<double> w;
};

// Items 0..n; about 1 in 6 is missing from each clustering; clusters of a few items.
Inputs random_inputs(std::mt19937_64& rng, size_t n) {
  Inputs in;
  for (size_t i = 0; i < n; ++i) {
    const int64_t id = int64_t(i);
    in.items.push_back(id);
    in.w.push_back(std::ldexp(double(rng() % 1000 + 1), -int(rng() % 8)));
    if (rng() % 6) in.truth_items.push_back(id), in.truth.push_back(int64_t(rng() % (n / 4)));
    if (rng() % 6) in.actual_items.push_back(id), in.actual.push_back(int64_t(rng() % (n / 5)));
  }
  return in;
}

// Rows of per-unit sums summed by `group` (per row), groups without items left out.
GroupTable sum_by(const GroupTable& rows, std::span<const uint32_t> group, size_t n_groups) {
  GroupTable sums;
  sums.names = rows.names;
  std::vector<std::vector<detail::KahanSum>> s(rows.names.size(),
                                               std::vector<detail::KahanSum>(n_groups));
  std::vector<detail::KahanSum> weight(n_groups);
  std::vector<uint64_t> items(n_groups, 0);
  for (size_t k = 0; k < rows.size(); ++k) {
    items[group[k]] += rows.items[k];
    weight[group[k]].add(rows.weight[k]);
    for (size_t j = 0; j < rows.names.size(); ++j) s[j][group[k]].add(rows.columns[j][k]);
  }
  sums.columns.resize(rows.names.size());
  for (size_t g = 0; g < n_groups; ++g) {
    if (items[g] == 0) continue;
    sums.group.push_back(uint32_t(g));
    sums.items.push_back(items[g]);
    sums.weight.push_back(weight[g].value());
    for (size_t j = 0; j < rows.names.size(); ++j) sums.columns[j].push_back(s[j][g].value());
  }
  return sums;
}

// The unit_level_sums() of `c`'s cells (one unit per cell), summed by `group` (per cell)
// and finished.
GroupTable by_units(const Comparison& c, std::span<const uint32_t> group, size_t n_groups,
                    const std::vector<uint64_t>& truth_size, bool per_entity) {
  const CellTable& cells = c.cells();
  const ActualMarginals m = c.marginals();
  std::vector<double> b(cells.size()), e(cells.size());
  std::vector<uint64_t> size(cells.size());
  for (size_t k = 0; k < cells.size(); ++k) {
    b[k] = cells.row_weight[cells.row[k]];
    e[k] = m.col_weight[cells.col[k]];
    size[k] = truth_size.empty() ? 0 : truth_size[cells.row[k]];
  }
  const CellUnits u{cells.count,
                    cells.weight,
                    cells.weight_sq,
                    cells.weight,
                    b,
                    e,
                    truth_size.empty() ? std::span<const uint64_t>{} : std::span(size),
                    m.total,
                    pair_scale(cells.total_weight, cells.total_count),
                    per_entity};
  return finish_level_sums(sum_by(unit_level_sums(u), group, n_groups));
}

void expect_same(const GroupTable& want, const GroupTable& got) {
  ASSERT_EQ(want.names, got.names);
  ASSERT_EQ(want.size(), got.size());
  for (size_t g = 0; g < want.size(); ++g) {
    EXPECT_EQ(want.group[g], got.group[g]);
    EXPECT_EQ(want.items[g], got.items[g]);
    EXPECT_NEAR(want.weight[g], got.weight[g], 1e-12 * want.weight[g]);
    for (size_t j = 0; j < want.names.size(); ++j) {
      const double a = want.columns[j][g], b = got.columns[j][g];
      if (std::isnan(a)) {
        EXPECT_TRUE(std::isnan(b)) << want.names[j];
      } else {
        EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::abs(a))) << want.names[j] << " group " << g;
      }
    }
  }
}

}  // namespace

TEST(UnitLevels, EveryLevelEqualsTheComparisonsInBothScopesAndEveryDesign) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 6; ++round) {
    const Inputs in = random_inputs(rng, 400);
    std::map<int64_t, uint64_t> size_of;
    for (int64_t t : in.truth) ++size_of[t];
    for (TruthScope scope : {TruthScope::kCommon, TruthScope::kEntities}) {
      for (DesignKind kind : {DesignKind::kUniform, DesignKind::kInverseSize}) {
        for (bool per_entity : {false, true}) {
          if (scope == TruthScope::kCommon && (kind != DesignKind::kUniform || per_entity))
            continue;
          ItemsInput table{ints(in.items), in.w.data()};
          Comparison c({"truth", ints(in.truth_items), ints(in.truth)},
                       {"actual", ints(in.actual_items), ints(in.actual)}, &table,
                       MetricFamily::kPointwise, scope);
          c.use_design({kind, {}, per_entity});
          // Truth clusters are numbered in order of first appearance.
          std::vector<uint64_t> truth_size;
          if (kind == DesignKind::kInverseSize) {
            std::map<int64_t, bool> seen;
            for (int64_t t : in.truth)
              if (!seen[t]) seen[t] = true, truth_size.push_back(size_of[t]);
          }
          const CellTable& cells = c.cells();
          const std::vector<uint32_t> zero(cells.size(), 0);
          SCOPED_TRACE(testing::Message()
                       << "round " << round << " scope " << int(scope) << " design " << int(kind)
                       << " per_entity " << per_entity);
          expect_same(c.overall(), by_units(c, zero, 1, truth_size, per_entity));
          expect_same(c.by_cluster(Side::kA),
                      by_units(c, cells.row, cells.n_rows, truth_size, per_entity));
          expect_same(c.by_cluster(Side::kB),
                      by_units(c, cells.col, cells.n_cols, truth_size, per_entity));
        }
      }
    }
  }
}

TEST(UnitLevels, RefusesArraysOfOtherLengthsAndOtherColumns) {
  const std::vector<uint64_t> count{1, 2};
  const std::vector<double> two{1, 2}, one{1};
  CellUnits u{count, two, two, two, two, one};
  EXPECT_THROW(unit_level_sums(u), std::invalid_argument);
  GroupTable t;
  t.names = {"precision"};
  EXPECT_THROW(finish_level_sums(t), std::invalid_argument);
}

namespace {

// A diff's cells as impact units: a cell of several items as two units (one item and a
// quarter of its weight, the rest), as a slice would cut it; `cell` is each unit's cell.
struct DiffUnits {
  std::vector<uint64_t> count, cell_count, base_count, exp_count;
  std::vector<double> weight, x, b, e;
  std::vector<size_t> cell;
  ImpactUnits spans() const { return {count, weight, x, b, e, cell_count, base_count, exp_count}; }
};

DiffUnits diff_units(const CellTable& cells) {
  DiffUnits u;
  auto add = [&](size_t k, uint64_t n, double w) {
    u.count.push_back(n), u.weight.push_back(w), u.cell.push_back(k);
    u.x.push_back(cells.weight[k]), u.cell_count.push_back(cells.count[k]);
    u.b.push_back(cells.row_weight[cells.row[k]]),
        u.base_count.push_back(cells.row_count[cells.row[k]]);
    u.e.push_back(cells.col_weight[cells.col[k]]),
        u.exp_count.push_back(cells.col_count[cells.col[k]]);
  };
  for (size_t k = 0; k < cells.size(); ++k) {
    if (cells.count[k] < 2) {
      add(k, cells.count[k], cells.weight[k]);
    } else {
      add(k, 1, cells.weight[k] * 0.25);
      add(k, cells.count[k] - 1, cells.weight[k] - cells.weight[k] * 0.25);
    }
  }
  return u;
}

// Per unit, the group of its cell's row or column (`by`: per cell).
std::vector<uint32_t> per_unit(const DiffUnits& u, std::span<const uint32_t> by) {
  std::vector<uint32_t> g;
  for (size_t k : u.cell) g.push_back(by[k]);
  return g;
}

}  // namespace

TEST(UnitLevels, ADiffsLevelsSummaryAndFlowsEqualTheComparisons) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 6; ++round) {
    const Inputs in = random_inputs(rng, 400);
    ItemsInput table{ints(in.items), in.w.data()};
    Comparison c({"base", ints(in.truth_items), ints(in.truth)},
                 {"exp", ints(in.actual_items), ints(in.actual)}, &table, MetricFamily::kImpact,
                 TruthScope::kCommon);
    const CellTable& cells = c.cells();
    const DiffUnits u = diff_units(cells);
    const GroupTable rows = impact_unit_sums(u.spans());
    SCOPED_TRACE(testing::Message() << "round " << round);
    const std::vector<uint32_t> zero(rows.size(), 0);
    const GroupTable total = sum_by(rows, zero, 1);
    expect_same(c.overall(), finish_impact_sums(total));
    expect_same(c.by_cluster(Side::kA),
                finish_impact_sums(sum_by(rows, per_unit(u, cells.row), cells.n_rows)));
    expect_same(c.by_cluster(Side::kB),
                finish_impact_sums(sum_by(rows, per_unit(u, cells.col), cells.n_cols)));
    // The summary: split and merged clusters counted once each, from their units' flags.
    const size_t split =
        std::find(rows.names.begin(), rows.names.end(), "base_split") - rows.names.begin();
    std::set<uint32_t> split_rows, merged_cols;
    for (size_t k = 0; k < rows.size(); ++k) {
      if (rows.columns[split][k] != 0) split_rows.insert(cells.row[u.cell[k]]);
      if (rows.columns[split + 1][k] != 0) merged_cols.insert(cells.col[u.cell[k]]);
    }
    const ImpactSummary want = c.impact();
    const ImpactSummary got =
        impact_summary_of_sums(total, 0, split_rows.size(), merged_cols.size());
    EXPECT_EQ(want.affected_items, got.affected_items);
    EXPECT_NEAR(want.affected_weight, got.affected_weight, 1e-12 * want.affected_weight);
    EXPECT_NEAR(want.affected_jaccard_index, got.affected_jaccard_index, 1e-12);
    EXPECT_NEAR(want.unaffected_jaccard_index, got.unaffected_jaccard_index, 1e-12);
    EXPECT_EQ(want.base_clusters_split, got.base_clusters_split);
    EXPECT_EQ(want.exp_clusters_merged, got.exp_clusters_merged);
    // The flows: the affected units summed by cell, their shares those of changed_flows().
    const FlowTable flows = changed_flows(cells);
    std::vector<uint32_t> by_cell;
    for (size_t k : u.cell) by_cell.push_back(uint32_t(k));
    const GroupTable per_cell = sum_by(rows, by_cell, cells.size());
    const auto col = [&](const char* n) {
      return std::find(rows.names.begin(), rows.names.end(), n) - rows.names.begin();
    };
    std::map<std::pair<uint32_t, uint32_t>, size_t> flow_of;
    for (size_t f = 0; f < flows.row.size(); ++f) flow_of[{flows.row[f], flows.col[f]}] = f;
    size_t affected_cells = 0;
    for (size_t g = 0; g < per_cell.size(); ++g) {
      const size_t k = per_cell.group[g];
      if (per_cell.columns[col("affected")][g] == 0) continue;
      ++affected_cells;
      const size_t f = flow_of.at({cells.row[k], cells.col[k]});
      EXPECT_EQ(flows.items[f], per_cell.items[g]);
      EXPECT_NEAR(flows.share_of_base[f], per_cell.columns[col("share_of_base")][g], 1e-12);
      EXPECT_NEAR(flows.share_of_exp[f], per_cell.columns[col("share_of_exp")][g], 1e-12);
    }
    EXPECT_EQ(affected_cells, flows.row.size());
  }
}

// Each unit's per-item values against its cell's in `counts` then `metrics` (the
// comparison's cell_counts() and cell_metrics(), which its per-item table reads).
void expect_cells_values(const GroupTable& got, std::span<const size_t> cell,
                         const MetricTable& counts, const MetricTable& metrics) {
  std::vector<std::string> names = counts.names;
  names.insert(names.end(), metrics.names.begin(), metrics.names.end());
  ASSERT_EQ(got.names, names);
  for (size_t k = 0; k < got.size(); ++k)
    for (size_t m = 0; m < names.size(); ++m) {
      const double want =
          m < counts.width() ? counts.at(cell[k], m) : metrics.at(cell[k], m - counts.width());
      EXPECT_NEAR(want, got.columns[m][k], 1e-12 * std::max(1.0, std::abs(want)))
          << names[m] << " unit " << k;
    }
}

TEST(UnitLevels, EachUnitsItemValuesAreItsCellsInBothFamiliesAndScopes) {
  std::mt19937_64 rng(13);
  const Inputs in = random_inputs(rng, 400);
  ItemsInput table{ints(in.items), in.w.data()};
  for (TruthScope scope : {TruthScope::kCommon, TruthScope::kEntities}) {
    Comparison c({"truth", ints(in.truth_items), ints(in.truth)},
                 {"actual", ints(in.actual_items), ints(in.actual)}, &table,
                 MetricFamily::kPointwise, scope);
    const CellTable& cells = c.cells();
    const ActualMarginals m = c.marginals();
    std::vector<double> b, e;
    std::vector<size_t> cell;
    for (size_t k = 0; k < cells.size(); ++k) {
      b.push_back(cells.row_weight[cells.row[k]]);
      e.push_back(m.col_weight[cells.col[k]]);
      cell.push_back(k);
    }
    const CellUnits u{cells.count, cells.weight, cells.weight_sq, cells.weight, b, e, {}, m.total};
    expect_cells_values(unit_item_values(u), cell, c.cell_counts(), c.cell_metrics());
  }
  Comparison d({"base", ints(in.truth_items), ints(in.truth)},
               {"exp", ints(in.actual_items), ints(in.actual)}, &table, MetricFamily::kImpact,
               TruthScope::kCommon);
  const DiffUnits u = diff_units(d.cells());
  expect_cells_values(impact_unit_item_values(u.spans()), u.cell, d.cell_counts(),
                      d.cell_metrics());
}

TEST(UnitLevels, ADiffsSumsRefuseArraysOfOtherLengthsAndOtherColumns) {
  const std::vector<uint64_t> count{1, 2}, one_count{1};
  const std::vector<double> two{1, 2};
  EXPECT_THROW(impact_unit_sums({count, two, two, two, two, count, count, one_count}),
               std::invalid_argument);
  GroupTable t;
  t.names = {"split_distance"};
  EXPECT_THROW(finish_impact_sums(t), std::invalid_argument);
  EXPECT_THROW(impact_summary_of_sums(t, 0, 0, 0), std::invalid_argument);
  const GroupTable rows = impact_unit_sums({count, two, two, two, two, count, count, count});
  EXPECT_THROW(impact_summary_of_sums(rows, 2, 0, 0), std::invalid_argument);
  EXPECT_THROW(impact_unit_item_values({count, two, two, two, two, count, count, one_count}),
               std::invalid_argument);
  const std::vector<double> one{1};
  EXPECT_THROW(unit_item_values({count, two, two, two, two, one}), std::invalid_argument);
}
