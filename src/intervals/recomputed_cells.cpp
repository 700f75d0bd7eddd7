#include "intervals/recomputed_cells.h"

#include <stdexcept>

#include "detail/counting_order.h"
#include "detail/kahan.h"
#include "detail/simd.h"
#include "input/clustering.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::intervals_detail {
namespace {

using detail::KahanSum;
using Column = detail::PointwiseColumn;
using detail::LaneMask4;
using detail::Lanes4;

// Where a sum of the run's values goes: its kSums values after the weight.
constexpr size_t kTogether = detail::kPointwiseMetrics;

// What the entries of a cell that is its whole actual cluster (fp = 0, actual = tp) sum,
// after their weight W: Σw·recall, which is Σw·jaccard_index (u = tp + fn), Σw·f1, Σw·fn
// (accuracy's, see the header), Σw·jaccard_distance, Σw·under_merge_rate, and the pair
// sums `together` (which is `actual`'s) and `truth`. Precision's Σw·1 is W, and
// over_merge_rate's Σw·0 is 0.
enum Fixed : size_t { kRecall, kF1, kMissed, kDistance, kUnder, kTogetherPairs, kTruthPairs };
constexpr size_t kFixedSums = 7;

// Entry e of such a cell: its kFixedSums values.
void fixed_values(const CellSums& r, size_t e, double* v) {
  const uint32_t k = r.cell[e];
  const double tp = r.cell_weight[k], wr = r.row_weight[r.row[k]], w = r.weight[e];
  double m[detail::kPointwiseMetrics];
  detail::pointwise_row({tp, wr, tp, wr - tp, 0.0}, wr, m);
  v[kRecall] = m[Column::kRecall] * w;
  v[kF1] = m[Column::kF1] * w;
  v[kMissed] = w * (wr - tp);
  v[kDistance] = m[Column::kJaccardDistance] * w;
  v[kUnder] = m[Column::kUnderMergeRate] * w;
  const detail::PairTerms t =
      detail::cell_pair_terms(w * r.scale, r.weight_sq[e], tp, tp, wr, r.scale);
  v[kTogetherPairs] = t.together, v[kTruthPairs] = t.truth;
}

// Per group, fixed cells' weights and sums over each lane's draws (compensated, the lanes
// side by side: Draws), and what they add to the group's kSums.
class FixedGroupSums {
 public:
  explicit FixedGroupSums(size_t groups)
      : sum_(groups * kWidth * kLanes, 0.0), comp_(groups * kWidth * kLanes, 0.0) {}
  // Adds k × weight to group g's weight and k × values to its sums, k per lane.
  [[gnu::always_inline]] void add(size_t g, detail::Lanes4 k, double weight, const double* values) {
    double *sum = sum_.data() + g * kWidth * kLanes, *comp = comp_.data() + g * kWidth * kLanes;
    for (size_t x = 0; x < kWidth; ++x) {
      const double v = x == 0 ? weight : values[x - 1];
      detail::neumaier_add4_at(sum + x * kLanes, comp + x * kLanes, k * detail::Lanes4{v, v, v, v});
    }
  }
  // Lane l's sums added to its group sums.
  void add_to(size_t l, GroupSums* sums) const {
    for (size_t g = 0; g < sum_.size() / (kWidth * kLanes); ++g) {
      const auto at = [&](size_t x) {
        const size_t i = (g * kWidth + x) * kLanes + l;
        return KahanSum{sum_[i], comp_[i]};
      };
      const KahanSum w = at(0);
      sums->add_weight(g, w);
      sums->add_to(g, Column::kPrecision, w);
      sums->add_to(g, Column::kRecall, at(1 + kRecall));
      sums->add_to(g, Column::kJaccardIndex, at(1 + kRecall));
      sums->add_to(g, Column::kF1, at(1 + kF1));
      sums->add_to(g, Column::kAccuracy, at(1 + kMissed));
      sums->add_to(g, Column::kJaccardDistance, at(1 + kDistance));
      sums->add_to(g, Column::kUnderMergeRate, at(1 + kUnder));
      sums->add_to(g, kTogether, at(1 + kTogetherPairs));
      sums->add_to(g, kTogether + 1, at(1 + kTogetherPairs));
      sums->add_to(g, kTogether + 2, at(1 + kTruthPairs));
    }
  }

