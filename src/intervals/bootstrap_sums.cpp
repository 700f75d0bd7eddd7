// What the bootstrap needs of one run (bootstrap.h): sums per truth cluster, or per cell, and
// group, each an aggregate_totals() over a compound key.
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "detail/counting_order.h"
#include "detail/interrupt.h"
#include "input/interner.h"
#include "intervals/bootstrap.h"
#include "levels/aggregate.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

namespace clusterscore {
namespace {

void check_grouping(const Comparison& c, const ItemGrouping* grouping) {
  if (grouping && grouping->item_group.size() != c.joined().n_items())
    throw std::invalid_argument("clusterscore: item grouping of the wrong length");
}

// The bootstrap's compound key: each item's entry, a dense code of (its key, its group),
// numbered in order of first appearance; kNone for items outside T or outside every group.
struct Entries {
  std::vector<uint32_t> code;        // per joined item
  std::vector<uint32_t> key, group;  // per entry
  size_t size() const { return key.size(); }
};
template <class Key>
Entries entries_of(const Comparison& c, const ItemGrouping* grouping, Key key) {
  const BigVector<uint32_t>& cell = c.cell_of_item();
  Entries e;
  e.code.assign(cell.size(), kNone);
  detail::Interner seen(false, 1024);
  for (size_t i = 0; i < cell.size(); ++i) {
    detail::poll_every(i);
    const uint32_t g = grouping ? grouping->item_group[i] : 0;
    if (cell[i] == kNone || g == kNone) continue;
    const uint32_t k = key(i);
    const auto [code, inserted] = seen.insert_key((uint64_t(k) << 32) | g);
    if (inserted) {
      e.key.push_back(k);
      e.group.push_back(g);
    }
    e.code[i] = code;
  }
  return e;
}

std::vector<double> copy(const BigVector<double>& v) { return {v.begin(), v.end()}; }

// `s` with only the sums CellSums::alone is read for: precision and recall (the layout's
// first two means, which f1_of_means needs beside them) and the three pair sums. Each
// resample sums every column it holds: the other six means would cost twice as much.
ClusterSums precision_recall_and_pairs(ClusterSums s) {
  static_assert(detail::PointwiseColumn::kPrecision == 0 && detail::PointwiseColumn::kRecall == 1);
  const size_t old_width = s.width(), means = s.names.size();
  s.names.resize(2);
  const size_t width = s.width();
  std::vector<double> sums(s.size() * width);
  for (size_t e = 0; e < s.size(); ++e) {
    const double* from = s.sums.data() + e * old_width;
    double* to = sums.data() + e * width;
    to[0] = from[0], to[1] = from[1];
    for (size_t q = 0; q < 3; ++q) to[2 + q] = from[means + q];
  }
  s.sums = std::move(sums);
  return s;
}

}  // namespace

ClusterSums truth_cluster_sums(const Comparison& c, const ItemGrouping* grouping) {
  check_grouping(c, grouping);
  const JoinedClusterings& j = c.joined();
  const MetricTable& m = c.cell_metrics();
  ClusterSums out;
  out.n_clusters = j.n_a_clusters();
  out.n_groups = grouping ? grouping->n_groups : 1;
  out.names = m.names;
  out.pairs = c.family() == MetricFamily::kPointwise;
  out.design = c.design();
  out.inclusion = c.inclusion();
  Entries e = entries_of(c, grouping, [&](size_t i) { return j.a_cluster[i]; });
  const Units units = c.item_units(e.code);
  // Unweighted by design (the bootstrap applies it), over the items as the levels sum them:
  // the comparison's own pair inputs where it has no design.
  BigVector<PairCell> undesigned;
  PairInputs pairs;
  if (out.pairs) {
    if (!c.design().empty()) undesigned = pair_cells(c.cells(), c.marginals(), {});
    pairs = {c.design().empty() ? std::span(c.pair_inputs()) : std::span(undesigned), false,
             pair_scale(c.cells())};
  }
  // Every entry holds an item, so the totals' rows are the entries, in code order.
  GroupTable t = aggregate_totals(m, units, e.size(), out.pairs ? &pairs : nullptr);
  PairSumColumns p;
  if (out.pairs) p = take_pair_sums(&t);
  out.cluster = std::move(e.key);
  out.group = std::move(e.group);
  out.weight = copy(t.weight);
  const size_t k = m.width(), width = out.width();
  out.sums.resize(out.size() * width);
  for (size_t r = 0; r < out.size(); ++r) {
    double* to = out.sums.data() + r * width;
    for (size_t q = 0; q < k; ++q) to[q] = t.columns[q][r];
    if (out.pairs) to[k] = p.together[r], to[k + 1] = p.actual[r], to[k + 2] = p.truth[r];
  }
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
  out.sampled_share = c.sampled_share();
  out.pair_share = c.pair_sampled_share();
  if (!c.inclusion().empty())
    out.alone = precision_recall_and_pairs(truth_cluster_sums(c, grouping));
  if (!grouping && cells.weight_sq.size() == cells.size()) {
    // Every item in one group: the entries are the cells, with their own sums.
    out.cell.resize(cells.size());
    for (size_t k = 0; k < cells.size(); ++k) out.cell[k] = uint32_t(k);
    out.group.assign(cells.size(), 0);
    out.weight.assign(cells.weight.begin(), cells.weight.end());
    const double s2 = out.scale * out.scale;  // a power of two: exact
    out.weight_sq.resize(cells.size());
    for (size_t k = 0; k < cells.size(); ++k) out.weight_sq[k] = cells.weight_sq[k] * s2;
    return out;
  }
  const Entries e = entries_of(c, grouping, [&](size_t i) { return cell[i]; });
  // Σw, then Σ(w·scale)² as the weights of a second pass: a unit's Σw², scaled as its
  // items' weights would be (by a power of two: exactly).
  const GroupTable w = aggregate_totals({}, c.item_units(e.code), e.size());
  std::vector<double> squares(j.n_items());
  for (size_t i = 0; i < j.n_items(); ++i) {
    const double ws = j.weight[i] * out.scale;
    squares[i] = j.units() ? j.weight_sq[i] * out.scale * out.scale : ws * ws;
  }
  const GroupTable q = aggregate_totals({}, Units{cell, e.code, squares, {}, {}}, e.size());
  // Entries ordered by cell (stably), so that each resample computes a cell's metrics
  // once for all its groups.
  for (size_t r : detail::counting_order(e.size(), cells.size(), [&](size_t r) {
                    return size_t(e.key[r]);
                  }).order) {
    out.cell.push_back(e.key[r]);
    out.group.push_back(e.group[r]);
    out.weight.push_back(w.weight[r]);
    out.weight_sq.push_back(q.weight[r]);
  }
  return out;
}

std::variant<ClusterSums, CellSums> run_sums(const Comparison& c, const ItemGrouping* grouping) {
  if (c.family() == MetricFamily::kPointwise && c.scope() == TruthScope::kCommon)
    return cell_sums(c, grouping);
  return truth_cluster_sums(c, grouping);
}

namespace {

// `to` with `from`'s entries after its own, their groups after its groups.
void append(ClusterSums* to, ClusterSums&& from) {
  for (uint32_t& g : from.group) g += uint32_t(to->n_groups);
  to->n_groups += from.n_groups;
  to->cluster.insert(to->cluster.end(), from.cluster.begin(), from.cluster.end());
  to->group.insert(to->group.end(), from.group.begin(), from.group.end());
  to->weight.insert(to->weight.end(), from.weight.begin(), from.weight.end());
  to->sums.insert(to->sums.end(), from.sums.begin(), from.sums.end());
}
void append(CellSums* to, CellSums&& from) {
  if (to->alone && from.alone) append(&*to->alone, std::move(*from.alone));
  for (uint32_t& g : from.group) g += uint32_t(to->n_groups);
  to->n_groups += from.n_groups;
  to->cell.insert(to->cell.end(), from.cell.begin(), from.cell.end());
  to->group.insert(to->group.end(), from.group.begin(), from.group.end());
  to->weight.insert(to->weight.end(), from.weight.begin(), from.weight.end());
  to->weight_sq.insert(to->weight_sq.end(), from.weight_sq.begin(), from.weight_sq.end());
}

}  // namespace

std::variant<ClusterSums, CellSums> run_sums(const Comparison& c,
                                             const std::vector<const ItemGrouping*>& groupings) {
  if (groupings.empty()) throw std::invalid_argument("clusterscore: run_sums needs a grouping");
  std::variant<ClusterSums, CellSums> out = run_sums(c, groupings[0]);
  for (size_t i = 1; i < groupings.size(); ++i)
    std::visit(
        [&](auto& sums) {
          append(&sums, std::get<std::decay_t<decltype(sums)>>(run_sums(c, groupings[i])));
        },
        out);
  return out;
}

}  // namespace clusterscore
