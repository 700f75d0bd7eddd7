#include "levels/aggregate.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <type_traits>

#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/lanes.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/radix_partition.h"
#include "detail/simd.h"
#include "detail/stretches.h"
#include "input/clustering.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore {
namespace {

// Per-group accumulators that fit in L2 are updated in place; beyond that, units are
// partitioned by ranges of groups whose accumulators fit, and each partition is summed in
// place: millions of accumulator sets updated at random would miss the cache every time.
constexpr size_t kInPlaceBytes = size_t(1) << 20;
using detail::kPrefetch;
// The in-place loop does so little per unit that its metric-row prefetches must be issued
// further ahead to keep enough misses in flight (further still was no better).
constexpr size_t kGatherAhead = 2 * kPrefetch;

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

// A unit as the partitioned path carries it: 16 bytes, or 32 with an item count (a size
// that divides a cache line, so that detail::LineScatter buffers one line per stream).
struct WeightedUnit {
  double weight;
  uint32_t cell, group;
};
struct alignas(32) CountedUnit {
  double weight;
  uint64_t count;
  uint32_t cell, group;
};
template <class Rec>
concept Counted = requires(Rec r) { r.count; };

// Sizes the output table for `rows` rows, for Outputs to fill.
void size_output(GroupTable* out, size_t rows) {
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

using detail::stretch_units;
using detail::UnitStretches;

// The runs path's stretches: unit ranges [begin[p], begin[p + 1]) holding groups[p] whole
// groups.
struct Stretches {
  std::vector<size_t> begin, groups;
};

// The number of bits set in bits [lo, hi) of `words`.
size_t count_bits(const std::vector<uint64_t>& words, size_t lo, size_t hi) {
  size_t n = 0;
  for (size_t i = lo; i < hi;) {
    if (i % 64 == 0 && i + 64 <= hi) {
      n += size_t(std::popcount(words[i / 64]));
      i += 64;
    } else {
      n += (words[i / 64] >> (i % 64)) & 1;
      ++i;
    }
  }
  return n;
}

template <class Sums>
class Aggregator {
 public:
  // totals: each group's sums, not their means (aggregate_totals()).
  Aggregator(const MetricTable& per_cell, const Units& units, bool totals)
      : m_(per_cell), u_(units), k_(per_cell.width()), totals_(totals) {}

  uint32_t cell(size_t u) const { return u_.cell.empty() ? uint32_t(u) : u_.cell[u]; }
  bool skip(size_t u) const { return u_.group[u] == kNone || cell(u) == kNone; }
  // Both prefetchers must be inlined: GCC deems a function whose only effect is a
  // prefetch pure and deletes calls to it (so none of this ran before they were).
  [[gnu::always_inline]] void prefetch(size_t u) const {
    if (u < u_.group.size() && !skip(u)) prefetch_unit(u);
  }
  // What add(u) reads at random, when units come in order: the unit's metric row (one
  // line in big tables, whose rows are 64-byte aligned, unless wider than 8 values). Its
  // weight and count are read in order, which the hardware prefetches already.
  [[gnu::always_inline]] void prefetch_unit(size_t u) const {
    const double* row = m_.row(cell(u));
    detail::prefetch(row);
    if (k_ > 8) detail::prefetch(row + k_ - 1);
  }
  void add(size_t u, Sums* s) const {
    const double w = u_.weight[u];
    s->count += u_.count.empty() ? 1 : u_.count[u];
    s->weight.add(w);
    s->add_metrics(w, m_.row(cell(u)));
  }
  void emit(uint32_t g, const Sums& s, Output* out) const {
    if (s.count == 0) return;
    const double w = s.weight.value();
    // A division by 1 is exact: the totals are the sums' own values.
    s.means(totals_ ? 1.0 : w, k_, out->add(g, s.count, w), Output::kStage);
  }

  // Few groups: each stretch of units (stretch_units()) is summed into sums of its own,
  // on any thread, and the stretches' sums are added up in order.
  void in_place(size_t n_groups, GroupTable* out) const {
    const UnitStretches st(u_.group.size());
    std::vector<std::vector<Sums>> part(st.count);
    detail::parallel_for(st.count, [&](size_t, size_t p) {
      part[p].assign(n_groups, Sums(k_));
      sum_in_place(st.begin(p), st.end(p), part[p]);
    });
    std::vector<Sums>& sums = part[0];
    for (size_t p = 1; p < st.count; ++p)
      for (size_t g = 0; g < n_groups; ++g) sums[g].merge(part[p][g]);
    size_output(out, size_t(std::count_if(sums.begin(), sums.end(),
                                          [](const Sums& s) { return s.count > 0; })));
    Output o(out, 0);
    for (size_t g = 0; g < n_groups; ++g) emit(uint32_t(g), sums[g], &o);
    o.flush();
  }

  void sum_in_place(size_t begin, size_t end, std::vector<Sums>& sums) const {
    for (size_t u = begin; u < end; ++u) {
      detail::poll_every(u);
      prefetch(u + kGatherAhead);
      // And the arrays read in order (detail::prefetch_stream, whose figures are these).
      if (!u_.cell.empty()) detail::prefetch_stream(u_.cell.data(), u);
      detail::prefetch_stream(u_.group.data(), u);
      detail::prefetch_stream(u_.weight.data(), u);
      if (!skip(u)) add(u, &sums[u_.group[u]]);
    }
  }

  // Units already in non-decreasing group order (cells by row) are summed run by run;
  // skipped units may come between those of one group. Each stretch (whole groups, see
  // groups_in_order) is summed on any thread into its own rows of the output.
  void runs(const Stretches& st, GroupTable* out) const {
    const size_t stretches = st.groups.size();
    std::vector<size_t> at(stretches + 1, 0);
    for (size_t p = 0; p < stretches; ++p) at[p + 1] = at[p] + st.groups[p];
    size_output(out, at[stretches]);
    detail::parallel_for(stretches, [&](size_t, size_t p) {
      Output o(out, at[p]);
      Sums s(k_);
      uint32_t g = kNone;
      for (size_t u = st.begin[p]; u < st.begin[p + 1]; ++u) {
        detail::poll_every(u);
        prefetch(u + kPrefetch);
        if (skip(u)) continue;
        if (u_.group[u] != g) {
          if (g != kNone) emit(g, s, &o);
          g = u_.group[u];
          s.clear();
        }
        add(u, &s);
      }
      if (g != kNone) emit(g, s, &o);
      o.flush();
    });
  }

  // Units radix-partitioned by group, each partition a range of groups whose sums fit
  // in L2, and each partition then summed in place. Records carry what the sum pass
  // needs but the metric row, whose reads stay at random. A counting sort by group would
  // write every record to a random place among millions of groups; the partitions are
  // written as sequential streams (detail::LineScatter). Each group's units keep their order (the
  // scatter is stable): the same additions in the same order, the same bits.
  void partitioned(size_t n_groups, GroupTable* out) const {
    if (u_.count.empty())
      partitioned_as<WeightedUnit>(n_groups, out);
    else
      partitioned_as<CountedUnit>(n_groups, out);
  }

  // log2 of the groups per partition: as many as kInPlaceBytes of sums hold.
  unsigned group_bits() const {
    const size_t per_group = sizeof(Sums) + (std::is_same_v<Sums, Sums8> ? 0 : 16 * k_);
    unsigned bits = 0;
    while ((per_group << (bits + 1)) <= kInPlaceBytes) ++bits;
    return bits;
  }

  template <class Rec>
  void partitioned_as(size_t n_groups, GroupTable* out) const {
    const size_t n = u_.group.size();
    const unsigned bits = group_bits();
    const size_t parts = ((n_groups - 1) >> bits) + 1;
    // Each stretch of units counts, then scatters, its own units on any thread
    // (detail/radix_partition.h), so each partition holds its units in unit order.
    const UnitStretches st(n);
    const size_t stretches = st.count;
    std::vector<std::vector<size_t>> count(stretches);
    std::vector<std::vector<uint64_t>> seen(stretches);  // one bit a group: in L2
    detail::parallel_for(stretches, [&](size_t, size_t s) {
      count[s].assign(parts, 0);
      size_t* const in_part = count[s].data();
      std::vector<uint64_t>& present = seen[s];
      present.assign((n_groups + 63) / 64, 0);
      for (size_t u = st.begin(s); u < st.end(s); ++u) {
        detail::poll_every(u);
        if (skip(u)) continue;
        const uint32_t g = u_.group[u];
        ++in_part[g >> bits];
        present[g >> 6] |= uint64_t(1) << (g & 63);
      }
    });
    std::vector<uint64_t>& present = seen[0];
    for (size_t s = 1; s < stretches; ++s)
      for (size_t i = 0; i < present.size(); ++i) present[i] |= seen[s][i];
    const detail::Placement placed = detail::place(count, parts);
    const std::vector<size_t>& start = placed.start;
    BigBuffer<Rec> order(start[parts]);
    detail::scatter(order.data(), placed, [&](size_t s, auto put) {
      for (size_t u = st.begin(s); u < st.end(s); ++u) {
        detail::poll_every(u);
        if (skip(u)) continue;
        put(u_.group[u] >> bits, record<Rec>(u));
      }
    });
    // Each partition's groups, summed on any thread, fill their own rows of the output.
    std::vector<size_t> row(parts + 1, 0);
    for (size_t p = 0; p < parts; ++p)
      row[p + 1] = row[p] + count_bits(present, p << bits, std::min(n_groups, (p + 1) << bits));
    size_output(out, row[parts]);
    std::vector<std::vector<Sums>> per_worker(detail::workers_for(parts));
    detail::parallel_for(parts, [&](size_t w, size_t p) {
      std::vector<Sums>& sums = per_worker[w];
      if (sums.empty()) sums.assign(std::min(n_groups, size_t(1) << bits), Sums(k_));
      Output o(out, row[p]);
      const uint32_t base = uint32_t(p << bits);
      const size_t groups = std::min(sums.size(), n_groups - base);
      for (size_t g = 0; g < groups; ++g) sums[g].clear();
      for (size_t e = start[p]; e < start[p + 1]; ++e) {
        detail::prefetch_stream(order.data(), e);
        if (e + kPrefetch < start[parts]) detail::prefetch(m_.row(order[e + kPrefetch].cell));
        add(order[e], &sums[order[e].group - base]);
      }
      for (size_t g = 0; g < groups; ++g) emit(base + uint32_t(g), sums[g], &o);
      o.flush();
    });
  }

  template <class Rec>
  Rec record(size_t u) const {
    Rec r{};
    r.weight = u_.weight[u];
    r.cell = cell(u);
    r.group = u_.group[u];
    if constexpr (Counted<Rec>) r.count = decltype(r.count)(u_.count[u]);
    return r;
  }
  // add(u) for a sorted record: the same terms in the same order.
  template <class Rec>
  void add(const Rec& r, Sums* s) const {
    if constexpr (Counted<Rec>)
      s->count += r.count;
    else
      s->count += 1;
    s->weight.add(r.weight);
    s->add_metrics(r.weight, m_.row(r.cell));
  }

  // If group codes never decrease from one unit to the next (skipped units aside) and
  // some unit is not skipped: true, with the units cut into stretches of whole groups,
  // each starting at a new group at least stretch_units() after the last cut.
  bool groups_in_order(Stretches* st) const {
    const size_t per = stretch_units(u_.group.size());
    st->begin.assign(1, 0);
    st->groups.assign(1, 0);
    size_t total = 0;
    uint32_t last = kNone;
    for (size_t u = 0; u < u_.group.size(); ++u) {
      detail::poll_every(u);
      if (skip(u) || u_.group[u] == last) continue;
      if (last != kNone && u_.group[u] < last) return false;
      if (last != kNone && u - st->begin.back() >= per) {
        st->begin.push_back(u);
        st->groups.push_back(0);
      }
      last = u_.group[u];
      ++st->groups.back();
      ++total;
    }
    st->begin.push_back(u_.group.size());
    return total > 0;
  }

 private:
  const MetricTable& m_;
  const Units& u_;
  size_t k_;
  bool totals_;
};

template <class Sums>
[[gnu::always_inline]] inline void run(const Aggregator<Sums>& a, size_t n_groups,
                                       GroupTable* out) {
  const size_t k = out->names.size();
  Stretches st;
  if (n_groups * (k + 1) * sizeof(detail::KahanSum) <= kInPlaceBytes)
    a.in_place(n_groups, out);
  else if (a.groups_in_order(&st))
    a.runs(st, out);
  else
    a.partitioned(n_groups, out);
}

// aggregate() and aggregate_totals(): sums (totals) or means of the metrics of `per_cell`.
CLUSTERSCORE_SIMD_CLONES
GroupTable aggregate_as(const MetricTable& per_cell, const Units& units, size_t n_groups,
                        const std::vector<std::pair<std::string, std::string>>& rename,
                        bool totals) {
  const size_t n_units = units.group.size();
  if (units.weight.size() != n_units || (!units.count.empty() && units.count.size() != n_units) ||
      (!units.cell.empty() && units.cell.size() != n_units))
    throw std::invalid_argument("clusterscore: aggregate() unit arrays differ in length");
  if (n_units >= kNone) throw std::length_error("clusterscore: too many units to aggregate");
  GroupTable out;
  for (std::string name : per_cell.names) {
    for (const auto& [from, to] : rename)
      if (name == from) name = to;
    out.names.push_back(name);
  }
  out.columns.resize(out.names.size());
  // Without columns every unit reads the same empty row: a stride of 0.
  static const MetricTable kNoMetrics;
  const MetricTable& table = per_cell.width() == 0 ? kNoMetrics : per_cell;
  if (table.stride == 8)
    run(Aggregator<Sums8>(table, units, totals), n_groups, &out);
  else
    run(Aggregator<Sums>(table, units, totals), n_groups, &out);
  return out;
}

}  // namespace

GroupTable aggregate(const MetricTable& per_cell, const Units& units, size_t n_groups,
                     const std::vector<std::pair<std::string, std::string>>& rename) {
  return aggregate_as(per_cell, units, n_groups, rename, false);
}

GroupTable aggregate_totals(const MetricTable& per_cell, const Units& units, size_t n_groups) {
  return aggregate_as(per_cell, units, n_groups, {}, true);
}

}  // namespace clusterscore
