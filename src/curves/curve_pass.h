// The descending pass behind a curve (threshold_curve.cpp): the union–find's merges
// (merges_of()) taken in order, each component's cells and groups moved small into large,
// and the running sums of every overall metric, a component's part recomputed once per
// threshold it changed by.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "comparison/comparison.h"
#include "curves/cell_index.h"
#include "curves/groups.h"
#include "detail/big_vector.h"
#include "detail/kahan.h"
#include "detail/prefetch.h"
#include "metrics/pointwise_row.h"

namespace clusterscore::curves_detail {

// The sums a curve row is read from: Σ d·w·m for each pointwise metric m, then the pair
// metrics' three sums (levels/pair_terms.h), d the truth cluster's design weight.
constexpr size_t kMeans = detail::kPointwiseMetrics;
constexpr size_t kSums = kMeans + 3;
using Sums = std::array<double, kSums>;

// A truth cluster's items in one component; `next` links a component's cells.
struct Cell {
  uint32_t truth, items;
  double weight, sq;
  uint32_t next;
};

// What a merge reads of a node while it is a root, in one record (half a cache line): the
// pass is bound by misses at random nodes, not by arithmetic.
struct alignas(32) Node {
  uint32_t slot;         // its slot while a root of several items with some in T, else kNone
  uint32_t truth;        // its truth cluster, kNone outside T
  uint32_t scope_items;  // the items of its component that count in x
  double x;              // its component's weight in scope
  double weight;         // its own weight
};

// A component's cells, linked through Cell::next, in the order they joined it.
struct List {
  uint32_t head = kNone, tail = kNone, size = 0;
};

// A component of several items, some of them in T.
struct Slot {
  // Its groups, emptied ones among them (no cells), in the order they joined it: side by
  // side, as a merge scans a small cluster's and a settle reads every one of a large
  // cluster's (groups kept elsewhere cost a miss each).
  std::vector<Group> groups;
  List cells;             // its cells (CurvePass::cells_)
  uint32_t emptied = 0;   // groups listed that hold no cell any more
  bool indexed = false;   // its groups are found by CurvePass::group_index_
  bool stale = false;     // sums are bounds (CurvePass::merge), not its values
  uint32_t root = kNone;  // the component's root node
  Sums sums{};            // what it adds to the totals
};

// What a curve keeps of one threshold.
struct Row {
  double threshold;
  uint64_t clusters;
  Sums sums;
};

class CurvePass {
 public:
  explicit CurvePass(const Comparison& c);

  // Joins the component of root `other` to that of root `root`, which stays its root (a
  // Merge's two roots). The component keeps the slot of whichever held more cells, and the
  // other's cells move there: each cell moves O(log n) times.
  void merge(uint32_t root, uint32_t other);
  // What merge(root, other) reads, fetched ahead of it in two steps (the pass is bound by
  // misses at random nodes): far ahead, the roots' records; nearer, once those are in
  // cache, their slots.
  void prefetch_far(uint32_t root, uint32_t other) const {
    detail::prefetch(&node_[root]), detail::prefetch(&node_[other]);
  }
  void prefetch_near(uint32_t root, uint32_t other) const {
    for (const uint32_t r : {root, other}) {
      const uint32_t at = node_[r].slot;
      if (at != kNone) detail::prefetch(&slots_[at]), detail::prefetch(&slots_[at].sums);
    }
  }
  // Whether the totals hold bounds of some clusters' sums (stale), not their values: the
  // sums of f1 and precision too high, the pair sums' `actual` too low (a cluster's part
  // of the first two falls as its weight grows, of `actual` rises), those of recall and
  // the pair sums `together` and `truth` exact (they do not depend on the weight). Then
  // best_value() of row()'s sums bounds each best metric from above.
  bool bounded() const { return stale_count_ > 0; }
  // Recomputes the stale clusters' sums: the totals exact.
  void settle();
  Row row(double threshold) const;
  uint64_t merges() const { return merges_; }
  size_t nodes() const { return node_.size(); }
  // The value of one of kCurveBest from a row's sums (NaN where undefined).
  double best_value(const Sums& s, size_t which) const;
  GroupTable table(const std::vector<Row>& rows) const;

