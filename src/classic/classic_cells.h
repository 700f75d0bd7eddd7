// The classic metrics' pieces on a cell table (include/clusterscore/classic.h has the public
// entry): cells from labels, every metric from cells, and the parts tests check one by one.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cells/cells.h"
#include "clusterscore/classic.h"
#include "clusterscore/ids.h"
#include "detail/big_vector.h"
#include "detail/kahan.h"

namespace clusterscore {

// Cells of two labelings of the same n items given position by position (no join):
// item r has labels a[r], b[r] and weight weights[r] (1 if `weights` is null).
// Throws std::invalid_argument if the lengths differ. O(n) expected.
struct LabelCells {
  CellTable cells;
  BigVector<uint64_t> a_first, b_first;  // per row / column: first position of its label
};
LabelCells cells_from_labels(const IdColumn& a, const IdColumn& b, const double* weights);

// All metrics of docs/metrics.md, classic metrics from a cell table. O(cells) plus, when asked: the
// expected mutual information over distinct (row size, column size) pairs, and a maximum-weight
// matching per connected component of the cell graph.
ClassicScores classic_scores(const CellTable& cells, const ClassicOptions& options);

// Pieces, exposed for tests and callers that need one.
PairConfusion pair_confusion(const CellTable& cells);
WeightedPairConfusion weighted_pair_confusion(const CellTable& cells);
// Σ over the optimal one-to-one mapping of rows to columns of the matched cells' mass
// (counts, or weights if `weighted`).
double max_matching_mass(const CellTable& cells, bool weighted);
// scikit-learn's expected mutual information for the count marginals of `cells`, on
// every thread.
double expected_mutual_information(const CellTable& cells);

// The same in blocks that callers may run on their own threads, beside other work: run()
// each block of blocks() once (on any thread, blocks apart at once), then value(). The
// blocks are cut by the input alone and added in order: the same bits on any thread count.
class ExpectedMutualInfo {
 public:
  explicit ExpectedMutualInfo(const CellTable& cells);
  size_t blocks() const { return block_.size(); }
  void run(size_t block);
  double value() const;

 private:
  struct Tables;
  std::shared_ptr<const Tables> t_;  // none when the value is 0 without a sum
  bool exact_ = false;
  std::vector<detail::KahanSum> block_;
};

}  // namespace clusterscore
