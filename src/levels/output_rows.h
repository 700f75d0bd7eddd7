// aggregate()'s output table (levels/aggregator.h), written a few rows at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "levels/metric_table.h"

namespace clusterscore::levels_detail {

// Internal linkage: see levels/aggregator.h.
namespace {

// Sizes the output table for `rows` rows, for Outputs to fill.
inline void size_output(GroupTable* out, size_t rows) {
  out->group.resize(rows);
  out->items.resize(rows);
  out->weight.resize(rows);
  for (auto& c : out->columns) c.resize(rows);
}

// Rows of the output table from row `at` on, written kStage rows at a time: rows are
// staged in a small buffer, column by column, then each column's run is copied at once.
// Writing each row straight to its columns kept 11 write streams going, which made the
// writes twice as slow. Staged by column, not by row: staged row by row and gathered into
// columns at each flush, the gather and a division per value made half the table's cost.
// Outputs at disjoint rows of one table may be written by different threads.
class Output {
 public:
  static constexpr size_t kStage = 64;

  Output(GroupTable* out, size_t at)
      : out_(out), k_(out->columns.size()), at_(at), means_(kStage * k_) {}
  // Stages a row; returns where its first mean goes, the next ones kStage apart.
  double* add(uint32_t group, uint64_t items, double weight) {
    if (n_ == kStage) flush();
    group_[n_] = group;
    items_[n_] = items;
    weight_[n_] = weight;
    return means_.data() + n_++;
  }
  void flush() {
    std::copy(group_, group_ + n_, out_->group.data() + at_);
    std::copy(items_, items_ + n_, out_->items.data() + at_);
    std::copy(weight_, weight_ + n_, out_->weight.data() + at_);
    for (size_t k = 0; k < k_; ++k) {
      const double* column = means_.data() + k * kStage;
      std::copy(column, column + n_, out_->columns[k].data() + at_);
    }
    at_ += n_;
    n_ = 0;
  }

 private:
  GroupTable* out_;
  size_t k_, at_, n_ = 0;
  uint32_t group_[kStage];
  uint64_t items_[kStage];
  double weight_[kStage];
  std::vector<double> means_;  // column k's staged values: [k * kStage, k * kStage + n_)
};

}  // namespace
}  // namespace clusterscore::levels_detail
