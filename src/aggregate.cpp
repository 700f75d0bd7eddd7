#include "clusterscore/aggregate.h"

#include <stdexcept>

#include "clusterscore/clustering.h"
#include "detail/kahan.h"

namespace clusterscore {

GroupTable aggregate(const MetricTable& per_cell, size_t first_column, const Units& units,
                     size_t n_groups,
                     const std::vector<std::pair<std::string, std::string>>& rename) {
  const size_t n_units = units.group.size();
  if (units.weight.size() != n_units || units.count.size() != n_units ||
      (!units.cell.empty() && units.cell.size() != n_units))
    throw std::invalid_argument("clusterscore: aggregate() unit arrays differ in length");
  const size_t width = per_cell.width(), k_out = width - first_column;
  std::vector<detail::KahanSum> weight(n_groups), sums(n_groups * k_out);
  std::vector<uint64_t> count(n_groups, 0);
  for (size_t u = 0; u < n_units; ++u) {
    const uint32_t g = units.group[u];
    const uint32_t cell = units.cell.empty() ? uint32_t(u) : units.cell[u];
    if (g == kNone || cell == kNone) continue;
    const double w = units.weight[u];
    count[g] += units.count[u];
    weight[g].add(w);
    const double* v = &per_cell.values[size_t(cell) * width + first_column];
    detail::KahanSum* s = &sums[size_t(g) * k_out];
    for (size_t k = 0; k < k_out; ++k) s[k].add(w * v[k]);
  }
  GroupTable out;
  for (size_t k = first_column; k < width; ++k) {
    std::string name = per_cell.names[k];
    for (const auto& [from, to] : rename)
      if (name == from) name = to;
    out.names.push_back(name);
  }
  out.columns.resize(k_out);
  for (size_t g = 0; g < n_groups; ++g) {
    if (count[g] == 0) continue;
    const double w = weight[g].value();
    out.group.push_back(uint32_t(g));
    out.items.push_back(count[g]);
    out.weight.push_back(w);
    for (size_t k = 0; k < k_out; ++k) out.columns[k].push_back(sums[g * k_out + k].value() / w);
  }
  return out;
}

}  // namespace clusterscore
