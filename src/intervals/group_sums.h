// What the bootstrap's two engines share (bootstrap.cpp): the layout of a group's estimates,
// and per group the compensated sums they are made from.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/kahan.h"
#include "detail/lanes.h"
#include "levels/pair_terms.h"
#include "metrics/pointwise.h"
#include "metrics/pointwise_row.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::intervals_detail {

[[noreturn]] inline void mismatched_runs() {
  throw std::invalid_argument(
      "clusterscore: runs to compare must share the truth, its design weights, the grouping"
      " and the metrics");
}

// The estimates of one group from its sums: `means` weighted means (sum / weight), then, for
// pointwise metrics (whose means start with precision and recall, detail::PointwiseColumn),
// f1_of_means and the three pair metrics from the three sums after the means.
struct Layout {
  static constexpr size_t p = detail::PointwiseColumn::kPrecision;
  static constexpr size_t r = detail::PointwiseColumn::kRecall;
  size_t means = 0;
  bool pointwise = false;

  Layout(size_t n_means, bool is_pointwise) : means(n_means), pointwise(is_pointwise) {}
  size_t sums() const { return means + (pointwise ? 3 : 0); }
  size_t width() const { return means + (pointwise ? 4 : 0); }
  std::vector<std::string> names(std::vector<std::string> out) const {
    if (!pointwise) return out;
    out.push_back(detail::kF1OfMeans);
    out.insert(out.end(), std::begin(detail::kPairNames), std::end(detail::kPairNames));
    return out;
  }
  // One group's estimates (`row`, width() of them) from compensated sums (sum, comp) and
  // weight w > 0.
  void finish(const double* sum, const double* comp, double w, double* row) const {
    for (size_t m = 0; m < means; ++m) row[m] = (sum[m] + comp[m]) / w;
    if (!pointwise) return;
    const size_t q = means;
    row[q] = f1_of_means(row[p], row[r]);
    const PairMetrics x =
        pair_metrics(sum[q] + comp[q], sum[q + 1] + comp[q + 1], sum[q + 2] + comp[q + 2]);
    row[q + 1] = x.precision, row[q + 2] = x.recall, row[q + 3] = x.f1;
  }
};

// Per run, the groups' weights and compensated sums, and the estimates made from them:
// out[(run * groups + g) * width + m], NaN where a group has no weight.
class GroupSums {
 public:
  GroupSums(const Layout& layout, size_t groups)
      : layout_(layout),
        groups_(groups),
        w_(groups),
        sum_(groups * layout.sums()),
        comp_(groups * layout.sums()) {}
  void clear() {
    std::fill(w_.begin(), w_.end(), detail::KahanSum{});
    std::fill(sum_.begin(), sum_.end(), 0.0);
    std::fill(comp_.begin(), comp_.end(), 0.0);
  }
  // Adds k × (weight, values) to group g: four at a time, each lane the scalar
  // neumaier_add() (the same bits).
  [[gnu::always_inline]] void add(size_t g, double k, double weight, const double* values) {
    w_[g].add(k * weight);
    const size_t n = layout_.sums();
    detail::neumaier_add_scaled(sum_.data() + g * n, comp_.data() + g * n, k, values, n);
  }
  // Adds a compensated sum to group g's weight, or to its sum `slot`.
  void add_weight(size_t g, const detail::KahanSum& s) { w_[g].add(s); }
  void add_to(size_t g, size_t slot, const detail::KahanSum& s) {
    const size_t at = g * layout_.sums() + slot;
    detail::neumaier_add(sum_[at], comp_[at], s.sum);
    detail::neumaier_add(sum_[at], comp_[at], s.comp);
  }
  // Sets group g's sum `slot` to f(its weight, its sum).
  template <class F>
  void set(size_t g, size_t slot, F f) {
    const size_t at = g * layout_.sums() + slot;
    sum_[at] = f(w_[g].value(), sum_[at] + comp_[at]);
    comp_[at] = 0;
  }
  size_t groups() const { return groups_; }
  // Group g's weight, and its sums and their compensations (Layout::sums() of each): for
  // code that adds to several lanes' sums at once and puts them back.
  detail::KahanSum& weight(size_t g) { return w_[g]; }
  double* sum(size_t g) { return sum_.data() + g * layout_.sums(); }
  double* comp(size_t g) { return comp_.data() + g * layout_.sums(); }
  void finish(size_t run, std::vector<double>* out) const {
    const size_t n = layout_.sums(), width = layout_.width();
    for (size_t g = 0; g < groups_; ++g) {
      const double wg = w_[g].value();
      if (wg > 0)
        layout_.finish(sum_.data() + g * n, comp_.data() + g * n, wg,
                       out->data() + (run * groups_ + g) * width);
    }
  }

