#include "curves/threshold_curve.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "curves/cell_index.h"
#include "curves/sorted_links.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "metrics/pair_terms.h"
#include "metrics/pointwise_row.h"

namespace clusterscore {
namespace {

using curves_detail::Components;
using curves_detail::Link;
using detail::KahanSum;

// The sums a curve row is read from: Σ d·w·m for each pointwise metric m, then the pair
// metrics' three sums (metrics/pair_terms.h), d the truth cluster's design weight.
constexpr size_t kMeans = detail::kPointwiseMetrics;
constexpr size_t kSums = kMeans + 3;
using Sums = std::array<double, kSums>;
constexpr size_t kNoStep = size_t(-1);

// The cells of one cluster that have the same truth weight and the same cell weight: the
// per-cell kernel gives them the same values, so a merge recomputes the cluster's groups,
// not its cells (with unit weights, a few per distinct truth size however large it grows).
struct Group {
  double truth, tp;  // the key
  double design;     // Σ of the cells' design weights
  double design_sq;  // Σ design weight × the cell's Σw²
  int64_t cells;
};
bool key_less(const Group& a, const Group& b) {
  return a.truth < b.truth || (a.truth == b.truth && a.tp < b.tp);
}
bool same_key(const Group& a, const Group& b) { return a.truth == b.truth && a.tp == b.tp; }

// Adds the groups `delta` (any order, keys repeated, counts negative for cells removed) to
// the sorted groups `to`, dropping those left empty. A key's entries are summed whole
// before its count is read: a removal may come before the entry it cancels. Cost
// O(|delta| log |delta|) and, where delta is small beside `to`, O(|delta| log |to|) plus
// the moves of groups made or emptied; else one pass over both.
void add_groups(std::vector<Group>* to, std::vector<Group> delta) {
  std::sort(delta.begin(), delta.end(), key_less);
  size_t kept = 0;
  for (size_t i = 0; i < delta.size(); ++i) {
    if (kept > 0 && same_key(delta[kept - 1], delta[i])) {
      Group& o = delta[kept - 1];
      o.design += delta[i].design, o.design_sq += delta[i].design_sq, o.cells += delta[i].cells;
    } else {
      delta[kept++] = delta[i];
    }
  }
  delta.resize(kept);
  const auto add = [](Group* g, const Group& d) {
    g->design += d.design, g->design_sq += d.design_sq, g->cells += d.cells;
  };
  if (8 * delta.size() < to->size()) {
    for (const Group& d : delta) {
      auto at = std::lower_bound(to->begin(), to->end(), d, key_less);
      if (at != to->end() && same_key(*at, d)) {
        add(&*at, d);
        if (at->cells == 0) to->erase(at);
      } else if (d.cells != 0) {
        to->insert(at, d);
      }
    }
    return;
  }
  std::vector<Group> out;
  out.reserve(to->size() + delta.size());
  size_t i = 0, k = 0;
  while (i < to->size() || k < delta.size()) {
    if (k == delta.size() || (i < to->size() && key_less((*to)[i], delta[k]))) {
      out.push_back((*to)[i++]);
    } else if (i == to->size() || key_less(delta[k], (*to)[i])) {
      if (delta[k].cells != 0) out.push_back(delta[k]);
      ++k;
    } else {
      out.push_back((*to)[i++]);
      add(&out.back(), delta[k++]);
      if (out.back().cells == 0) out.pop_back();
    }
  }
  *to = std::move(out);
}

// A truth cluster's items in one component.
struct Cell {
  uint32_t truth, items;
  double weight, sq;
};

// A component of several items, some of them in T.
struct Slot {
  std::vector<Group> groups;    // sorted by key
  std::vector<uint32_t> cells;  // its cells (CurvePass::cells_)
  Sums sums{};                  // what it adds to the totals (unless dirty)
  bool dirty = false;           // merged since its sums were added
};

// What a curve keeps of one threshold.
struct Row {
  double threshold;
  uint64_t clusters, merges;
  Sums sums;
};

class CurvePass {
 public:
  explicit CurvePass(const Comparison& c);

  void link(uint32_t a, uint32_t b);
  // Adds the sums of the components merged since the last call.
  void settle();
  Row row(double threshold) const;
  uint64_t merges() const { return merges_; }
  size_t nodes() const { return truth_of_.size(); }
  // The value of one of kCurveBest from a row's sums (NaN where undefined).
  double best_value(const Sums& s, size_t which) const;
  GroupTable table(const std::vector<Row>& rows) const;