 private:
  static constexpr size_t kWidth = 1 + kFixedSums;  // the weight, then the sums
  std::vector<double> sum_, comp_;                  // [(group · kWidth + x) · kLanes + lane]
};

// Adds entry e of a fixed cell, of the truth cluster drawn `place`-th, to the (cluster,
// group) entry of `out` it belongs to; the cluster's entries so far start at `first`
// (entries come in order of cluster). `comp`: their sums' compensations.
void add_fixed(const CellSums& r, size_t e, uint32_t place, size_t first, SplitCells* out,
               std::vector<double>* comp) {
  const uint32_t g = r.group[e];
  size_t at = first;
  while (at < out->fixed_row.size() && out->fixed_group[at] != g) ++at;
  constexpr size_t n = kFixedSums;
  if (at == out->fixed_row.size()) {
    out->fixed_row.push_back(place);
    out->fixed_group.push_back(g);
    out->fixed_weight.push_back(0);
    out->fixed_sums.resize(out->fixed_sums.size() + n, 0.0);
    comp->resize(comp->size() + n + 1, 0.0);
  }
  double v[n];
  fixed_values(r, e, v);
  double* sum = out->fixed_sums.data() + at * n;
  double* c = comp->data() + at * (n + 1);
  detail::neumaier_add(out->fixed_weight[at], c[n], r.weight[e]);
  for (size_t x = 0; x < n; ++x) detail::neumaier_add(sum[x], c[x], v[x]);
}

void check(const CellSums& r) {
  if (r.row.size() != r.col.size() || r.row.size() != r.cell_weight.size() ||
      r.row_weight.size() != r.n_clusters || r.weight.size() != r.size() ||
      r.weight_sq.size() != r.size() || r.group.size() != r.size())
    throw std::invalid_argument("clusterscore: cell sums of inconsistent lengths");
  for (size_t k = 0; k < r.row.size(); ++k)
    if (r.row[k] >= r.n_clusters || r.col[k] >= r.n_cols)
      throw std::invalid_argument("clusterscore: a cell outside the clusters");
  for (size_t e = 0; e < r.size(); ++e)
    if (r.cell[e] >= r.row.size() || r.group[e] >= r.n_groups)
      throw std::invalid_argument("clusterscore: an entry outside the cells or the groups");
}

SplitCells split(const CellSums& r, const std::vector<uint32_t>& rank) {
  check(r);
  const auto place = [&](uint32_t row) { return rank.empty() ? row : rank[row]; };
  std::vector<uint32_t> col_cells(r.n_cols, 0), row_cells(r.n_clusters, 0);
  for (size_t k = 0; k < r.row.size(); ++k) ++col_cells[r.col[k]], ++row_cells[r.row[k]];
  SplitCells out;
  out.row_weight.resize(r.n_clusters);
  for (uint32_t t = 0; t < r.n_clusters; ++t) out.row_weight[place(t)] = r.row_weight[t];
  // Mixed cells actual cluster by actual cluster (numbered in order of first appearance
  // among them by place), each one's in order of place: a resample sums an actual
  // cluster's weight and uses it at once.
  const auto mixed_cell = [&](size_t k) { return col_cells[r.col[k]] >= 2; };
  const std::vector<size_t> by_place_cells =
      detail::counting_order(r.row.size(), r.n_clusters, [&](size_t k) {
        return mixed_cell(k) ? size_t(place(r.row[k])) : detail::kSkip;
      }).order;
  std::vector<uint32_t> dense(r.n_cols, kNone);
  out.col_start.push_back(0);
  for (size_t k : by_place_cells)
    if (dense[r.col[k]] == kNone) {
      dense[r.col[k]] = uint32_t(out.col_start.size() - 1);
      out.col_start.push_back(col_cells[r.col[k]]);
    }
  for (size_t j = 1; j < out.col_start.size(); ++j) out.col_start[j] += out.col_start[j - 1];
  std::vector<size_t> next(out.col_start.begin(), out.col_start.end() - 1);
  std::vector<uint32_t> mixed(r.row.size(), kNone);
  out.cell_weight.resize(by_place_cells.size());
  out.cell_row_weight.resize(by_place_cells.size());
  for (size_t k : by_place_cells) {
    const size_t x = next[dense[r.col[k]]]++;
    mixed[k] = uint32_t(x);
    out.by_place.push_back(uint32_t(x));
    out.place.push_back(place(r.row[k]));
    out.cell_weight[x] = r.cell_weight[k];
    out.cell_row_weight[x] = r.row_weight[r.row[k]];
  }
  // Mixed cells' entries by cell; the others by cluster; both stably.
  detail::CountingOrder by_cell =
      detail::counting_order(r.size(), by_place_cells.size(), [&](size_t e) {
        return mixed[r.cell[e]] == kNone ? detail::kSkip : size_t(mixed[r.cell[e]]);
      });
  out.entry_start = std::move(by_cell.start);
  for (size_t e : by_cell.order) {
    out.group.push_back(r.group[e]);
    out.weight.push_back(r.weight[e]);
    out.weight_sq.push_back(r.weight_sq[e]);
  }
  const std::vector<size_t> by_place =
      detail::counting_order(r.size(), r.n_clusters, [&](size_t e) {
        return mixed[r.cell[e]] == kNone ? size_t(place(r.row[r.cell[e]])) : detail::kSkip;
      }).order;
  std::vector<uint32_t> whole_in_group(r.n_groups, 0);
  std::vector<double> comp;
  size_t row_first = 0;
  uint32_t last = kNone;
  for (size_t e : by_place) {
    const uint32_t k = r.cell[e], row = r.row[k], p = place(row);
    if (row_cells[row] == 1) {
      const double tp = r.cell_weight[k], w = r.weight[e];
      out.whole_row.push_back(p);
      out.whole_slot.push_back(4 * r.group[e] + whole_in_group[r.group[e]]++ % 4);
      out.whole_weight.push_back(w);
      out.whole_pairs.push_back(
          detail::cell_pair_terms(w * r.scale, r.weight_sq[e], tp, tp, tp, r.scale).together);
      continue;
    }
    if (p != last) row_first = out.fixed_row.size(), last = p;
    add_fixed(r, e, p, row_first, &out, &comp);
  }
  constexpr size_t n = kFixedSums;
  for (size_t at = 0; at < out.fixed_row.size(); ++at) {
    out.fixed_weight[at] += comp[at * (n + 1) + n];
    for (size_t x = 0; x < n; ++x) out.fixed_sums[at * n + x] += comp[at * (n + 1) + x];
  }
  return out;
}

[[gnu::always_inline]] inline Lanes4 splat(double x) { return Lanes4{x, x, x, x}; }

// Per lane l, total[l] = Σ_p n[p]·weight[p] over its draws n, as a detail::LaneSum over the
// places would sum it.
CLUSTERSCORE_SIMD_CLONES
void total_weights(const std::vector<double>& weight, const Draws& d, double* total) {
  LaneSums sum;
  for (size_t p = 0; p < weight.size(); ++p)
    sum.add(p % 4, d.times4(uint32_t(p)) * splat(weight[p]));
  for (size_t l = 0; l < d.lanes; ++l) total[l] = sum.value(l).value();
}

// Every group's whole clusters, per lane l: Σ n·W into out[2(g·kLanes + l)] and Σ n·pair
// term after it, as detail::LaneSum over the group's entries would sum them. The entries
// come in order of place, so the draws are read in order. A cluster not drawn adds zeros,
// cheaper than a branch that guesses wrong a third of the time.
CLUSTERSCORE_SIMD_CLONES
void whole_sums(const SplitCells& s, size_t groups, const Draws& d, KahanSum* out) {
  std::vector<LaneSums> w(groups), p(groups);
  for (size_t i = 0; i < s.whole_row.size(); ++i) {
    const Lanes4 k = d.times4(s.whole_row[i]);
    const uint32_t g = s.whole_slot[i] / 4, at = s.whole_slot[i] % 4;
    w[g].add(at, k * splat(s.whole_weight[i]));
    p[g].add(at, k * splat(s.whole_pairs[i]));
  }
  for (size_t g = 0; g < groups; ++g)
    for (size_t l = 0; l < d.lanes; ++l)
      out[2 * (g * kLanes + l)] = w[g].value(l), out[2 * (g * kLanes + l) + 1] = p[g].value(l);
}

// The lanes' group sums side by side (GroupSums' weight, then its kSums sums, each with
// its compensation), taken from each lane's GroupSums and put back, so that the
// recomputed cells add to every lane at once what GroupSums::add() would to each.
class SharedCellSums {
 public:
  SharedCellSums(GroupSums* sums, size_t lanes)
      : sums_(sums),
        lanes_(lanes),
        sum_(sums[0].groups() * kWidth * kLanes, 0.0),
        comp_(sum_.size(), 0.0) {
    for (size_t l = 0; l < lanes_; ++l)
      for (size_t g = 0; g < sums[0].groups(); ++g) {
        const KahanSum& w = sums[l].weight(g);
        sum_[at(g, 0, l)] = w.sum, comp_[at(g, 0, l)] = w.comp;
        for (size_t x = 0; x < RecomputedCells::kSums; ++x)
          sum_[at(g, 1 + x, l)] = sums[l].sum(g)[x], comp_[at(g, 1 + x, l)] = sums[l].comp(g)[x];
      }
  }
  // Adds k × weight to group g's weight and k × values to its sums, in the lanes
  // `counted` (k ≠ 0); the others' bits stay as they are.
  [[gnu::always_inline]] void add(size_t g, Lanes4 k, LaneMask4 counted, double weight,
                                  const Lanes4* values) {
    add_at(at(g, 0, 0), k * weight);
    for (size_t x = 0; x < RecomputedCells::kSums; ++x)
      add_at(at(g, 1 + x, 0), counted ? k * values[x] : Lanes4{0, 0, 0, 0});
  }
  void put_back() const {
    for (size_t l = 0; l < lanes_; ++l)
      for (size_t g = 0; g < sums_[0].groups(); ++g) {
        sums_[l].weight(g) = KahanSum{sum_[at(g, 0, l)], comp_[at(g, 0, l)]};
        for (size_t x = 0; x < RecomputedCells::kSums; ++x)
          sums_[l].sum(g)[x] = sum_[at(g, 1 + x, l)], sums_[l].comp(g)[x] = comp_[at(g, 1 + x, l)];
      }
  }

