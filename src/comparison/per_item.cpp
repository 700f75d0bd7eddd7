// The per-item table's rows: each item's cell read back at random, fetched ahead, by
// stretches of items on every thread (each writes its own rows).
#include <stdexcept>
#include <string>

#include "comparison/comparison.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"

namespace clusterscore {

PerItemRows Comparison::per_item(std::span<const uint32_t> items, const MetricTable& counts) const {
  const MetricTable& means = metrics_;
  if (counts.n_rows != cells_.size())
    throw std::invalid_argument("clusterscore: per_item: counts do not have a row per cell");
  const JoinedClusterings& j = joined_;
  for (const uint32_t i : items)
    if (i >= j.n_items() || cell_of_item_[i] == kNone)
      throw std::out_of_range("clusterscore: per_item: " + std::to_string(i) +
                              " is not the index of a common item");
  PerItemRows out;
  const size_t n = items.size(), k_counts = counts.width(), k_means = means.width();
  out.b_cluster_first_row.resize(n);
  out.weight.resize(n);
  out.names = counts.names;
  out.names.insert(out.names.end(), means.names.begin(), means.names.end());
  for (size_t k = 0; k < k_counts + k_means; ++k) out.columns.emplace_back(n);
  detail::parallel_ranges(n, [&](size_t begin, size_t end) {
    detail::poll_interrupt();
    for (size_t x = begin; x < end; ++x) {
      // Cells and B clusters are met at random: fetched ahead.
      if (x + detail::kPrefetch < end) {
        const uint32_t ahead = items[x + detail::kPrefetch], cell = cell_of_item_[ahead];
        detail::prefetch(means.row(cell));
        detail::prefetch(counts.row(cell));
        detail::prefetch(&j.b_cluster_first_row[j.b_cluster[ahead]]);
      }
      const uint32_t i = items[x], cell = cell_of_item_[i];
      out.b_cluster_first_row[x] = j.b_cluster_first_row[j.b_cluster[i]];
      out.weight[x] = j.weight[i];
      for (size_t k = 0; k < k_counts; ++k) out.columns[k][x] = counts.at(cell, k);
      for (size_t k = 0; k < k_means; ++k) out.columns[k_counts + k][x] = means.at(cell, k);
    }
  });
  return out;
}

}  // namespace clusterscore
