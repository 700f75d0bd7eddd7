#include "metrics/unit_levels.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "cells/cell_weights.h"
#include "detail/interrupt.h"
#include "levels/aggregate.h"
#include "levels/pair_terms.h"
#include "metrics/design_weight.h"
#include "metrics/impact.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only (impact_row()): no
// ABI is crossed, whatever -Wpsabi says.
#pragma GCC diagnostic ignored "-Wpsabi"

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

// impact_unit_sums()' columns after items and weight, in order, and the first of the
// summary's parts among them.
enum : size_t {
  kAffectedItems = ImpactColumn::kCount,
  kAffectedJaccard,
  kUnaffectedWeight,
  kShareOfBase,
  kShareOfExp,
  kBaseSplit,
  kExpMerged
};
std::vector<std::string> impact_sum_names() {
  std::vector<std::string> names(std::begin(kImpactNames), std::end(kImpactNames));
  for (const char* n : {"affected_items", "affected_jaccard", "unaffected_weight", "share_of_base",
                        "share_of_exp", "base_split", "exp_merged"})
    names.emplace_back(n);
  return names;
}

void check_impact_sums(const GroupTable& sums, const char* caller) {
  if (sums.names != impact_sum_names())
    throw std::invalid_argument(std::string("clusterscore: ") + caller +
                                " needs impact_unit_sums()' columns");
  for (const auto& c : sums.columns)
    if (c.size() != sums.size())
      throw std::invalid_argument(std::string("clusterscore: ") + caller +
                                  " columns differ in length");
}

void check_impact_lengths(const ImpactUnits& u) {
  const size_t n = u.count.size();
  for (size_t m : {u.weight.size(), u.cell_weight.size(), u.base_weight.size(), u.exp_weight.size(),
                   u.cell_count.size(), u.base_count.size(), u.exp_count.size()})
    if (m != n) throw std::invalid_argument("clusterscore: a diff's unit arrays differ in length");
}

// Unit k's cell's weights (cells/cell_weights.h).
detail::CellWeights weights_of(const CellUnits& u, size_t k) {
  const double x = u.cell_weight[k], b = u.truth_weight[k], e = u.actual_weight[k];
  return {x, b, e, b - x, e - x};
}
detail::CellWeights weights_of(const ImpactUnits& u, size_t k) {
  const double x = u.cell_weight[k], b = u.base_weight[k], e = u.exp_weight[k];
  return {x, b, e, b - x, e - x};
}

// Whether unit k's cell is not the whole of its Base cluster, and of its Exp cluster.
std::pair<bool, bool> changes_of(const ImpactUnits& u, size_t k) {
  return {detail::holds_others(u.cell_count[k], u.base_count[k]),
          detail::holds_others(u.cell_count[k], u.exp_count[k])};
}

// A table of `n` units' rows named `names`: group k is unit k.
GroupTable unit_rows(std::vector<std::string> names, std::span<const uint64_t> count,
                     std::span<const double> weight) {
  const size_t n = count.size();
  GroupTable out;
  out.names = std::move(names);
  out.columns.assign(out.names.size(), BigVector<double>(n));
  out.group.resize(n);
  for (size_t k = 0; k < n; ++k) out.group[k] = uint32_t(k);
  out.items.assign(count.begin(), count.end());
  out.weight.assign(weight.begin(), weight.end());
  return out;
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
  GroupTable out = unit_rows(sum_names(), u.count, u.weight);
  double row[kPointwiseMetrics];
  for (size_t k = 0; k < u.count.size(); ++k) {
    detail::poll_every(k);
    const detail::CellWeights c = weights_of(u, k);
    detail::pointwise_row(c, u.total, row);
    double d = u.truth_size.empty() ? 1.0 : detail::inverse_size_weight(u.truth_size[k]);
    if (u.per_entity) d = detail::per_entity_weight(d, c.b);
    // As aggregate() adds a unit (levels/aggregator.h): its weight times its design weight
    // in the means, its pair terms times the design weight.
    const double w = u.weight[k], wd = w * d;
    const detail::PairTerms p =
        detail::unit_pair_terms(w, u.weight_sq[k], u.count[k], c.x, c.e, c.b, u.scale);
    out.columns[0][k] = wd;
    for (int m = 0; m < kPointwiseMetrics; ++m) out.columns[1 + m][k] = wd * row[m];
    out.columns[1 + kPointwiseMetrics][k] = d * p.together;
    out.columns[2 + kPointwiseMetrics][k] = d * p.actual;
    out.columns[3 + kPointwiseMetrics][k] = d * p.truth;
  }
  return out;
}