 private:
  bool in_t(uint32_t node) const { return node_[node].truth != kNone; }
  double design(uint32_t truth) const { return design_.empty() ? 1.0 : design_[truth]; }
  // A single item's group; its cell is cells_[node] while it is alone.
  Group single_group(uint32_t node) const {
    const uint32_t a = node_[node].truth;
    return {row_weight_[a], node_[node].weight, design(a), design(a) * cells_[node].sq, 1};
  }
  // What the component of root r adds to the totals now.
  Sums sums_of(uint32_t r) const;
  // Adds group g's values, in a cluster of weight x, to *s (linear in the group's design
  // sums: a group with negative ones takes its cells' values away).
  void add_values(const Group& g, double x, Sums* s) const;
  // The slot of root r (made for a single item on first use); r must hold items of T.
  Slot& slot(uint32_t r);
  bool has_t(uint32_t r) const { return node_[r].slot != kNone || in_t(r); }
  Sums subtract(uint32_t r);  // takes root r's sums from the totals, and returns them
  // Moves the cells and groups of `from` into `into` (both roots holding items of T).
  void move_cells(uint32_t from, uint32_t into);
  // Adds `d` (a count of -1 removes a cell) to root r's group of d's key, which it makes
  // or, emptied, takes out of the index.
  void add_to_group(uint32_t r, const Group& d);
  // Moves group `mine` of `from` to `into`, or into its group of the same key.
  void move_group(const Group& mine, uint32_t from, uint32_t into);
  // Where root r's group of (truth, tp) is in its slot's groups, or kMissing: a few groups
  // are scanned (in cache), more are found by the index (a scan of a large cluster's
  // groups cost their number per merge).
  uint32_t find_group(uint32_t r, double truth, double tp) const;
  void list_group(uint32_t r, const Group& g);  // adds g to r's groups (and the index)
  void drop_emptied(uint32_t r);                // takes the emptied groups out of r's list
  // Appends cell k to `list`.
  void append_cell(List* list, uint32_t k) {
    cells_[k].next = kNone;
    if (list->size++ == 0) {
      list->head = k;
    } else {
      cells_[list->tail].next = k;
    }
    list->tail = k;
  }
  static constexpr size_t kScanned = 16;
  // Beyond this many groups a merged cluster's sums are bounded, not recomputed.
  static constexpr size_t kExactGroups = 64;
  void free_slot(uint32_t r);
  // Makes `to` the root of `from`'s component: its slot and what a root holds move there.
  void hand_over(uint32_t from, uint32_t to);

  const Comparison& c_;
  double total_ = 0, scale_ = 1;
  std::span<const double> design_, row_weight_;
  BigVector<Node> node_;
  // A pair sum is exactly 0 in `evaluate` where no cell (component, truth cluster) holds two
  // items, w·w − w² for each: these counts say so, where the sums' roundings would not.
  uint64_t paired_cells_ = 0, paired_components_ = 0;
  bool paired_truth_ = false;
  // The slots, reused (with their lists' room) as components come and go.
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  BigVector<Cell> cells_;  // per node: its cell while alone; merged cells unused
  // (slot, truth cluster) → its cell, for components with a slot: a single item's cell is
  // its node's (cells_), indexed when the item's slot is made, so the index grows with the
  // components rather than being filled with every item first.
  FlatIndex<CellKey> cell_index_;
  FlatIndex<GroupKey> group_index_;  // (slot, truth weight, cell weight) → its place
  std::array<detail::KahanSum, kSums> totals_;
  detail::KahanSum mean_weight_;
  std::vector<uint32_t> stale_;  // slots made stale since the last settle()
  size_t stale_count_ = 0;       // of them, those still stale
  Sums* pending_ = nullptr;      // where a bounded merge adds the groups' changes
  uint64_t merges_ = 0;
};

}  // namespace clusterscore::curves_detail
