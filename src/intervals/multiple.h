// Many deltas read at once (a comparison's deltas per slice value and metric): which of
// them stay significant when the number read is accounted for, by Benjamini–Hochberg.
// When no delta truly differs, the chance of any false mark is then at most `level`; when
// some do, the expected share of false marks among the marks is at most `level`.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace clusterscore {

// The two-sided p-value of an estimate with a normal standard error: 2·(1 − Φ(|est| / se)).
// NaN when either is NaN or se is not > 0 (a delta with no interval is not tested).
double normal_p_value(double estimate, double std_error);

// The same with Student's t for `units` resampling units (units − 1 degrees of freedom):
// a standard error from a few dozen truth clusters is itself uncertain, and the normal
// tail, read at the small p-values many deltas need, is too thin for it. NaN as above, and
// for fewer than two units. Exact to ~1e-14 (the incomplete beta function's continued
// fraction).
double student_p_value(double estimate, double std_error, uint32_t units);

// Per p-value, whether Benjamini–Hochberg at `level` rejects it: with m the number of
// p-values that are not NaN and p_(k) the k-th smallest, every p ≤ p_(K) for the largest K
// with p_(K) ≤ K·level/m. NaN is never rejected and not counted. Throws
// std::invalid_argument when level is not in (0, 1). O(m log m).
std::vector<uint8_t> benjamini_hochberg(std::span<const double> p_values, double level);

}  // namespace clusterscore
