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

// Per group, fixed cells' weights and sums over a resample (compensated), and what they
// add to the group's kSums.
class FixedGroupSums {
 public:
  explicit FixedGroupSums(size_t groups)
      : w_(groups), sum_(groups * kFixedSums, 0.0), comp_(groups * kFixedSums, 0.0) {}
  [[gnu::always_inline]] void add(size_t g, double k, double weight, const double* values) {
    w_[g].add(k * weight);
    detail::neumaier_add_scaled(sum_.data() + g * kFixedSums, comp_.data() + g * kFixedSums, k,
                                values, kFixedSums);
  }
  void add_to(GroupSums* sums) const {
    for (size_t g = 0; g < w_.size(); ++g) {
      const auto at = [&](size_t x) {
        return KahanSum{sum_[g * kFixedSums + x], comp_[g * kFixedSums + x]};
      };
      sums->add_weight(g, w_[g]);
      sums->add_to(g, Column::kPrecision, w_[g]);
      sums->add_to(g, Column::kRecall, at(kRecall));
      sums->add_to(g, Column::kJaccardIndex, at(kRecall));
      sums->add_to(g, Column::kF1, at(kF1));
      sums->add_to(g, Column::kAccuracy, at(kMissed));
      sums->add_to(g, Column::kJaccardDistance, at(kDistance));
      sums->add_to(g, Column::kUnderMergeRate, at(kUnder));
      sums->add_to(g, kTogether, at(kTogetherPairs));
      sums->add_to(g, kTogether + 1, at(kTogetherPairs));
      sums->add_to(g, kTogether + 2, at(kTruthPairs));
    }
  }

