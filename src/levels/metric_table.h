// Tables of metric values: per cell (row-major, for gathers) and per group (by column).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "detail/big_vector.h"

namespace clusterscore {

// One row per cell, one column per named quantity, row-major with rows padded to a
// power of two of doubles (at most 8, then multiples of 8), so that a cell's values
// share one cache line when the table is 64-byte aligned (big tables are).
struct MetricTable {
  MetricTable() = default;
  // An empty table with room for `rows` rows.
  MetricTable(std::vector<std::string> column_names, size_t rows);

  std::vector<std::string> names;
  size_t n_rows = 0;
  size_t stride = 0;         // doubles from one row to the next: width() rounded up
  BigVector<double> values;  // n_rows × stride

  size_t width() const { return names.size(); }
  double at(size_t row, size_t k) const { return values[row * stride + k]; }
  const double* row(size_t r) const { return values.data() + r * stride; }
  // Appends a row of width() values (and the padding).
  void push_row(const double* v);
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
