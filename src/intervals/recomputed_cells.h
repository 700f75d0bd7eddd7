// The bootstrap's engine for the common scope (bootstrap.h, CellSums): each resample's
// estimates recomputed from the cells of the truth clusters drawn.
//
// Only a cell whose actual cluster (over T) holds items of another truth cluster changes
// with the draws: its fp is the drawn copies of those. Every other cell's values are fixed
// and count as often as its truth cluster is drawn, so they are summed once per (truth
// cluster, group), and a truth cluster that is one whole actual cluster (most of them) is
// two numbers there: its weight and its pair term. A resample then costs the truth clusters
// and the shared actual clusters' cells, not every cell: at 1e7 items, 10% of them moved,
// 8% of the cells are recomputed. Accuracy's tn counts every drawn cluster's weight, so its
// sum is kept as Σw·(fp + fn) and made Σw − Σw·(fp + fn) / total at the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "intervals/bootstrap.h"
#include "intervals/group_sums.h"

namespace clusterscore::intervals_detail {

// One run's cells split by what a resample changes, truth clusters numbered by their place
// in the order resamples draw them (BootstrapOptions::cluster_rank). Every (cluster, group)
// list is in order of cluster, so a resample reads the clusters' multiplicities in order.
struct SplitCells {
  std::vector<double> row_weight;  // per truth cluster, over T
  // Truth clusters that are one whole actual cluster over T, an entry per group holding
  // their items, in order of place: the items' weight W and pair term Σw·(W − w), every
  // metric's value 1 (0 for the rates and distances). whole_slot is 4·group + the entry's
  // index among its group's mod 4: where a detail::LaneSum over the group's entries would
  // put it.
  std::vector<uint32_t> whole_row, whole_slot;
  std::vector<double> whole_weight, whole_pairs;
  // The other cells that are a whole actual cluster, summed per (truth cluster, group):
  // the weight and the sums that vary among them (recomputed_cells.cpp, kFixedSums per
  // entry).
  std::vector<uint32_t> fixed_row, fixed_group;
  std::vector<double> fixed_weight, fixed_sums;
  // Cells that share their actual cluster with another truth cluster, recomputed each
  // resample: actual cluster by actual cluster (j's cells from col_start[j]), each one's in
  // order of place; their entries in order of cell.
  std::vector<size_t> col_start;
  std::vector<double> cell_weight, cell_row_weight;  // per cell: tp, and its row's weight
  // The cells in order of their truth cluster's place (`place`, ascending): a resample
  // reads their draws in order of place, into the cells' order.
  std::vector<uint32_t> by_place, place;
  std::vector<size_t> entry_start;        // per cell, its first entry
  std::vector<uint32_t> group;            // per entry
  std::vector<double> weight, weight_sq;  // per entry: Σw, Σ(w·scale)²
};

class RecomputedCells {
 public:
  // The sums after the weight, as FixedSums holds them but for accuracy's (above).
  static constexpr size_t kSums = detail::kPointwiseMetrics + 3;

  // `rank`: BootstrapOptions::cluster_rank, checked.
  RecomputedCells(const std::vector<CellSums>& runs, const std::vector<uint32_t>& rank);
  // Its draws count as drawn: pairs of clusters need the jackknife's correction, which the
  // share of the population drawn then scales (detail::pair_corrected). The first run's,
  // as FixedSums' inclusion probabilities.
  double share(bool pairs) const { return pairs ? runs_[0].pair_share : runs_[0].sampled_share; }
  const Layout& layout() const { return layout_; }
  size_t groups() const { return runs_[0].n_groups; }
  size_t clusters() const { return runs_[0].n_clusters; }
  size_t runs() const { return runs_.size(); }
  std::vector<std::string> base_names() const;
  // Its estimates depend on pairs of truth clusters drawn together: its spread is brought
  // to the design's with the jackknife's (detail::pair_corrected).
  static constexpr bool kPairTerms = true;
  // Truth clusters as resamples number them: their place in the order of drawing. Every
  // cluster with common items, whether or not the grouping holds its items: its items are
  // false merges of others', so leaving it out is part of what the jackknife measures.
  template <class F>
  void for_each_cluster(F f) const {
    for (const CellSums& r : runs_)
      for (uint32_t row : r.row) f(place(row));
  }
  template <class F>
  void for_each_entry(size_t run, F f) const {
    const CellSums& r = runs_[run];
    for (size_t e = 0; e < r.size(); ++e) f(place(r.row[r.cell[e]]), r.group[e]);
  }

  // The estimates of each lane's draws (Draws) into out[0..d.lanes).
  void compute(const Draws& d, std::vector<double>* out) const;

 private:
  void add_run(size_t run, const Draws& d, GroupSums* sums) const;
  uint32_t place(uint32_t row) const { return rank_.empty() ? row : rank_[row]; }

  const std::vector<CellSums>& runs_;
  const std::vector<uint32_t>& rank_;
  std::vector<SplitCells> split_;
  Layout layout_;
};

}  // namespace clusterscore::intervals_detail
