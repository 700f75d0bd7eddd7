// aggregate()'s running sums of one group (levels/aggregator.h): its items, weight and
// compensated metric sums.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "detail/kahan.h"
#include "detail/lanes.h"

#pragma GCC diagnostic push
// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::levels_detail {

// Internal linkage: see levels/aggregator.h.
namespace {

// Sums for metric rows of stride 8 (pointwise and impact metrics): the sums live in the
// object, and a row is added as two four-lane compensated sums, where the general loop
// below checks lengths and aliasing for every unit. Same bits: each lane does what
// neumaier_add() does.
struct Sums8 {
  explicit Sums8(size_t) {}
  uint64_t count = 0;
  detail::KahanSum weight;
  double sum[8] = {}, comp[8] = {};

  [[gnu::always_inline]] void add_metrics(double w, const double* v) {
    detail::neumaier_add_scaled(sum, comp, w, v, 8);
  }
  // The weighted means of the first k <= 8 metrics (the rest is padding), to out[i *
  // stride]: divided four at a time (the same division in each lane, so the same bits).
  void means(double w, size_t k, double* __restrict out, size_t stride) const {
    using detail::load4, detail::store4;
    const detail::Lanes4 wv = {w, w, w, w};
    double q[8];
    store4(q, (load4(sum) + load4(comp)) / wv);
    store4(q + 4, (load4(sum + 4) + load4(comp + 4)) / wv);
    for (size_t i = 0; i < k; ++i) out[i * stride] = q[i];
  }
  void clear() {
    count = 0;
    weight = {};
    for (size_t k = 0; k < 8; ++k) sum[k] = comp[k] = 0.0;
  }
  // Adds the sums of a later stretch of units.
  void merge(const Sums8& o) {
    count += o.count;
    weight.add(o.weight);
    for (size_t k = 0; k < 8; ++k) {
      detail::neumaier_add(sum[k], comp[k], o.sum[k]);
      detail::neumaier_add(sum[k], comp[k], o.comp[k]);
    }
  }
};

// One group's running sums. The metric sums are kept as two arrays (sums, compensations),
// not as KahanSums, so that adding a unit's metrics is one loop the compiler vectorises.
struct Sums {
  explicit Sums(size_t k) : sum(k), comp(k) {}
  uint64_t count = 0;
  detail::KahanSum weight;
  std::vector<double> sum, comp;

  void add_metrics(double w, const double* v) {
    double* __restrict s = sum.data();
    double* __restrict c = comp.data();
    for (size_t k = 0; k < sum.size(); ++k) detail::neumaier_add(s[k], c[k], w * v[k]);
  }
  // The weighted means of the k metrics, to out[i * stride].
  void means(double w, size_t k, double* __restrict out, size_t stride) const {
    const double* __restrict s = sum.data();
    const double* __restrict c = comp.data();
    for (size_t i = 0; i < k; ++i) out[i * stride] = (s[i] + c[i]) / w;
  }
  void clear() {
    count = 0;
    weight = {};
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(comp.begin(), comp.end(), 0.0);
  }
  void merge(const Sums& o) {
    count += o.count;
    weight.add(o.weight);
    for (size_t k = 0; k < sum.size(); ++k) {
      detail::neumaier_add(sum[k], comp[k], o.sum[k]);
      detail::neumaier_add(sum[k], comp[k], o.comp[k]);
    }
  }
};

// A group's pair sums (aggregate()'s PairInputs): design-weighted pair terms, and the
// units' own weight (the means' weight is scaled by design).
struct PairAcc {
  detail::KahanSum together, actual, truth, weight;

  // Adds the sums of a later stretch of units.
  void merge(const PairAcc& o) {
    together.add(o.together), actual.add(o.actual), truth.add(o.truth), weight.add(o.weight);
  }
};

// Sums8 or Sums with the pair sums beside: a type of its own, so that an aggregation
// without pairs keeps its smaller sums (more groups per partition in L2).
template <class Base>
struct WithPairs : Base {
  explicit WithPairs(size_t k) : Base(k) {}
  PairAcc pairs;

  void clear() {
    Base::clear();
    pairs = {};
  }
  void merge(const WithPairs& o) {
    Base::merge(o);
    pairs.merge(o.pairs);
  }
};
template <class S>
concept Paired = requires(S s) { s.pairs; };

}  // namespace
}  // namespace clusterscore::levels_detail

#pragma GCC diagnostic pop
