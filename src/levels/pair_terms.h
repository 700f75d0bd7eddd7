// What items add to the pair metrics' three sums (docs/metrics.md, "pair metrics"): an item of
// weight w pairs with the others of its cell (tp), of its actual cluster and of its truth
// cluster, w·(x − w) for each x. The one formula behind the per-group sums, the
// bootstrap's fixed sums and its recomputed cells.
#pragma once

#include <cstdint>

// Its functions are inlined, so passing vectors by value changes no ABI.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::detail {

template <class T>
struct PairTermsOf {
  T together, actual, truth;
};
using PairTerms = PairTermsOf<double>;

// One item; weights times `scale` (a power of two, so that products neither overflow nor
// underflow: the ratios do not change).
inline PairTerms item_pair_terms(double w, double tp, double actual, double truth, double scale) {
  const double ws = w * scale;
  return {ws * ((tp - w) * scale), ws * ((actual - w) * scale), ws * ((truth - w) * scale)};
}

// The items of one cell (or of its part in a group), summed: Σw·(x − w) = W·x − Σw², from
// their weight W and squared weights Σw², both already scaled by `scale`. Of a double or
// of a vector of several resamples' values (the same operations lane by lane; inlined
// even unoptimized, as no vector may cross a call between instruction sets).
template <class T>
[[gnu::always_inline]] inline PairTermsOf<T> cell_pair_terms(T w_scaled, T sq_scaled, T tp,
                                                             T actual, T truth, double scale) {
  return {w_scaled * (tp * scale) - sq_scaled, w_scaled * (actual * scale) - sq_scaled,
          w_scaled * (truth * scale) - sq_scaled};
}

// A unit of `count` items of one cell (ItemsInput::counts), from their weight W and Σw²,
// unscaled: one item is computed as item_pair_terms() computes it (the same rounding as
// the item it stands for), several as cell_pair_terms().
inline PairTerms unit_pair_terms(double w, double sq, uint64_t count, double tp, double actual,
                                 double truth, double scale) {
  if (count == 1) return item_pair_terms(w, tp, actual, truth, scale);
  return cell_pair_terms(w * scale, sq * scale * scale, tp, actual, truth, scale);
}

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