 private:
  std::vector<KahanSum> w_;
  std::vector<double> sum_, comp_;
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

// Whole clusters' entries (in order of cluster) moved group by group, each group's padded
// with zeros to a multiple of four.
void by_group(size_t groups, const std::vector<uint32_t>& group, SplitCells* s) {
  s->whole_start.assign(groups + 1, 0);
  for (uint32_t g : group) ++s->whole_start[g + 1];
  for (size_t g = 0; g < groups; ++g)
    s->whole_start[g + 1] = s->whole_start[g] + (s->whole_start[g + 1] + 3) / 4 * 4;
  std::vector<uint32_t> row(s->whole_start.back(), 0);
  std::vector<double> weight(row.size(), 0.0), pairs(row.size(), 0.0);
  std::vector<size_t> at(s->whole_start.begin(), s->whole_start.end() - 1);
  for (size_t i = 0; i < group.size(); ++i) {
    const size_t to = at[group[i]]++;
    row[to] = s->whole_row[i], weight[to] = s->whole_weight[i], pairs[to] = s->whole_pairs[i];
  }
  s->whole_row = std::move(row);
  s->whole_weight = std::move(weight);
  s->whole_pairs = std::move(pairs);
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
  std::vector<uint32_t> whole_group;
  std::vector<double> comp;
  size_t row_first = 0;
  uint32_t last = kNone;
  for (size_t e : by_place) {
    const uint32_t k = r.cell[e], row = r.row[k], p = place(row);
    if (row_cells[row] == 1) {
      const double tp = r.cell_weight[k], w = r.weight[e];
      out.whole_row.push_back(p);
      whole_group.push_back(r.group[e]);
      out.whole_weight.push_back(w);
      out.whole_pairs.push_back(
          detail::cell_pair_terms(w * r.scale, r.weight_sq[e], tp, tp, tp, r.scale).together);
      continue;
    }
    if (p != last) row_first = out.fixed_row.size(), last = p;
    add_fixed(r, e, p, row_first, &out, &comp);
  }
  by_group(r.n_groups, whole_group, &out);
  constexpr size_t n = kFixedSums;
  for (size_t at = 0; at < out.fixed_row.size(); ++at) {
    out.fixed_weight[at] += comp[at * (n + 1) + n];
    for (size_t x = 0; x < n; ++x) out.fixed_sums[at * n + x] += comp[at * (n + 1) + x];
  }
  return out;
}

// Four draw counts (null: 1 each) as doubles.
[[gnu::always_inline]] inline detail::Lanes4 counts4(const uint32_t* n, const uint32_t* at) {
  if (!n) return detail::Lanes4{1, 1, 1, 1};
  return detail::Lanes4{double(n[at[0]]), double(n[at[1]]), double(n[at[2]]), double(n[at[3]])};
}

// Σ_p n[p]·weight[p] (n null: all 1), in four lanes (detail::LaneSum).
CLUSTERSCORE_SIMD_CLONES
KahanSum total_weight(const std::vector<double>& weight, const uint32_t* n) {
  detail::LaneSum sum;
  const size_t size = weight.size(), body = size - size % 4;
  for (size_t p = 0; p < body; p += 4) {
    const detail::Lanes4 k =
        n ? detail::Lanes4{double(n[p]), double(n[p + 1]), double(n[p + 2]), double(n[p + 3])}
          : detail::Lanes4{1, 1, 1, 1};
    sum.add(k * detail::load4(weight.data() + p));
  }
  detail::Lanes4 tail = {0, 0, 0, 0};
  for (size_t p = body; p < size; ++p) tail[p - body] = (n ? double(n[p]) : 1.0) * weight[p];
  sum.add(tail);
  return sum.value();
}

// Group g's whole clusters: Σ n·W into *weight and Σ n·pair term into *pairs, in
// four lanes. A cluster not drawn adds zeros, cheaper than a branch that guesses wrong a
// third of the time.
CLUSTERSCORE_SIMD_CLONES
void whole_sums(const SplitCells& s, size_t g, const uint32_t* n, KahanSum* weight,
                KahanSum* pairs) {
  detail::LaneSum w, p;
  for (size_t i = s.whole_start[g]; i < s.whole_start[g + 1]; i += 4) {
    const detail::Lanes4 k = counts4(n, s.whole_row.data() + i);
    w.add(k * detail::load4(s.whole_weight.data() + i));
    p.add(k * detail::load4(s.whole_pairs.data() + i));
  }
  *weight = w.value();
  *pairs = p.value();
}

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

void RecomputedCells::compute(const uint32_t* n, std::vector<double>* out) const {
  estimates_of_runs(layout_, groups(), runs_.size(), out,
                    [&](size_t run, GroupSums* sums) { add_run(run, n, sums); });
}

CLUSTERSCORE_SIMD_CLONES
void RecomputedCells::add_run(size_t run, const uint32_t* n, GroupSums* sums) const {
  const CellSums& r = runs_[run];
  const SplitCells& s = split_[run];
  const auto times = [&](uint32_t p) { return n ? double(n[p]) : 1.0; };
  const double all = total_weight(s.row_weight, n).value();  // T's, over the draws
  // Whole clusters: their weight and pair term, per group.
  std::vector<KahanSum> whole(2 * sums->groups());
  for (size_t g = 0; g < sums->groups(); ++g) whole_sums(s, g, n, &whole[2 * g], &whole[2 * g + 1]);
  FixedGroupSums fixed(sums->groups());
  for (size_t i = 0; i < s.fixed_row.size(); ++i) {
    const double k = times(s.fixed_row[i]);
    if (k != 0)
      fixed.add(s.fixed_group[i], k, s.fixed_weight[i], s.fixed_sums.data() + i * kFixedSums);
  }
  fixed.add_to(sums);
  // Cells of shared actual clusters: their draws, read in order of place (the draws of
  // millions of clusters do not fit in a cache, their cells' do).
  thread_local std::vector<double> drawn;
  drawn.resize(s.by_place.size());
  for (size_t i = 0; i < s.by_place.size(); ++i) drawn[s.by_place[i]] = times(s.place[i]);
  // An actual cluster at a time: its weight over the clusters drawn, then each cell's
  // metrics, once for all its entries.
  const double scale = r.scale;
  double m[detail::kPointwiseMetrics], v[kSums];
  for (size_t j = 0; j + 1 < s.col_start.size(); ++j) {
    KahanSum col;
    for (size_t x = s.col_start[j]; x < s.col_start[j + 1]; ++x)
      col.add(drawn[x] * s.cell_weight[x]);
    const double col_weight = col.value();
    for (size_t x = s.col_start[j]; x < s.col_start[j + 1]; ++x) {
      const double k = drawn[x];
      if (k == 0) continue;
      // The item's actual cluster holds one copy of its own truth cluster's items.
      const double tp = s.cell_weight[x], wr = s.cell_row_weight[x];
      const double actual = col_weight - (k - 1) * tp;
      detail::pointwise_row({tp, wr, actual, wr - tp, actual - tp}, all, m);
      for (size_t e = s.entry_start[x]; e < s.entry_start[x + 1]; ++e) {
        const double w = s.weight[e];
        for (int y = 0; y < detail::kPointwiseMetrics; ++y) v[y] = m[y] * w;
        v[Column::kAccuracy] = w * ((actual - tp) + (wr - tp));
        const detail::PairTerms t =
            detail::cell_pair_terms(w * scale, s.weight_sq[e], tp, actual, wr, scale);
        v[kTogether] = t.together, v[kTogether + 1] = t.actual, v[kTogether + 2] = t.truth;
        sums->add(s.group[e], k, w, v);
      }
    }
  }
  for (size_t g = 0; g < sums->groups(); ++g) {
    const KahanSum &w = whole[2 * g], &pairs = whole[2 * g + 1];
    sums->add_weight(g, w);
    for (size_t x : {Column::kPrecision, Column::kRecall, Column::kF1, Column::kJaccardIndex})
      sums->add_to(g, x, w);
    for (size_t x = kTogether; x < kSums; ++x) sums->add_to(g, x, pairs);
    // Σw·accuracy = Σw·(total − fp − fn) / total.
    sums->set(g, Column::kAccuracy, [&](double weight, double off) { return weight - off / all; });
  }
}

}  // namespace clusterscore::intervals_detail
