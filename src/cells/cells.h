// The weighted cell table: the sufficient statistic of every metric.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "detail/big_vector.h"
#include "input/clustering.h"

namespace clusterscore {

// One cell per (A cluster, B cluster) pair that shares at least one common item
// (an item of T = A ∩ B), with its item count, Σw and Σw² (if asked for: only the
// weighted pair-counting metrics need it); and the marginals of the clusters restricted
// to T. Clusters that do not meet T have zero marginals.
struct CellTable {
  size_t n_rows = 0, n_cols = 0;  // number of A clusters, B clusters (all of them)
  BigVector<uint32_t> row, col;
  BigVector<uint64_t> count;
  BigVector<double> weight;
  BigVector<double> weight_sq;  // empty unless asked for (build_cells' `squares`)
  // Big vectors, like every array with one entry per cluster: from the block cache.
  BigVector<uint64_t> row_count, col_count;  // per cluster, over T
  BigVector<double> row_weight, col_weight;  // per cluster, over T
  BigVector<uint32_t> row_cells, col_cells;  // number of cells in each row / column
  uint64_t total_count = 0;
  double total_weight = 0.0;

  size_t size() const { return row.size(); }
};

// Whether cells sum their items' squared weights (weight_sq): only the weighted pair
// metrics need them, at one compensated sum more per item.
enum class WeightSquares { kSkip, kSum };

// Builds the cells of the common items, numbered row by row (A cluster order) and within
// a row in order of first appearance in item order (units, JoinedClusterings::units(): in
// order of first appearance). `cell_of_item` (if not null) receives each item's cell,
// kNone outside T. All sums are compensated. O(items) expected time.
CellTable build_cells(const JoinedClusterings& j, BigVector<uint32_t>* cell_of_item,
                      WeightSquares squares = WeightSquares::kSum);

// The same from per-item cluster indices (kNone skips the item) and weights (all 1 if
// null): `rows` in [0, n_rows), `cols` in [0, n_cols).
CellTable build_cells(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                      const double* weights, size_t n_rows, size_t n_cols,
                      BigVector<uint32_t>* cell_of_item,
                      WeightSquares squares = WeightSquares::kSum);

// Cells from explicit (row, col, count, weight, weight_sq) lists, e.g. partial tables
// computed elsewhere; repeated (row, col) pairs are added up. Marginals are derived.
CellTable cells_from_lists(size_t n_rows, size_t n_cols, const std::vector<uint32_t>& row,
                           const std::vector<uint32_t>& col, const std::vector<uint64_t>& count,
                           const std::vector<double>& weight, const std::vector<double>& weight_sq);

}  // namespace clusterscore