 private:
  static constexpr size_t kWidth = 1 + RecomputedCells::kSums;
  static size_t at(size_t g, size_t x, size_t l) { return (g * kWidth + x) * kLanes + l; }
  [[gnu::always_inline]] void add_at(size_t i, Lanes4 x) {
    detail::neumaier_add4_at(&sum_[i], &comp_[i], x);
  }

  GroupSums* sums_;
  size_t lanes_;
  std::vector<double> sum_, comp_;
};

}  // namespace

RecomputedCells::RecomputedCells(const std::vector<CellSums>& runs,
                                 const std::vector<uint32_t>& rank)
    : runs_(runs), rank_(rank), layout_(detail::kPointwiseMetrics, true) {
  for (const CellSums& r : runs)
    if (r.n_clusters != runs.at(0).n_clusters || r.n_groups != runs[0].n_groups) mismatched_runs();
  for (const double share : {runs[0].sampled_share, runs[0].pair_share})
    if (!(share >= 0 && share <= 1))
      throw std::invalid_argument("clusterscore: sampled_share and pair_share must be in [0, 1]");
  split_.reserve(runs.size());
  for (const CellSums& r : runs) split_.push_back(split(r, rank));
}

std::vector<std::string> RecomputedCells::base_names() const {
  return {std::begin(detail::kPointwiseNames), std::end(detail::kPointwiseNames)};
}

