#include "curves/curve_pass.h"

#include <algorithm>
#include <stdexcept>

#include "levels/pair_terms.h"
#include "metrics/pointwise.h"

// Four-lane vectors (detail/lanes.h, through pointwise_row()) pass between inlined functions
// only: no ABI is crossed, whatever -Wpsabi says.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::curves_detail {

CurvePass::CurvePass(const Comparison& c) : c_(c) {
  const JoinedClusterings& j = c.joined();
  if (c.family() != MetricFamily::kPointwise)
    throw std::invalid_argument("clusterscore: a curve scores an actual clustering");
  if (j.units()) throw std::invalid_argument("clusterscore: a curve takes items, not units");
  const ActualMarginals m = c.marginals();
  if (!pair_sums_by_cell(c.cells(), m))
    throw std::invalid_argument(
        "clusterscore: item weights beyond 2^±250: a curve's pair sums cannot square them");
  total_ = m.total;
  scale_ = pair_scale(c.cells());
  design_ = c.design();
  row_weight_ = c.cells().row_weight;
  const size_t n = j.n_b_clusters();
  node_.assign(n, Node{kNone, kNone, 0, 0.0, 0.0});
  cells_.assign(n, Cell{kNone, 0, 0.0, 0.0, kNone});
  for (uint32_t node = 0; node < n; ++node) node_[node].x = m.col_weight[node];
  for (uint64_t items : c.cells().row_count) paired_truth_ = paired_truth_ || items >= 2;
  for (size_t i = 0; i < j.n_items(); ++i) {
    const uint32_t node = j.b_cluster[i];
    if (node == kNone) continue;
    Node& d = node_[node];
    d.weight = j.weight[i], cells_[node].sq = j.weight_sq_of(i);
    d.scope_items = c.scope() == TruthScope::kEntities || j.a_cluster[i] != kNone;
    d.truth = j.a_cluster[i];
  }
  for (uint32_t node = 0; node < n; ++node) {
    if (!in_t(node)) continue;
    const uint32_t a = node_[node].truth;
    cells_[node] = {a, 1, node_[node].weight, cells_[node].sq, kNone};
    const Sums s = sums_of(node);
    for (size_t k = 0; k < kSums; ++k) totals_[k].add(s[k]);
    mean_weight_.add(design(a) * node_[node].weight);
  }
}

void CurvePass::add_values(const Group& g, double x, Sums* s) const {
  double m[kMeans];
  detail::pointwise_row({g.tp, g.truth, x, g.truth - g.tp, x - g.tp}, total_, m);
  const double w = g.tp * g.design;
  for (size_t k = 0; k < kMeans; ++k) (*s)[k] += w * m[k];
  const detail::PairTerms t =
      detail::cell_pair_terms(w * scale_, g.design_sq * scale_ * scale_, g.tp, x, g.truth, scale_);
  (*s)[kMeans] += t.together, (*s)[kMeans + 1] += t.actual, (*s)[kMeans + 2] += t.truth;
}

Sums CurvePass::sums_of(uint32_t r) const {
  Sums s{};
  const Node& d = node_[r];
  if (d.slot != kNone) {
    for (const Group& g : slots_[d.slot].groups)
      if (g.cells != 0) add_values(g, d.x, &s);
  } else if (in_t(r)) {
    add_values(single_group(r), d.x, &s);
  }
  return s;
}

Slot& CurvePass::slot(uint32_t r) {
  uint32_t& at = node_[r].slot;
  if (at == kNone) {
    if (free_.empty()) {
      at = uint32_t(slots_.size());
      slots_.emplace_back();
    } else {
      at = free_.back();
      free_.pop_back();
    }
    Slot& s = slots_[at];
    s.root = r;
    s.groups.push_back(single_group(r));
    append_cell(&s.cells, r);
    cell_index_.insert({at, node_[r].truth}, r);
  }
  return slots_[at];
}

void CurvePass::free_slot(uint32_t r) {
  uint32_t& at = node_[r].slot;
  if (at == kNone) return;
  Slot& s = slots_[at];
  stale_count_ -= s.stale;
  // A slot is made again for the next merge: its groups keep their room (no allocation then).
  std::vector<Group> groups = std::move(s.groups);
  groups.clear();
  s = Slot{};
  s.groups = std::move(groups);
  free_.push_back(at);
  at = kNone;
}

Sums CurvePass::subtract(uint32_t r) {
  if (!has_t(r)) return Sums{};
  // A slot's sums as they were added; a single item's, computed again.
  const uint32_t at = node_[r].slot;
  const Sums s = at != kNone ? slots_[at].sums : sums_of(r);
  for (size_t k = 0; k < kSums; ++k) totals_[k].add(-s[k]);
  return s;
}

