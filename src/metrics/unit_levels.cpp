#include "metrics/unit_levels.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "cells/cell_weights.h"
#include "detail/interrupt.h"
#include "levels/aggregate.h"
#include "levels/pair_terms.h"
#include "metrics/design_weight.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

namespace clusterscore {
namespace {

using detail::kPointwiseMetrics;

// unit_level_sums()' columns after items and weight, in order.
std::vector<std::string> sum_names() {
  std::vector<std::string> names{kDesignWeight};
  names.insert(names.end(), std::begin(detail::kPointwiseNames), std::end(detail::kPointwiseNames));
  names.insert(names.end(), std::begin(kPairSumNames), std::end(kPairSumNames));
  return names;
}

void check_lengths(const CellUnits& u) {
  const size_t n = u.count.size();
  for (size_t m : {u.weight.size(), u.weight_sq.size(), u.cell_weight.size(), u.truth_weight.size(),
                   u.actual_weight.size()})
    if (m != n)
      throw std::invalid_argument("clusterscore: unit_level_sums() arrays differ in length");
  if (!u.truth_size.empty() && u.truth_size.size() != n)
    throw std::invalid_argument("clusterscore: unit_level_sums() truth sizes differ in length");
}

}  // namespace

GroupTable unit_level_sums(const CellUnits& u) {
  check_lengths(u);
  const size_t n = u.count.size();
  GroupTable out;
  out.names = sum_names();
  out.columns.assign(out.names.size(), BigVector<double>(n));
  out.group.resize(n);
  out.items.resize(n);
  out.weight.resize(n);
  double row[kPointwiseMetrics];
  for (size_t k = 0; k < n; ++k) {
    detail::poll_every(k);
    const double w = u.weight[k], x = u.cell_weight[k];
    const double b = u.truth_weight[k], e = u.actual_weight[k];
    detail::pointwise_row({x, b, e, b - x, e - x}, u.total, row);
    double d = u.truth_size.empty() ? 1.0 : detail::inverse_size_weight(u.truth_size[k]);
    if (u.per_entity) d = detail::per_entity_weight(d, b);
    // As aggregate() adds a unit (levels/aggregator.h): its weight times its design weight
    // in the means, its pair terms times the design weight.
    const double wd = w * d;
    const detail::PairTerms p =
        detail::unit_pair_terms(w, u.weight_sq[k], u.count[k], x, e, b, u.scale);
    out.group[k] = uint32_t(k);
    out.items[k] = u.count[k];
    out.weight[k] = w;
    out.columns[0][k] = wd;
    for (int m = 0; m < kPointwiseMetrics; ++m) out.columns[1 + m][k] = wd * row[m];
    out.columns[1 + kPointwiseMetrics][k] = d * p.together;
    out.columns[2 + kPointwiseMetrics][k] = d * p.actual;
    out.columns[3 + kPointwiseMetrics][k] = d * p.truth;
  }
  return out;
}

GroupTable finish_level_sums(GroupTable sums) {
  if (sums.names != sum_names())
    throw std::invalid_argument(
        "clusterscore: finish_level_sums() needs unit_level_sums()' columns");
  const size_t n = sums.size();
  for (const auto& c : sums.columns)
    if (c.size() != n)
      throw std::invalid_argument("clusterscore: finish_level_sums() columns differ in length");
  GroupTable out;
  out.group = std::move(sums.group);
  out.items = std::move(sums.items);
  out.weight = std::move(sums.weight);
  const BigVector<double>& wd = sums.columns[0];
  for (int m = 0; m < kPointwiseMetrics; ++m) {
    BigVector<double> mean(n);
    const BigVector<double>& s = sums.columns[1 + m];
    for (size_t g = 0; g < n; ++g) mean[g] = s[g] / wd[g];
    out.names.push_back(detail::kPointwiseNames[m]);
    out.columns.push_back(std::move(mean));
  }
  add_pointwise_derived(&out);
  PairSumColumns pairs{std::move(sums.columns[1 + kPointwiseMetrics]),
                       std::move(sums.columns[2 + kPointwiseMetrics]),
                       std::move(sums.columns[3 + kPointwiseMetrics])};
  add_pair_metrics(&out, pairs);
  return out;
}

}  // namespace clusterscore
