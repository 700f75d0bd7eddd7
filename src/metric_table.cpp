#include "clusterscore/metric_table.h"

#include <stdexcept>

namespace clusterscore {

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