void RecomputedCells::compute(const Draws& d, std::vector<double>* out) const {
  estimates_of_runs(layout_, groups(), runs_.size(), d.lanes, out,
                    [&](size_t run, GroupSums* sums) { add_run(run, d, sums); });
}

// Lane by lane, each part of a resample's sums is made by the one-resample arithmetic in
// its order; the parts loop over the lanes inside their loop over the sums they read.
CLUSTERSCORE_SIMD_CLONES
void RecomputedCells::add_run(size_t run, const Draws& d, GroupSums* sums) const {
  const CellSums& r = runs_[run];
  const SplitCells& s = split_[run];
  const size_t lanes = d.lanes, groups = sums[0].groups();
  double all[kLanes] = {1, 1, 1, 1};  // T's weight over each lane's draws (1 past d.lanes)
  total_weights(s.row_weight, d, all);
  // Whole clusters: their weight and pair term, per group and lane.
  std::vector<KahanSum> whole(2 * groups * kLanes);
  whole_sums(s, groups, d, whole.data());
  // A cluster not drawn in a lane adds zeros there, which leave its sums' bits as they are.
  FixedGroupSums fixed(groups);
  for (size_t i = 0; i < s.fixed_row.size(); ++i)
    fixed.add(s.fixed_group[i], d.times4(s.fixed_row[i]), s.fixed_weight[i],
              s.fixed_sums.data() + i * kFixedSums);
  for (size_t l = 0; l < lanes; ++l) fixed.add_to(l, &sums[l]);
  // Cells of shared actual clusters: their draws, read in order of place (the draws of
  // millions of clusters do not fit in a cache, their cells' do), every lane's together.
  const size_t cells = s.by_place.size();
  thread_local std::vector<double> drawn;  // cell x's lanes from x·kLanes
  drawn.resize(cells * kLanes);
  for (size_t i = 0; i < cells; ++i)
    detail::store4(&drawn[s.by_place[i] * kLanes], d.times4(s.place[i]));
  // An actual cluster at a time: its weight over the clusters drawn, then each cell's
  // metrics, once for all its entries; every lane at once, each lane's arithmetic the
  // one-resample code's.
  const double scale = r.scale;
  const Lanes4 total = detail::load4(all);
  SharedCellSums shared(sums, lanes);
  Lanes4 m[detail::kPointwiseMetrics], v[kSums];
  for (size_t j = 0; j + 1 < s.col_start.size(); ++j) {
    Lanes4 col_sum = {0, 0, 0, 0}, col_comp = {0, 0, 0, 0};
    for (size_t x = s.col_start[j]; x < s.col_start[j + 1]; ++x)
      detail::neumaier_add4(col_sum, col_comp,
                            detail::load4(&drawn[x * kLanes]) * s.cell_weight[x]);
    const Lanes4 col_weight = col_sum + col_comp;
    for (size_t x = s.col_start[j]; x < s.col_start[j + 1]; ++x) {
      const Lanes4 k = detail::load4(&drawn[x * kLanes]);
      const LaneMask4 counted = k != 0;  // a cell not drawn adds nothing to its lane
      if (!(counted[0] | counted[1] | counted[2] | counted[3])) continue;
      // The item's actual cluster holds one copy of its own truth cluster's items.
      const double tp = s.cell_weight[x], wr = s.cell_row_weight[x];
      const Lanes4 actual = col_weight - (k - 1.0) * tp;
      detail::pointwise_rows<Lanes4>({splat(tp), splat(wr), actual, splat(wr - tp), actual - tp},
                                     total, m);
      for (size_t e = s.entry_start[x]; e < s.entry_start[x + 1]; ++e) {
        const double w = s.weight[e];
        for (int y = 0; y < detail::kPointwiseMetrics; ++y) v[y] = m[y] * w;
        v[Column::kAccuracy] = w * ((actual - tp) + (wr - tp));
        const detail::PairTermsOf<Lanes4> t = detail::cell_pair_terms<Lanes4>(
            splat(w * scale), splat(s.weight_sq[e]), splat(tp), actual, splat(wr), scale);
        v[kTogether] = t.together, v[kTogether + 1] = t.actual, v[kTogether + 2] = t.truth;
        shared.add(s.group[e], k, counted, w, v);
      }
    }
  }
  shared.put_back();
  for (size_t g = 0; g < groups; ++g)
    for (size_t l = 0; l < lanes; ++l) {
      const KahanSum &w = whole[2 * (g * kLanes + l)], &pairs = whole[2 * (g * kLanes + l) + 1];
      const double total = all[l];
      sums[l].add_weight(g, w);
      for (size_t x : {Column::kPrecision, Column::kRecall, Column::kF1, Column::kJaccardIndex})
        sums[l].add_to(g, x, w);
      for (size_t x = kTogether; x < kSums; ++x) sums[l].add_to(g, x, pairs);
      // Σw·accuracy = Σw·(total − fp − fn) / total.
      sums[l].set(g, Column::kAccuracy,
                  [&](double weight, double off) { return weight - off / total; });
    }
}

}  // namespace clusterscore::intervals_detail
