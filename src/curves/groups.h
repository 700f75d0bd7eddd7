// The cells of one cluster grouped by what the per-cell kernel reads of them
// (curve_pass.cpp): a merge updates the merged cluster's groups, not its cells.
#pragma once

#include <cstdint>

namespace clusterscore::curves_detail {

// The cells of one cluster that have the same truth weight and the same cell weight: the
// per-cell kernel gives them the same values, so a merge recomputes the cluster's groups,
// not its cells (with unit weights, a few per distinct truth size however large it grows).
struct Group {
  double truth, tp;  // the key
  double design;     // Σ of the cells' design weights
  double design_sq;  // Σ design weight × the cell's Σw²
  int64_t cells;
};

}  // namespace clusterscore::curves_detail