GroupTable impact_unit_sums(const ImpactUnits& u) {
  check_impact_lengths(u);
  GroupTable out = unit_rows(impact_sum_names(), u.count, u.weight);
  double row[ImpactColumn::kCount];
  for (size_t k = 0; k < u.count.size(); ++k) {
    detail::poll_every(k);
    const detail::CellWeights c = weights_of(u, k);
    const auto [split, merged] = changes_of(u, k);
    const bool affected = split || merged;
    detail::impact_row(c, affected, row);
    const double w = u.weight[k];
    for (size_t m = 0; m < ImpactColumn::kCount; ++m) out.columns[m][k] = w * row[m];
    out.columns[kAffectedItems][k] = affected ? double(u.count[k]) : 0.0;
    out.columns[kAffectedJaccard][k] = affected ? w * row[ImpactColumn::kJaccardIndex] : 0.0;
    out.columns[kUnaffectedWeight][k] = affected ? 0.0 : w;
    out.columns[kShareOfBase][k] = w / c.b;
    out.columns[kShareOfExp][k] = w / c.e;
    out.columns[kBaseSplit][k] = split ? 1.0 : 0.0;
    out.columns[kExpMerged][k] = merged ? 1.0 : 0.0;
  }
  return out;
}

GroupTable unit_item_values(const CellUnits& u) {
  check_lengths(u);
  std::vector<std::string> names(std::begin(detail::kPointwiseCountNames),
                                 std::end(detail::kPointwiseCountNames));
  names.insert(names.end(), std::begin(detail::kPointwiseNames), std::end(detail::kPointwiseNames));
  GroupTable out = unit_rows(std::move(names), u.count, u.weight);
  double row[4 + kPointwiseMetrics];
  for (size_t k = 0; k < u.count.size(); ++k) {
    detail::poll_every(k);
    const detail::CellWeights c = weights_of(u, k);
    detail::pointwise_counts(c, u.total, row);
    detail::pointwise_row(c, u.total, row + 4);
    for (size_t m = 0; m < out.names.size(); ++m) out.columns[m][k] = row[m];
  }
  return out;
}

GroupTable impact_unit_item_values(const ImpactUnits& u) {
  check_impact_lengths(u);
  std::vector<std::string> names(std::begin(kImpactSizeNames), std::end(kImpactSizeNames));
  names.insert(names.end(), std::begin(kImpactNames), std::end(kImpactNames));
  GroupTable out = unit_rows(std::move(names), u.count, u.weight);
  double row[4 + ImpactColumn::kCount];
  for (size_t k = 0; k < u.count.size(); ++k) {
    detail::poll_every(k);
    const detail::CellWeights c = weights_of(u, k);
    const auto [split, merged] = changes_of(u, k);
    detail::impact_sizes(c, row);
    detail::impact_row(c, split || merged, row + 4);
    for (size_t m = 0; m < out.names.size(); ++m) out.columns[m][k] = row[m];
  }
  return out;
}

GroupTable finish_impact_sums(GroupTable sums) {
  check_impact_sums(sums, "finish_impact_sums()");
  GroupTable out;
  out.group = std::move(sums.group);
  out.items = std::move(sums.items);
  out.weight = std::move(sums.weight);
  for (size_t m = 0; m < ImpactColumn::kCount; ++m) {
    BigVector<double> mean(out.size());
    for (size_t g = 0; g < mean.size(); ++g) mean[g] = sums.columns[m][g] / out.weight[g];
    out.names.push_back(m == ImpactColumn::kAffected ? kImpactRename.second : kImpactNames[m]);
    out.columns.push_back(std::move(mean));
  }
  add_impact_derived(&out);
  return out;
}

ImpactSummary impact_summary_of_sums(const GroupTable& sums, size_t g, uint64_t base_clusters_split,
                                     uint64_t exp_clusters_merged) {
  check_impact_sums(sums, "impact_summary_of_sums()");
  if (g >= sums.size())
    throw std::invalid_argument("clusterscore: impact_summary_of_sums() row out of range");
  const double total = sums.weight[g];
  ImpactSummary s;
  // A sum of whole counts, each exact in a double, below 2^53 items.
  s.affected_items = uint64_t(std::llround(sums.columns[kAffectedItems][g]));
  s.affected_weight = sums.columns[ImpactColumn::kAffected][g];
  s.affected_jaccard_index = sums.columns[kAffectedJaccard][g] / total;
  s.unaffected_jaccard_index = sums.columns[kUnaffectedWeight][g] / total;
  s.base_clusters_split = base_clusters_split;
  s.exp_clusters_merged = exp_clusters_merged;
  return s;
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
