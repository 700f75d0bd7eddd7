// Tables of metric values: per cell (row-major, for gathers) and per group (by column).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clusterscore/big_vector.h"

namespace clusterscore {

// One row per cell, one column per named quantity, row-major so that all of a
// cell's values are one cache line apart.
struct MetricTable {
  std::vector<std::string> names;
  size_t n_rows = 0;
  BigVector<double> values;  // n_rows × names.size()

  size_t width() const { return names.size(); }
  double at(size_t row, size_t k) const { return values[row * width() + k]; }
  // Column index of `name`; throws std::out_of_range if absent.
  size_t column(const std::string& name) const;
};

// One row per non-empty group: its code, item count, weight and weighted means.
struct GroupTable {
  // Big vectors: per-cluster tables have millions of rows, handed to Python without a copy.
  BigVector<uint32_t> group;  // group code (cluster index, slice code, 0 for overall)
  BigVector<uint64_t> items;
  BigVector<double> weight;
  std::vector<std::string> names;
  std::vector<BigVector<double>> columns;  // one per name, one value per group

  size_t size() const { return group.size(); }
  const BigVector<double>& column(const std::string& name) const;
};

}  // namespace clusterscore