uint32_t CurvePass::find_group(uint32_t r, double truth, double tp) const {
  const uint32_t at = node_[r].slot;
  const Slot& s = slots_[at];
  if (s.indexed) return group_index_.find({at, truth, tp});
  for (size_t i = 0; i < s.groups.size(); ++i) {
    const Group& g = s.groups[i];
    if (g.cells != 0 && g.truth == truth && g.tp == tp) return uint32_t(i);
  }
  return FlatIndex<GroupKey>::kMissing;
}

void CurvePass::list_group(uint32_t r, const Group& g) {
  const uint32_t at = node_[r].slot;
  Slot& s = slots_[at];
  s.groups.push_back(g);
  if (s.indexed) {
    group_index_.insert({at, g.truth, g.tp}, uint32_t(s.groups.size() - 1));
  } else if (s.groups.size() > kScanned) {
    s.indexed = true;
    for (size_t i = 0; i < s.groups.size(); ++i)
      if (s.groups[i].cells != 0)
        group_index_.insert({at, s.groups[i].truth, s.groups[i].tp}, uint32_t(i));
  }
}

void CurvePass::add_to_group(uint32_t r, const Group& d) {
  if (pending_ != nullptr) add_values(d, node_[r].x, pending_);
  const uint32_t at = find_group(r, d.truth, d.tp);
  if (at == FlatIndex<GroupKey>::kMissing) {
    list_group(r, d);
    return;
  }
  Slot& s = slots_[node_[r].slot];
  Group& g = s.groups[at];
  g.design += d.design, g.design_sq += d.design_sq, g.cells += d.cells;
  if (g.cells == 0) {
    if (s.indexed) group_index_.erase({node_[r].slot, d.truth, d.tp});
    g = Group{d.truth, d.tp, 0, 0, 0};  // emptied, still listed
    ++s.emptied;
  }
}

void CurvePass::move_group(const Group& mine, uint32_t from, uint32_t into) {
  if (mine.cells == 0) return;
  if (pending_ != nullptr) add_values(mine, node_[into].x, pending_);
  const uint32_t from_slot = node_[from].slot;
  if (slots_[from_slot].indexed) group_index_.erase({from_slot, mine.truth, mine.tp});
  const uint32_t at = find_group(into, mine.truth, mine.tp);
  if (at == FlatIndex<GroupKey>::kMissing) {
    list_group(into, mine);
    return;
  }
  Group& theirs = slots_[node_[into].slot].groups[at];
  theirs.design += mine.design, theirs.design_sq += mine.design_sq, theirs.cells += mine.cells;
}

void CurvePass::drop_emptied(uint32_t r) {
  const uint32_t at = node_[r].slot;
  Slot& s = slots_[at];
  size_t kept = 0;
  for (size_t i = 0; i < s.groups.size(); ++i) {
    if (s.groups[i].cells == 0) continue;
    if (s.indexed && kept != i)
      group_index_.assign({at, s.groups[i].truth, s.groups[i].tp}, uint32_t(kept));
    s.groups[kept++] = s.groups[i];
  }
  s.groups.resize(kept);
  s.emptied = 0;
}

void CurvePass::move_cells(uint32_t from, uint32_t into) {
  slot(into);
  const uint32_t from_slot = node_[from].slot, into_slot = node_[into].slot;
  uint32_t moving = from;  // a single item's cell is its node's, not in the index
  const bool indexed = from_slot != kNone;
  if (indexed) {
    // Only `into`'s slot grows here: `from`'s groups stay where they are while they move.
    const Slot& small = slots_[from_slot];
    moving = small.cells.head;
    for (const Group& g : small.groups) move_group(g, from, into);
  } else {
    add_to_group(into, single_group(from));
  }
  for (uint32_t k = moving, next; k != kNone; k = next) {
    next = cells_[k].next;
    Cell& mine = cells_[k];
    if (indexed) cell_index_.erase({from_slot, mine.truth});
    const uint32_t at = cell_index_.find({into_slot, mine.truth});
    if (at == FlatIndex<CellKey>::kMissing) {
      cell_index_.insert({into_slot, mine.truth}, k);
      append_cell(&slots_[into_slot].cells, k);
      continue;
    }
    // The two cells become one: their groups lose them, the sum's group gains it.
    Cell& theirs = cells_[at];
    const double e = design(mine.truth), r = row_weight_[mine.truth];
    add_to_group(into, {r, theirs.weight, -e, -e * theirs.sq, -1});
    add_to_group(into, {r, mine.weight, -e, -e * mine.sq, -1});
    theirs.weight += mine.weight, theirs.sq += mine.sq;
    paired_cells_ -= (theirs.items >= 2) + (mine.items >= 2);
    theirs.items += mine.items;
    ++paired_cells_;
    add_to_group(into, {r, theirs.weight, e, e * theirs.sq, 1});
  }
  // Emptied groups leave the list once they are most of it.
  const Slot& big = slots_[into_slot];
  if (2 * big.emptied > big.groups.size()) drop_emptied(into);
}

