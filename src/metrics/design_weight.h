// A truth cluster's design weight (docs/metrics.md, truth scope): the one rule behind
// Comparison::use_design() and the Spark engine's units (levels/unit_levels.h).
#pragma once

#include <cstdint>

namespace clusterscore::detail {

// Entities drawn in proportion to their size: 1 / the cluster's items in the truth (all
// of them, not only those in T).
inline double inverse_size_weight(uint64_t items_in_truth) { return 1.0 / double(items_in_truth); }

// average="entities": design weight d over the cluster's weight in T, so that the
// cluster's mean counts by d alone; d itself where the cluster has no common item (it
// weighs nothing then).
inline double per_entity_weight(double design, double weight_in_t) {
  return weight_in_t > 0 ? design / weight_in_t : design;
}

}  // namespace clusterscore::detail