 private:
  const Layout& layout_;
  size_t groups_;
  std::vector<detail::KahanSum> w_;
  std::vector<double> sum_, comp_;
};

// Several resamples computed in one pass over the sums, their draw counts side by side: a
// truth cluster's counts for all of them are one load, and a byte each, so that the counts
// of millions of clusters stay in a cache. Read one array per resample, group by group
// (every slice's clusters are spread over all places), they missed it once per count.
inline constexpr size_t kLanes = 4;

// The draw counts of the resamples computed together: lane l's truth cluster at place p is
// drawn n[p·kLanes + l] times (n null: once each). Lanes past `lanes` hold counts that are
// computed and not read. Each lane's arithmetic is the one-resample code's, in its order:
// the same bits whatever the lanes.
struct Draws {
  size_t lanes = 1;  // in [1, kLanes]
  const uint8_t* n = nullptr;
  // Lane l's multiplicity of place p.
  double times(size_t l, uint32_t p) const { return n ? double(n[size_t(p) * kLanes + l]) : 1.0; }
  // Every lane's multiplicity of place p.
  [[gnu::always_inline]] detail::Lanes4 times4(uint32_t p) const {
    static_assert(kLanes == 4);
    if (!n) return detail::Lanes4{1, 1, 1, 1};
    // Byte l moved to the low bits of lane l and made a double by the exponent of 2^52
    // (exact for any integer under 2^52): vector shifts and one subtraction, where GCC
    // converts a vector of bytes one lane at a time.
    uint32_t bytes;
    std::memcpy(&bytes, n + size_t(p) * kLanes, sizeof bytes);
    const uint64_t b = bytes;
    detail::Words4 w = {b, b, b, b};
    w = ((w >> detail::Words4{0, 8, 16, 24}) & 0xFF) | 0x4330000000000000;  // 2^52's bits
    detail::Lanes4 v;
    std::memcpy(&v, &w, sizeof v);
    return v - detail::Lanes4{0x1p52, 0x1p52, 0x1p52, 0x1p52};
  }
};

// Four compensated sums, one per lane of Draws, each a detail::LaneSum whose four
// positions are held here as four vectors over the lanes: a stream's value i goes to
// position i % 4, as LaneSum's lane i % 4 would take it, so lane l's value() is the same
// bits as a LaneSum over lane l's stream.
struct LaneSums {
  // Position by position, kLanes values each (doubles, not vectors: a std::vector of these
  // may hold them at any 8-byte boundary).
  double sum[4][kLanes] = {}, comp[4][kLanes] = {};
  [[gnu::always_inline]] void add(size_t position, detail::Lanes4 x) {
    detail::neumaier_add4_at(sum[position], comp[position], x);
  }
  detail::KahanSum value(size_t l) const {
    detail::KahanSum out;
    for (size_t at = 0; at < 4; ++at) out.add(detail::KahanSum{sum[at][l], comp[at][l]});
    return out;
  }
};

// The estimates of every run, lane by lane: out[l][(run * groups + g) * width + m], each
// run's sums made by add(run, sums) into sums[0..lanes).
template <class Add>
void estimates_of_runs(const Layout& layout, size_t groups, size_t runs, size_t lanes,
                       std::vector<double>* out, Add add) {
  std::vector<GroupSums> sums(lanes, GroupSums(layout, groups));
  for (size_t l = 0; l < lanes; ++l)
    out[l].assign(runs * groups * layout.width(), std::numeric_limits<double>::quiet_NaN());
  for (size_t run = 0; run < runs; ++run) {
    for (GroupSums& s : sums) s.clear();
    add(run, sums.data());
    for (size_t l = 0; l < lanes; ++l) sums[l].finish(run, &out[l]);
  }
}

}  // namespace clusterscore::intervals_detail

#pragma GCC diagnostic pop
