#include "levels/metric_table.h"

#include <stdexcept>
#include <utility>

namespace clusterscore {

MetricTable::MetricTable(std::vector<std::string> column_names, size_t rows)
    : names(std::move(column_names)) {
  stride = 1;
  while (stride < width() && stride < 8) stride *= 2;
  if (width() > 8) stride = (width() + 7) / 8 * 8;
  values.reserve(rows * stride);
}

void MetricTable::push_row(const double* v) {
  values.insert(values.end(), v, v + width());
  values.resize(values.size() + stride - width(), 0.0);
  ++n_rows;
}

size_t MetricTable::column(const std::string& name) const {
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return k;
  throw std::out_of_range("clusterscore: no metric column '" + name + "'");
}

const BigVector<double>& GroupTable::column(const std::string& name) const {
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return columns[k];
  throw std::out_of_range("clusterscore: no group column '" + name + "'");
}

}  // namespace clusterscore
