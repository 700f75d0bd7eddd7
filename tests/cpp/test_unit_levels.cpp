// The levels' sums made per unit (the Spark engine's path, metrics/unit_levels.h) against the
// comparison's own levels, on seeded random items in both scopes and every design.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

#include "comparison/comparison.h"
#include "detail/kahan.h"
#include "helpers.h"
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
  const GroupTable rows = unit_level_sums(u);
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
  return finish_level_sums(std::move(sums));
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
        EXPECT_NEAR(a, b, 1e-12) << want.names[j] << " group " << g;
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