void CurvePass::merge(uint32_t root, uint32_t other) {
  ++merges_;
  const auto size = [&](uint32_t r) {
    const uint32_t at = node_[r].slot;
    return at != kNone ? size_t(slots_[at].cells.size) : size_t(in_t(r));
  };
  uint32_t ra = root, rb = other;
  if (size(ra) < size(rb)) std::swap(ra, rb);  // the smaller one moves
  const Sums before = subtract(ra);
  subtract(rb);
  Node &big = node_[ra], &small = node_[rb];
  big.x += small.x;
  paired_components_ -= (big.scope_items >= 2) + (small.scope_items >= 2);
  big.scope_items += small.scope_items;
  paired_components_ += big.scope_items >= 2;
  // A cluster of many groups is not recomputed: what changed is added at its new weight,
  // and its other groups keep their values at the weight last settled (stale: bounds).
  const bool bound = big.slot != kNone && slots_[big.slot].groups.size() > kExactGroups;
  Sums change{};
  pending_ = bound ? &change : nullptr;
  if (has_t(rb)) move_cells(rb, ra);
  pending_ = nullptr;
  free_slot(rb);
  if (has_t(ra)) {
    Slot& s = slot(ra);
    if (bound) {
      for (size_t k = 0; k < kSums; ++k) s.sums[k] = before[k] + change[k];
      if (!s.stale) ++stale_count_, stale_.push_back(big.slot);
      s.stale = true;
    } else {
      s.sums = sums_of(ra);
    }
    for (size_t k = 0; k < kSums; ++k) totals_[k].add(s.sums[k]);
  }
  if (ra != root) hand_over(ra, root);
}

void CurvePass::hand_over(uint32_t from, uint32_t to) {
  Node &f = node_[from], &t = node_[to];
  t.slot = f.slot, t.x = f.x, t.scope_items = f.scope_items;
  if (f.slot != kNone) slots_[f.slot].root = to;
  f.slot = kNone;
}

void CurvePass::settle() {
  // A slot freed since it was listed is not stale; one made again may be listed twice.
  for (uint32_t at : stale_) {
    Slot& s = slots_[at];
    if (!s.stale) continue;
    for (size_t k = 0; k < kSums; ++k) totals_[k].add(-s.sums[k]);
    s.sums = sums_of(s.root);
    for (size_t k = 0; k < kSums; ++k) totals_[k].add(s.sums[k]);
    s.stale = false;
  }
  stale_.clear();
  stale_count_ = 0;
}

Row CurvePass::row(double threshold) const {
  Row r{threshold, uint64_t(nodes()) - merges_, {}};
  for (size_t k = 0; k < kSums; ++k) r.sums[k] = totals_[k].value();
  if (paired_cells_ == 0) r.sums[kMeans] = 0;
  if (paired_components_ == 0) r.sums[kMeans + 1] = 0;
  if (!paired_truth_) r.sums[kMeans + 2] = 0;
  return r;
}

double CurvePass::best_value(const Sums& s, size_t which) const {
  using Column = detail::PointwiseColumn;
  const double w = mean_weight_.value();
  if (which == 0) return s[Column::kF1] / w;
  if (which == 1) return f1_of_means(s[Column::kPrecision] / w, s[Column::kRecall] / w);
  return pair_metrics(s[kMeans], s[kMeans + 1], s[kMeans + 2]).f1;
}

GroupTable CurvePass::table(const std::vector<Row>& rows) const {
  GroupTable t;
  const CellTable& cells = c_.cells();
  const double w = mean_weight_.value();
  PairSumColumns pairs;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    t.group.push_back(i);
    t.items.push_back(cells.total_count);
    t.weight.push_back(cells.total_weight);
    pairs.together.push_back(rows[i].sums[kMeans]);
    pairs.actual.push_back(rows[i].sums[kMeans + 1]);
    pairs.truth.push_back(rows[i].sums[kMeans + 2]);
  }
  for (size_t k = 0; k < kMeans; ++k) {
    t.names.push_back(detail::kPointwiseNames[k]);
    BigVector<double> v(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) v[i] = rows[i].sums[k] / w;
    t.columns.push_back(std::move(v));
  }
  add_pointwise_derived(&t);
  add_pair_metrics(&t, pairs);
  return t;
}

}  // namespace clusterscore::curves_detail
