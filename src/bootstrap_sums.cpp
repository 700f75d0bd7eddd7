// What the bootstrap needs of one run (bootstrap.h): sums per truth cluster, or per cell.
#include <stdexcept>

#include "clusterscore/bootstrap.h"
#include "clusterscore/pointwise.h"
#include "detail/interner.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/pair_terms.h"

namespace clusterscore {
namespace {

using detail::KahanSum;

void check_grouping(const Comparison& c, const ItemGrouping* grouping) {
  if (grouping && grouping->item_group.size() != c.joined().n_items())
    throw std::invalid_argument("clusterscore: item grouping of the wrong length");
}

std::vector<double> values(const std::vector<KahanSum>& sums) {
  std::vector<double> out;
  out.reserve(sums.size());
  for (const KahanSum& s : sums) out.push_back(s.value());
  return out;
}

}  // namespace

ClusterSums truth_cluster_sums(const Comparison& c, const ItemGrouping* grouping) {
  check_grouping(c, grouping);
  const JoinedClusterings& j = c.joined();
  const MetricTable& m = c.cell_metrics();
  const CellTable& cells = c.cells();
  const BigVector<uint32_t>& cell = c.cell_of_item();
  ClusterSums out;
  out.n_clusters = j.n_a_clusters();
  out.n_groups = grouping ? grouping->n_groups : 1;
  out.names = m.names;
  out.pairs = c.family() == MetricFamily::kPointwise;
  out.design = c.design();
  const ActualMarginals actual = out.pairs ? c.marginals() : ActualMarginals{};
  const double scale = pair_scale(cells);  // as pair_sums() scales items' weights
  const size_t k = m.width(), width = out.width();
  detail::Interner entries(false, 1024);
  std::vector<KahanSum> w, s;
  for (size_t i = 0; i < j.n_items(); ++i) {
    detail::poll_every(i);
    const uint32_t g = grouping ? grouping->item_group[i] : 0;
    if (cell[i] == kNone || g == kNone) continue;
    const uint32_t a = j.a_cluster[i];
    const auto [e, inserted] = entries.insert_key((uint64_t(a) << 32) | g);
    if (inserted) {
      out.cluster.push_back(a);
      out.group.push_back(g);
      w.emplace_back();
      s.resize(s.size() + width);
    }
    const double wi = j.weight[i];
    w[e].add(wi);
    KahanSum* to = s.data() + size_t(e) * width;
    const double* v = m.row(cell[i]);
    for (size_t q = 0; q < k; ++q) to[q].add(wi * v[q]);
    if (out.pairs) {
      const uint32_t x = cell[i];
      const double tp = cells.weight[x], aw = actual.col_weight[cells.col[x]],
                   tw = cells.row_weight[cells.row[x]];
      const detail::PairTerms t =
          j.units() ? detail::unit_pair_terms(wi, j.weight_sq[i], j.count[i], tp, aw, tw, scale)
                    : detail::item_pair_terms(wi, tp, aw, tw, scale);
      to[k].add(t.together);
      to[k + 1].add(t.actual);
      to[k + 2].add(t.truth);
    }
  }
  out.weight = values(w);
  out.sums = values(s);
  return out;
}

CellSums cell_sums(const Comparison& c, const ItemGrouping* grouping) {
  check_grouping(c, grouping);
  if (c.family() != MetricFamily::kPointwise || c.scope() != TruthScope::kCommon)
    throw std::invalid_argument("clusterscore: cell sums are for the common scope's scores");
  const JoinedClusterings& j = c.joined();
  const CellTable& cells = c.cells();
  const BigVector<uint32_t>& cell = c.cell_of_item();
  CellSums out;
  out.n_clusters = cells.n_rows;
  out.n_groups = grouping ? grouping->n_groups : 1;
  out.row.assign(cells.row.begin(), cells.row.end());
  // Actual clusters renumbered densely among those meeting T: each resample sums every
  // one, and with a small truth most of the actual clustering's clusters do not.
  std::vector<uint32_t> dense(cells.n_cols, kNone);
  out.col.reserve(cells.size());
  for (uint32_t c : cells.col) {
    if (dense[c] == kNone) dense[c] = uint32_t(out.n_cols++);
    out.col.push_back(dense[c]);
  }
  out.cell_weight.assign(cells.weight.begin(), cells.weight.end());
  out.row_weight.assign(cells.row_weight.begin(), cells.row_weight.end());
  out.scale = pair_scale(cells);
  detail::Interner entries(false, 1024);
  std::vector<KahanSum> w, q;
  for (size_t i = 0; i < j.n_items(); ++i) {
    detail::poll_every(i);
    const uint32_t g = grouping ? grouping->item_group[i] : 0;
    if (cell[i] == kNone || g == kNone) continue;
    const auto [e, inserted] = entries.insert_key((uint64_t(cell[i]) << 32) | g);
    if (inserted) {
      out.cell.push_back(cell[i]);
      out.group.push_back(g);
      w.emplace_back();
      q.emplace_back();
    }
    const double wi = j.weight[i], ws = wi * out.scale;
    w[e].add(wi);
    // A unit's Σw², scaled as its items' weights would be (by a power of two: exactly).
    q[e].add(j.units() ? j.weight_sq[i] * out.scale * out.scale : ws * ws);
  }
  // Entries ordered by cell (stably), so that each resample computes a cell's metrics
  // once for all its groups.
  std::vector<size_t> start(cells.size() + 1, 0);
  for (uint32_t k : out.cell) ++start[k + 1];
  for (size_t k = 0; k < cells.size(); ++k) start[k + 1] += start[k];
  std::vector<uint32_t> by_cell(out.size()), group(out.size());
  std::vector<double> weight(out.size()), weight_sq(out.size());
  for (size_t e = 0; e < out.size(); ++e) {
    const size_t at = start[out.cell[e]]++;
    by_cell[at] = out.cell[e];
    group[at] = out.group[e];
    weight[at] = w[e].value();
    weight_sq[at] = q[e].value();
  }
  out.cell = std::move(by_cell);
  out.group = std::move(group);
  out.weight = std::move(weight);
  out.weight_sq = std::move(weight_sq);
  return out;
}

}  // namespace clusterscore
