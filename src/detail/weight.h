// What a weight may be, everywhere the core takes one (an item's, a unit's Σw, a truth
// cluster's design weight): the one rule, so every input says the same.
#pragma once

#include <limits>

namespace clusterscore::detail {

// A finite number > 0. NaN fails both comparisons, +inf the second.
inline bool is_weight(double w) { return w > 0 && w <= std::numeric_limits<double>::max(); }

}  // namespace clusterscore::detail
