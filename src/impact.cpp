#include "clusterscore/impact.h"

#include <algorithm>

#include "detail/kahan.h"
#include "detail/prefetch.h"

namespace clusterscore {

namespace {

// B, E, X, U of cell k, and whether its Base cluster is split / its Exp cluster merged.
struct Sizes {
  double b, e, x, u, bx, ex;
  bool split, merge;
};
Sizes sizes_of(const CellTable& cells, size_t k) {
  const uint32_t r = cells.row[k], c = cells.col[k];
  const double x = cells.weight[k];
  const double b = cells.row_weight[r], e = cells.col_weight[c];
  // B − X and E − X are sums over the other cells of the row / column; when there
  // are none they are exactly 0 (counts decide, not float differences).
  const bool split = cells.count[k] < cells.row_count[r];
  const bool merge = cells.count[k] < cells.col_count[c];
  const double bx = split ? b - x : 0.0, ex = merge ? e - x : 0.0;
  return {b, e, x, x + bx + ex, bx, ex, split, merge};
}

// Cells come row by row, so their columns' marginals are read at random. Must be
// inlined: GCC deems a function whose only effect is a prefetch pure and drops calls.
[[gnu::always_inline]] inline void prefetch_column(const CellTable& cells, size_t k) {
  if (k >= cells.size()) return;
  __builtin_prefetch(&cells.col_weight[cells.col[k]]);
  __builtin_prefetch(&cells.col_count[cells.col[k]]);
}

}  // namespace

MetricTable impact_cells(const CellTable& cells) {
  MetricTable t({"split_distance", "merge_distance", "jaccard_distance", "jaccard_index",
                 "split_rate", "merge_rate", "affected"},
                cells.size());
  for (size_t k = 0; k < cells.size(); ++k) {
    prefetch_column(cells, k + detail::kPrefetch);
    const Sizes s = sizes_of(cells, k);
    const double row[] = {s.bx / s.u,
                          s.ex / s.u,
                          (s.bx + s.ex) / s.u,
                          s.x / s.u,
                          s.bx / s.b,
                          s.ex / s.e,
                          (s.split || s.merge) ? 1.0 : 0.0};
    t.push_row(row);
  }
  return t;
}

MetricTable impact_cell_sizes(const CellTable& cells) {
  MetricTable t({"B", "E", "X", "U"}, cells.size());
  for (size_t k = 0; k < cells.size(); ++k) {
    prefetch_column(cells, k + detail::kPrefetch);
    const Sizes s = sizes_of(cells, k);
    const double row[] = {s.b, s.e, s.x, s.u};
    t.push_row(row);
  }
  return t;
}

ImpactSummary impact_summary(const CellTable& cells, const MetricTable& impact) {
  ImpactSummary s;
  const size_t ji = impact.column("jaccard_index"), aff = impact.column("affected");
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

}  // namespace clusterscore

namespace clusterscore {

void add_impact_derived(GroupTable* g) {
  const BigVector<double>& share = g->column("affected_share");
  BigVector<double> w(g->size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = g->weight[i] * share[i];
  g->names.push_back("affected_weight");
  g->columns.push_back(std::move(w));
}

FlowTable changed_flows(const CellTable& cells) {
  FlowTable f;
  for (size_t k = 0; k < cells.size(); ++k)
    if (cells.row_cells[cells.row[k]] > 1 || cells.col_cells[cells.col[k]] > 1)
      f.cell.push_back(uint32_t(k));
  std::sort(f.cell.begin(), f.cell.end(), [&](uint32_t x, uint32_t y) {
    if (cells.weight[x] != cells.weight[y]) return cells.weight[x] > cells.weight[y];
    if (cells.row[x] != cells.row[y]) return cells.row[x] < cells.row[y];
    return cells.col[x] < cells.col[y];
  });
  for (uint32_t k : f.cell) {
    f.share_of_base.push_back(cells.weight[k] / cells.row_weight[cells.row[k]]);
    f.share_of_exp.push_back(cells.weight[k] / cells.col_weight[cells.col[k]]);
  }
  return f;
}

}  // namespace clusterscore
