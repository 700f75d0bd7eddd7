#include "metrics/impact.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "cells/cell_weights.h"
#include "detail/kahan.h"
#include "detail/lanes.h"
#include "detail/prefetch.h"
#include "metrics/fill_rows.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore {

namespace {

// B, E, X, U of cell k (cells/cell_weights.h), and whether its Base cluster is split / its
// Exp cluster merged.
struct Sizes : detail::CellWeights {
  bool split, merge;
};
Sizes sizes_of(const CellTable& cells, size_t k) {
  return {detail::cell_weights(cells, cells.col_weight, k), detail::splits_row(cells, k),
          detail::merges_column(cells, k)};
}

// Cells come row by row, so their columns' marginals are read at random. Must be
// inlined: GCC deems a function whose only effect is a prefetch pure and drops calls.
[[gnu::always_inline]] inline void prefetch_column(const CellTable& cells, size_t k) {
  if (k >= cells.size()) return;
  detail::prefetch(&cells.col_weight[cells.col[k]]);
  detail::prefetch(&cells.col_count[cells.col[k]]);
}

}  // namespace

MetricTable impact_cells(const CellTable& cells) {
  MetricTable t(std::vector<std::string>(std::begin(kImpactNames), std::end(kImpactNames)),
                cells.size());
  detail::fill_rows(&t, cells.size(), [&](size_t k, double* row) {
    prefetch_column(cells, k + detail::kPrefetch);
    const Sizes s = sizes_of(cells, k);
    detail::impact_row(s, s.split || s.merge, row);
  });
  return t;
}

MetricTable impact_cell_sizes(const CellTable& cells) {
  MetricTable t({std::begin(kImpactSizeNames), std::end(kImpactSizeNames)}, cells.size());
  detail::fill_rows(&t, cells.size(), [&](size_t k, double* row) {
    prefetch_column(cells, k + detail::kPrefetch);
    detail::impact_sizes(sizes_of(cells, k), row);
  });
  return t;
}

ImpactSummary impact_summary(const CellTable& cells, const MetricTable& impact) {
  ImpactSummary s;
  const size_t ji = ImpactColumn::kJaccardIndex, aff = ImpactColumn::kAffected;
  detail::KahanSum affected_w, affected_j, unaffected_w;
  for (size_t k = 0; k < cells.size(); ++k) {
    const double w = cells.weight[k];
    if (impact.at(k, aff) != 0.0) {
      s.affected_items += cells.count[k];
      affected_w.add(w);
      affected_j.add(w * impact.at(k, ji));
    } else {
      unaffected_w.add(w);
    }
  }
  s.affected_weight = affected_w.value();
  s.affected_jaccard_index = affected_j.value() / cells.total_weight;
  s.unaffected_jaccard_index = unaffected_w.value() / cells.total_weight;
  for (uint32_t n : cells.row_cells) s.base_clusters_split += n >= 2;
  for (uint32_t n : cells.col_cells) s.exp_clusters_merged += n >= 2;
  return s;
}

void add_impact_derived(GroupTable* g) {
  const BigVector<double>& share = g->columns[ImpactColumn::kAffected];
  BigVector<double> w(g->size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = g->weight[i] * share[i];
  g->names.push_back("affected_weight");
  g->columns.push_back(std::move(w));
}

FlowTable changed_flows(const CellTable& cells) {
  // Sorted as records rather than cell indices: the comparisons then read contiguous
  // memory, not three arrays at random, and so does the output.
  struct Flow {
    double weight;
    uint32_t row, col;
    uint64_t items;
  };
  BigVector<Flow> flows;
  for (size_t k = 0; k < cells.size(); ++k) {
    if (k + detail::kPrefetch < cells.size())  // columns come at random (cells are by row)
      detail::prefetch(&cells.col_cells[cells.col[k + detail::kPrefetch]]);
    const uint32_t r = cells.row[k], c = cells.col[k];
    if (cells.row_cells[r] > 1 || cells.col_cells[c] > 1)
      flows.push_back({cells.weight[k], r, c, cells.count[k]});
  }
  std::sort(flows.begin(), flows.end(), [](const Flow& x, const Flow& y) {
    if (x.weight != y.weight) return x.weight > y.weight;
    return x.row != y.row ? x.row < y.row : x.col < y.col;
  });
  FlowTable f;
  for (auto* v : {&f.row, &f.col}) v->reserve(flows.size());
  for (auto* v : {&f.weight, &f.share_of_base, &f.share_of_exp}) v->reserve(flows.size());
  f.items.reserve(flows.size());
  for (const Flow& x : flows) {
    f.row.push_back(x.row);
    f.col.push_back(x.col);
    f.items.push_back(x.items);
    f.weight.push_back(x.weight);
    f.share_of_base.push_back(x.weight / cells.row_weight[x.row]);
    f.share_of_exp.push_back(x.weight / cells.col_weight[x.col]);
  }
  return f;
}

}  // namespace clusterscore