 private:
  bool in_t(uint32_t node) const { return truth_of_[node] != kNone; }
  double design(uint32_t truth) const { return design_.empty() ? 1.0 : design_[truth]; }
  Group single_group(uint32_t node) const {
    const uint32_t a = truth_of_[node];
    return {row_weight_[a], weight_[node], design(a), design(a) * sq_[node], 1};
  }
  // What the component of root r adds to the totals now.
  Sums sums_of(uint32_t r) const;
  // The slot of root r (made for a single item on first use); r must hold items of T.
  Slot& slot(uint32_t r);
  bool has_t(uint32_t r) const { return slot_of_[r] != kNone || in_t(r); }
  void subtract(uint32_t r);
  // Moves the cells and groups of `from` into `into` (both roots holding items of T).
  void move_cells(uint32_t from, uint32_t into);
  void free_slot(uint32_t r);

  const Comparison& c_;
  double total_ = 0, scale_ = 1;
  std::span<const double> design_, row_weight_;
  std::vector<uint32_t> truth_of_;  // per node: its truth cluster, kNone outside T
  std::vector<double> weight_, sq_, x_;
  std::vector<uint32_t> scope_items_;  // per root: its items that count in x_
  // A pair sum is exactly 0 in `evaluate` where no cell (component, truth cluster) holds two
  // items, w·w − w² for each: these counts say so, where the sums' roundings would not.
  uint64_t paired_cells_ = 0, paired_components_ = 0;
  bool paired_truth_ = false;
  std::vector<uint32_t> slot_of_;  // per node: its slot while a root of several items
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::vector<Cell> cells_;             // one per item of T to start with
  std::vector<uint32_t> cell_of_node_;  // per node in T: its cell while alone
  curves_detail::CellIndex index_;      // (root, truth cluster) → its cell
  Components uf_;
  std::array<KahanSum, kSums> totals_;
  KahanSum mean_weight_;
  std::vector<uint32_t> dirty_;
  uint64_t merges_ = 0;
};

CurvePass::CurvePass(const Comparison& c)
    : c_(c), index_(c.cells().total_count), uf_(c.joined().n_b_clusters()) {
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
  truth_of_.assign(n, kNone);
  weight_.assign(n, 0.0);
  sq_.assign(n, 0.0);
  x_.assign(m.col_weight.begin(), m.col_weight.end());
  slot_of_.assign(n, kNone);
  scope_items_.assign(n, 0);
  for (uint64_t items : c.cells().row_count) paired_truth_ = paired_truth_ || items >= 2;
  cell_of_node_.assign(n, kNone);
  for (size_t i = 0; i < j.n_items(); ++i) {
    const uint32_t node = j.b_cluster[i];
    if (node == kNone) continue;
    weight_[node] = j.weight[i], sq_[node] = j.weight_sq_of(i);
    scope_items_[node] = c.scope() == TruthScope::kEntities || j.a_cluster[i] != kNone;
    truth_of_[node] = j.a_cluster[i];
  }
  for (uint32_t node = 0; node < n; ++node) {
    if (!in_t(node)) continue;
    const uint32_t a = truth_of_[node];
    cell_of_node_[node] = uint32_t(cells_.size());
    index_.insert(node, a, cell_of_node_[node]);
    cells_.push_back({a, 1, weight_[node], sq_[node]});
    const Sums s = sums_of(node);
    for (size_t k = 0; k < kSums; ++k) totals_[k].add(s[k]);
    mean_weight_.add(design(a) * weight_[node]);
  }
}

Sums CurvePass::sums_of(uint32_t r) const {
  Sums s{};
  const auto add = [&](const Group& g) {
    double m[kMeans];
    detail::pointwise_row({g.tp, g.truth, x_[r], g.truth - g.tp, x_[r] - g.tp}, total_, m);
    const double w = g.tp * g.design;
    for (size_t k = 0; k < kMeans; ++k) s[k] += w * m[k];
    const detail::PairTerms t = detail::cell_pair_terms(w * scale_, g.design_sq * scale_ * scale_,
                                                        g.tp, x_[r], g.truth, scale_);
    s[kMeans] += t.together, s[kMeans + 1] += t.actual, s[kMeans + 2] += t.truth;
  };
  if (slot_of_[r] != kNone) {
    for (const Group& g : slots_[slot_of_[r]].groups) add(g);
  } else if (in_t(r)) {
    add(single_group(r));
  }
  return s;
}

Slot& CurvePass::slot(uint32_t r) {
  if (slot_of_[r] == kNone) {
    if (free_.empty()) {
      slot_of_[r] = uint32_t(slots_.size());
      slots_.emplace_back();
    } else {
      slot_of_[r] = free_.back();
      free_.pop_back();
    }
    Slot& s = slots_[slot_of_[r]];
    s.groups = {single_group(r)};
    s.cells = {cell_of_node_[r]};
  }
  return slots_[slot_of_[r]];
}

void CurvePass::free_slot(uint32_t r) {
  if (slot_of_[r] == kNone) return;
  Slot& s = slots_[slot_of_[r]];
  s = Slot{};
  free_.push_back(slot_of_[r]);
  slot_of_[r] = kNone;
}

void CurvePass::subtract(uint32_t r) {
  if (!has_t(r) || (slot_of_[r] != kNone && slots_[slot_of_[r]].dirty)) return;
  const Sums s = sums_of(r);
  for (size_t k = 0; k < kSums; ++k) totals_[k].add(-s[k]);
}

void CurvePass::move_cells(uint32_t from, uint32_t into) {
  Slot& big = slot(into);
  std::vector<Group> delta;
  std::vector<uint32_t> moving;
  if (slot_of_[from] != kNone) {
    delta = std::move(slots_[slot_of_[from]].groups);
    moving = std::move(slots_[slot_of_[from]].cells);
  } else {
    delta = {single_group(from)};
    moving = {cell_of_node_[from]};
  }
  for (uint32_t k : moving) {
    Cell& mine = cells_[k];
    index_.erase(from, mine.truth);
    const uint32_t at = index_.find(into, mine.truth);
    if (at == curves_detail::CellIndex::kMissing) {
      index_.insert(into, mine.truth, k);
      big.cells.push_back(k);
      continue;
    }
    // The two cells become one: their groups lose them, the sum's group gains it.
    Cell& theirs = cells_[at];
    const double e = design(mine.truth), r = row_weight_[mine.truth];
    delta.push_back({r, theirs.weight, -e, -e * theirs.sq, -1});
    delta.push_back({r, mine.weight, -e, -e * mine.sq, -1});
    theirs.weight += mine.weight, theirs.sq += mine.sq;
    paired_cells_ -= (theirs.items >= 2) + (mine.items >= 2);
    theirs.items += mine.items;
    ++paired_cells_;
    delta.push_back({r, theirs.weight, e, e * theirs.sq, 1});
  }
  add_groups(&big.groups, std::move(delta));
}

void CurvePass::link(uint32_t a, uint32_t b) {
  uint32_t ra = uf_.find(a), rb = uf_.find(b);
  if (ra == rb) return;
  ++merges_;
  subtract(ra);
  subtract(rb);
  const auto size = [&](uint32_t r) {
    return slot_of_[r] != kNone ? slots_[slot_of_[r]].cells.size() : size_t(in_t(r));
  };
  if (size(ra) < size(rb)) std::swap(ra, rb);  // the smaller one moves
  uf_.join_under(ra, rb);
  x_[ra] += x_[rb];
  paired_components_ -= (scope_items_[ra] >= 2) + (scope_items_[rb] >= 2);
  scope_items_[ra] += scope_items_[rb];
  paired_components_ += scope_items_[ra] >= 2;
  if (has_t(rb)) move_cells(rb, ra);
  free_slot(rb);
  if (!has_t(ra)) return;
  Slot& s = slot(ra);
  if (!s.dirty) dirty_.push_back(ra);
  s.dirty = true;
}

void CurvePass::settle() {
  for (uint32_t r : dirty_) {
    if (slot_of_[r] == kNone || !slots_[slot_of_[r]].dirty) continue;
    slots_[slot_of_[r]].dirty = false;
    const Sums s = sums_of(r);
    slots_[slot_of_[r]].sums = s;
    for (size_t k = 0; k < kSums; ++k) totals_[k].add(s[k]);
  }
  dirty_.clear();
}

Row CurvePass::row(double threshold) const {
  Row r{threshold, uint64_t(nodes()) - merges_, merges_, {}};
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
  PairSums pairs;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    t.group.push_back(i);
    t.items.push_back(cells.total_count);
    t.weight.push_back(cells.total_weight);
    pairs.together.push_back(rows[i].sums[kMeans]);
    pairs.actual.push_back(rows[i].sums[kMeans + 1]);
    pairs.truth.push_back(rows[i].sums[kMeans + 2]);
    pairs.weight.push_back(cells.total_weight);
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

// Which steps of a curve over every distinct score are kept: all of them up to
// max_points, else the first, the last, and the first step at or past each of evenly
// spaced counts of merges (places for the best rows left).
class Spacing {
 public:
  Spacing(uint64_t steps, uint64_t merges, size_t max_points)
      : all_(steps <= max_points),
        merges_(merges),
        marks_(max_points - 2 - std::size(kCurveBest)) {}
  bool keep(uint64_t step, uint64_t last_step, uint64_t merges) {
    if (all_ || step == 0 || step == last_step) return true;
    // Mark k (1 ≤ k ≤ marks) sits at merges·k / (marks + 1).
    const uint64_t reached =
        merges_ == 0 ? 0 : uint64_t((unsigned __int128)merges * (marks_ + 1) / merges_);
    if (reached <= next_) return false;
    next_ = reached;
    return reached <= marks_;
  }

 private:
  bool all_;
  uint64_t merges_, marks_, next_ = 0;
};

uint64_t count_merges(size_t nodes, const std::vector<Link>& links) {
  Components uf(nodes);
  uint64_t merges = 0;
  for (const Link& l : links) {
    const uint32_t a = uf.find(l.lo), b = uf.find(l.hi);
    if (a != b) uf.join_under(a, b), ++merges;
  }
  return merges;
}

uint64_t count_steps(const std::vector<Link>& links) {
  uint64_t steps = 0;
  for (size_t i = 0; i < links.size(); ++i) steps += i == 0 || links[i].score != links[i - 1].score;
  return steps;
}

}  // namespace

CurveTable threshold_curve(const Comparison& c, const ScoredPairs& pairs, const CurveOptions& o) {
  const std::vector<uint32_t> node = curves_detail::node_of_rows(c.joined());
  curves_detail::check_pairs(node.size(), pairs);
  for (double t : o.thresholds)
    if (std::isnan(t))
      throw std::invalid_argument("clusterscore: a threshold that is not a number");
  if (o.thresholds.empty() && o.max_points < 2 + std::size(kCurveBest) + 1)
    throw std::invalid_argument("clusterscore: max_points must be at least 6");
  const std::vector<Link> links = curves_detail::sorted_links(pairs, node);
  CurvePass pass(c);
  CurveTable out;
  out.pairs = links.size();
  out.distinct_scores = count_steps(links);
  // Kept rows and each metric's best row so far, with their step (rows go in step order).
  std::vector<std::pair<size_t, Row>> rows, best(std::size(kCurveBest), {kNoStep, Row{}});
  std::vector<double> best_value(std::size(kCurveBest), -std::numeric_limits<double>::infinity());
  size_t step = 0;
  // Settles the pass at threshold t, its step-th row: kept if `keep`, and where it is best.
  const auto at = [&](double t, bool keep) {
    pass.settle();
    const Row r = pass.row(t);
    for (size_t b = 0; b < best.size(); ++b) {
      const double v = pass.best_value(r.sums, b);
      if (v > best_value[b]) best_value[b] = v, best[b] = {step, r};
    }
    if (keep) rows.push_back({step, r});
    ++step;
    detail::poll_interrupt();
  };
  if (o.thresholds.empty()) {
    Spacing spacing(out.distinct_scores, count_merges(pass.nodes(), links), o.max_points);
    for (size_t i = 0; i < links.size(); ++i) {
      pass.link(links[i].lo, links[i].hi);
      if (i + 1 == links.size() || links[i + 1].score != links[i].score)
        at(links[i].score, spacing.keep(step, out.distinct_scores - 1, pass.merges()));
    }
  } else {
    std::vector<double> ts = o.thresholds;
    std::sort(ts.begin(), ts.end(), std::greater<>());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    size_t i = 0;
    for (double t : ts) {
      for (; i < links.size() && links[i].score >= t; ++i) pass.link(links[i].lo, links[i].hi);
      at(t, true);
    }
  }
  for (const auto& b : best)
    if (b.first != kNoStep) rows.push_back(b);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const auto& x, const auto& y) { return x.first == y.first; }),
             rows.end());
  std::vector<Row> kept;
  for (const auto& [s, r] : rows) {
    kept.push_back(r);
    out.threshold.push_back(r.threshold);
    out.clusters.push_back(r.clusters);
    out.merges.push_back(r.merges);
  }
  for (const auto& b : best) {
    const auto at_row =
        std::find_if(rows.begin(), rows.end(), [&](const auto& x) { return x.first == b.first; });
    out.best.push_back(b.first == kNoStep ? kNone : uint32_t(at_row - rows.begin()));
  }
  out.metrics = pass.table(kept);
  return out;
}

std::vector<uint32_t> components_at(size_t rows, const ScoredPairs& pairs, double t) {
  curves_detail::check_pairs(rows, pairs);
  if (std::isnan(t)) throw std::invalid_argument("clusterscore: a threshold that is not a number");
  Components uf(rows);
  for (size_t r = 0; r < pairs.size(); ++r) {
    if (!(pairs.score[r] >= t)) continue;
    const uint32_t a = uf.find(pairs.left[r]), b = uf.find(pairs.right[r]);
    // The smaller row as the root: each component is named by its smallest row.
    if (a != b) uf.join_under(std::min(a, b), std::max(a, b));
  }
  std::vector<uint32_t> label(rows);
  for (uint32_t r = 0; r < rows; ++r) label[r] = uf.find(r);
  return label;
}

}  // namespace clusterscore
