#include "comparison/comparison.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "clusterscore/error.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/weight.h"
#include "input/intern_column.h"
#include "input/interner.h"
#include "metrics/design_weight.h"
#include "metrics/pointwise.h"

namespace clusterscore {
namespace {

[[noreturn]] void no_common_items(const JoinedClusterings& j) {
  throw InputError("", -1,
                   "no item is in both " + j.role_a + " (" + std::to_string(j.a_rows) +
                       " items) and " + j.role_b + " (" + std::to_string(j.b_rows) +
                       " items): item ids must match exactly, including their type");
}

// Per items-table row, a dense code of the tuple of values in `columns` (nulls are a
// value of their own); `first_row` receives a row holding each code's values.
BigVector<uint32_t> tuple_codes(const std::vector<IdColumn>& columns, size_t rows,
                                std::vector<uint32_t>* first_row) {
  BigVector<uint64_t> first;
  BigVector<uint32_t> codes =
      columns.empty() ? BigVector<uint32_t>(rows, 0) : detail::intern_column(columns[0], &first);
  if (columns.empty() && rows > 0) first.push_back(0);
  for (size_t c = 1; c < columns.size(); ++c) {
    BigVector<uint64_t> unused;
    const BigVector<uint32_t> values = detail::intern_column(columns[c], &unused);
    detail::Interner tuples(false, 1024);
    first.clear();
    for (size_t r = 0; r < rows; ++r) {
      auto [code, inserted] = tuples.insert_key((uint64_t(codes[r]) << 32) | values[r]);
      if (inserted) first.push_back(r);
      codes[r] = code;
    }
  }
  first_row->assign(first.begin(), first.end());
  return codes;
}

template <class T>
BigVector<T> narrow(const BigVector<uint32_t>& codes) {
  BigVector<T> out(codes.size());
  detail::parallel_ranges(codes.size(), [&](size_t begin, size_t end) {
    std::copy(codes.begin() + begin, codes.begin() + end, out.begin() + begin);
  });
  return out;
}

// The code of the tuple whose values are all null, or `none` if no row has it.
uint32_t all_null_code(const std::vector<IdColumn>& columns, const std::vector<uint32_t>& group_row,
                       uint32_t none) {
  for (size_t code = 0; code < group_row.size(); ++code)
    if (std::all_of(columns.begin(), columns.end(),
                    [&](const IdColumn& c) { return c.is_null(group_row[code]); }))
      return uint32_t(code);
  return none;
}

// Sets each common item's group to its items-table row's code (`no_row` for an item with
// no row); returns whether any item had no row. `T` must hold every code in `codes`
// (`no_row` may be n_groups, which goes only into the 32-bit item_group). Common items are
// those with a cell: one array read, where j.in_both() reads two.
template <class T>
bool gather_codes(const JoinedClusterings& j, const BigVector<uint32_t>& cell_of_item,
                  const BigVector<T>& codes, uint32_t no_row, ItemGrouping* g) {
  // Each item written once below (kNone if it has no cell), not filled first.
  g->item_group.clear();
  g->item_group.resize(j.n_items());
  uint32_t* const group = g->item_group.data();
  std::atomic<bool> missing = false;
  // The loop does so little per item that codes must be fetched four times the usual
  // distance ahead to keep enough misses in flight.
  constexpr size_t ahead = 4 * detail::kPrefetch;
  const size_t n = j.n_items();
  detail::parallel_ranges(n, [&](size_t begin, size_t end) {
    bool none = false;
    for (size_t i = begin; i < end; ++i) {
      // The arrays read in order too: their streams are interleaved with misses at random.
      detail::prefetch_stream(cell_of_item.data(), i);
      detail::prefetch_stream(j.items_row.data(), i);
      // Only for items with a cell: with a small truth, most items have none.
      if (i + ahead < n && cell_of_item[i + ahead] != kNone && j.items_row[i + ahead] != kNone)
        detail::prefetch(&codes[j.items_row[i + ahead]]);
      if (cell_of_item[i] == kNone) {
        group[i] = kNone;
        continue;
      }
      const uint32_t row = j.items_row[i];
      none |= row == kNone;
      group[i] = row == kNone ? no_row : uint32_t(codes[row]);
    }
    if (none) missing = true;
  });
  return missing;
}

}  // namespace

const FamilyKernel& family_kernel(MetricFamily family) {
  static const FamilyKernel pointwise{
      pointwise_cells, pointwise_cell_counts, {}, add_pointwise_derived, true};
  static const FamilyKernel impact{
      [](const CellTable& c, const ActualMarginals&) { return impact_cells(c); },
      [](const CellTable& c, const ActualMarginals&) { return impact_cell_sizes(c); },
      {{kImpactRename.first, kImpactRename.second}},
      add_impact_derived,
      false};
  return family == MetricFamily::kPointwise ? pointwise : impact;
}

Comparison::Comparison(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items,
                       MetricFamily family, TruthScope scope)
    : family_(family), scope_(scope), joined_(join(a, b, items)) {
  const FamilyKernel& f = family_kernel(family);
  // Squared weights for the pair metrics' sums over cells; classic() counts.
  detail::poll_interrupt();
  cells_ =
      build_cells(joined_, &cell_of_item_, f.pairs ? WeightSquares::kSum : WeightSquares::kSkip);
  if (cells_.total_count == 0) no_common_items(joined_);
  detail::poll_interrupt();
  if (f.pairs && scope == TruthScope::kEntities) whole_actual_clusters();
  metrics_ = f.cell_metrics(cells_, marginals());
  if (f.pairs) {
    pair_cells_ = pair_cells(cells_, marginals(), design_);
    pair_cells_ok_ = pair_sums_by_cell(cells_, marginals());
  }
}

void Comparison::whole_actual_clusters() {
  // The common items' part is each column's weight over T; the rest are the items only in
  // B, which the join numbers last (JoinedClusterings): an A row with a B cluster is common.
  std::vector<detail::KahanSum> w(cells_.n_cols);
  for (size_t c = 0; c < w.size(); ++c) w[c] = {cells_.col_weight[c], 0.0};
  detail::KahanSum total{cells_.total_weight, 0.0};
  for (size_t i = joined_.a_rows; i < joined_.n_items(); ++i) {
    detail::poll_every(i);
    w[joined_.b_cluster[i]].add(joined_.weight[i]);
    total.add(joined_.weight[i]);
  }
  actual_weight_.reserve(w.size());
  for (const detail::KahanSum& s : w) actual_weight_.push_back(s.value());
  actual_total_ = total.value();
}

ActualMarginals Comparison::marginals() const {
  if (scope_ == TruthScope::kEntities) return {actual_weight_, actual_total_};
  return common_marginals(cells_);
}

void Comparison::check_design(const std::vector<double>& design) const {
  if (!design.empty() && design.size() != joined_.n_a_clusters())
    throw std::invalid_argument("clusterscore: one design weight per " + joined_.role_a +
                                " cluster is needed");
  for (double d : design)
    if (!detail::is_weight(d))
      throw std::invalid_argument("clusterscore: design weights must be finite and > 0");
}

void Comparison::set_design(std::vector<double> design) {
  check_design(design);
  // No design before and none now (the usual call): the pair inputs stand as built.
  const bool same = design_.empty() && design.empty();
  design_ = std::move(design);
  if (family_kernel(family_).pairs && !same) pair_cells_ = pair_cells(cells_, marginals(), design_);
}

std::vector<double> inverse_size_design(const JoinedClusterings& j) {
  std::vector<uint64_t> size(j.n_a_clusters(), 0);
  for (size_t i = 0; i < j.a_rows; ++i) size[j.a_cluster[i]] += j.count_of(i);
  std::vector<double> d(size.size());
  for (size_t c = 0; c < size.size(); ++c) d[c] = detail::inverse_size_weight(size[c]);
  return d;
}

namespace {

// Per A cluster, its items in A and their weight in T; and the population's items.
struct TruthSizes {
  std::vector<uint64_t> size;
  std::vector<double> weight;
  uint64_t items = 0;
};
TruthSizes truth_sizes(const JoinedClusterings& j, const std::vector<double>& design) {
  const size_t n = j.n_a_clusters();
  if (n == 0 || (!design.empty() && design.size() != n))
    throw std::invalid_argument(
        "clusterscore: the sampled share needs a design weight per cluster");
  TruthSizes t{std::vector<uint64_t>(n, 0), std::vector<double>(n, 0.0), 0};
  for (size_t i = 0; i < j.n_items(); ++i) {
    t.items += j.count_of(i);
    if (j.a_cluster[i] == kNone) continue;
    t.size[j.a_cluster[i]] += j.count_of(i);
    t.weight[j.a_cluster[i]] += j.weight[i];
  }
  return t;
}

std::vector<double> inclusion_of(const TruthSizes& t, const std::vector<double>& design,
                                 bool inverse_probabilities) {
  const auto d = [&](size_t c) { return design.empty() ? 1.0 : design[c]; };
  // π_c = scale / d_c: the weights as given, or scaled to estimate the population's items.
  double scale = 1.0;
  if (!inverse_probabilities) {
    detail::KahanSum sized;
    for (size_t c = 0; c < t.size.size(); ++c) sized.add(d(c) * double(t.size[c]));
    scale = sized.value() / double(t.items);
  }
  std::vector<double> pi(t.size.size());
  for (size_t c = 0; c < pi.size(); ++c) {
    const double p = scale / d(c);
    pi[c] = std::isfinite(p) ? std::clamp(p, 0.0, 1.0) : 0.0;
  }
  return pi;
}

// The mean of π_c weighted by (d_c·w(c)^power)²: power 1 for the means' terms, 2 for the
// pair sums', which a cluster holds in proportion to its squared weight. The weights are
// scaled by a power of two near the largest's inverse (exactly: the same ratio), so that
// their fourth powers neither overflow nor all underflow.
double share_of(const TruthSizes& t, const std::vector<double>& design,
                const std::vector<double>& pi, int power = 1) {
  double largest = 0;
  for (double w : t.weight) largest = std::max(largest, w);
  const int shift = largest > 0 && std::isfinite(largest) ? -std::ilogb(largest) : 0;
  detail::KahanSum num, den;
  for (size_t c = 0; c < pi.size(); ++c) {
    const double w = std::ldexp(t.weight[c], shift);
    const double term = (design.empty() ? 1.0 : design[c]) * (power == 2 ? w * w : w);
    num.add(pi[c] * term * term);
    den.add(term * term);
  }
  const double f = num.value() / den.value();
  return std::isfinite(f) ? std::clamp(f, 0.0, 1.0) : 0.0;
}

}  // namespace

std::vector<double> inclusion_probabilities(const JoinedClusterings& j,
                                            const std::vector<double>& design,
                                            bool inverse_probabilities) {
  return inclusion_of(truth_sizes(j, design), design, inverse_probabilities);
}

double sampled_share(const JoinedClusterings& j, const std::vector<double>& design,
                     bool inverse_probabilities) {
  const TruthSizes t = truth_sizes(j, design);
  return share_of(t, design, inclusion_of(t, design, inverse_probabilities));
}

double Comparison::use_design(const Design& d) {
  const bool given = d.kind == DesignKind::kGiven;
  std::vector<double> design = given                                ? d.given
                               : d.kind == DesignKind::kInverseSize ? inverse_size_design(joined_)
                                                                    : std::vector<double>{};
  if (given) check_design(design);
  inclusion_.clear();
  sampled_share_ = pair_share_ = 0;
  if (scope_ == TruthScope::kEntities || given) {
    const TruthSizes t = truth_sizes(joined_, design);
    inclusion_ = inclusion_of(t, design, given);
    sampled_share_ = share_of(t, design, inclusion_);
    pair_share_ = share_of(t, design, inclusion_, 2);
  }
  if (scope_ == TruthScope::kCommon) design.clear();
  if (d.per_entity) {
    // d_c / w(c ∩ T) where c holds common items; d_c (weighing nothing) elsewhere.
    const GroupTable by_truth = by_cluster(Side::kA);
    std::vector<double> w(joined_.n_a_clusters(), 0.0);
    for (size_t g = 0; g < by_truth.size(); ++g) w[by_truth.group[g]] = by_truth.weight[g];
    if (design.empty()) design.assign(w.size(), 1.0);
    for (size_t c = 0; c < w.size(); ++c) design[c] = detail::per_entity_weight(design[c], w[c]);
  }
  set_design(std::move(design));
  return sampled_share_;
}

MetricTable Comparison::cell_counts() const {
  return family_kernel(family_).cell_counts(cells_, marginals());
}

GroupTable Comparison::aggregate_units(const Units& u, size_t n_groups) const {
  const FamilyKernel& f = family_kernel(family_);
  if (!f.pairs) {
    GroupTable t = aggregate(metrics_, u, n_groups, f.rename);
    f.add_derived(&t);
    return t;
  }
  const bool over_cells = u.cell.empty();
  if (over_cells && !pair_cells_ok_) {
    // Weights too large or small to square: each item, in its cell's group.
    BigVector<uint32_t> group(joined_.n_items());
    for (size_t i = 0; i < group.size(); ++i)
      group[i] = cell_of_item_[i] == kNone ? kNone : u.group[cell_of_item_[i]];
    return aggregate_units(item_units(group), n_groups);
  }
  Units with_squares = u;
  if (over_cells) with_squares.weight_sq = cells_.weight_sq;
  const PairInputs pairs{pair_cells_, over_cells, over_cells ? 1.0 : pair_scale(cells_)};
  GroupTable t = aggregate(metrics_, with_squares, n_groups, f.rename, &pairs);
  const PairSumColumns sums = take_pair_sums(&t);
  f.add_derived(&t);
  add_pair_metrics(&t, sums);
  return t;
}

GroupTable Comparison::aggregate_cells(std::span<const uint32_t> group, size_t n_groups) const {
  return aggregate_units(Units{{}, group, cells_.weight, cells_.count, {}}, n_groups);
}

GroupTable Comparison::overall() const {
  const BigVector<uint32_t> zero(cells_.size(), 0);  // from cached blocks: no page faults
  return aggregate_cells(zero, 1);
}

GroupTable Comparison::by_cluster(Side side) const {
  return side == Side::kA ? aggregate_cells(cells_.row, cells_.n_rows)
                          : aggregate_cells(cells_.col, cells_.n_cols);
}

Units Comparison::item_units(std::span<const uint32_t> group) const {
  return Units{cell_of_item_, group, joined_.weight, joined_.count, joined_.weight_sq};
}

GroupTable Comparison::by_items(const ItemGrouping& g) const {
  if (g.item_group.size() != joined_.n_items())
    throw std::invalid_argument("clusterscore: item grouping of the wrong length");
  return aggregate_units(item_units(g.item_group), g.n_groups);
}

ItemGrouping Comparison::group_items(const std::vector<IdColumn>& columns) const {
  const JoinedClusterings& j = joined_;
  if (j.items_row.empty()) throw InputError("items", -1, "slices need an items table");
  for (const IdColumn& c : columns)
    if (c.size != j.items_table_rows)
      throw std::invalid_argument("clusterscore: slice column length differs from items table");
  ItemGrouping g;
  const BigVector<uint32_t> codes = tuple_codes(columns, j.items_table_rows, &g.group_row);
  g.n_groups = g.group_row.size();
  // An item with no row has every value null: it joins the rows whose values are all
  // null, or else a group of its own (whose group_row is kNone).
  const uint32_t no_row = all_null_code(columns, g.group_row, uint32_t(g.n_groups));
  // Items reach their codes at random: in one byte (the usual few slice values) the codes
  // of 1e7 rows fit in the last-level cache, in four they do not.
  const auto& c = cell_of_item_;
  const bool missing = g.n_groups < 255 ? gather_codes(j, c, narrow<uint8_t>(codes), no_row, &g)
                       : g.n_groups < 65535
                           ? gather_codes(j, c, narrow<uint16_t>(codes), no_row, &g)
                           : gather_codes(j, c, codes, no_row, &g);
  if (missing && no_row == g.n_groups) {
    g.group_row.push_back(kNone);
    ++g.n_groups;
  }
  return heaviest_first(std::move(g));
}

ItemGrouping Comparison::heaviest_first(ItemGrouping g) const {
  const GroupTable sums = aggregate_totals(MetricTable{}, item_units(g.item_group), g.n_groups);
  std::vector<double> weight(g.n_groups, 0.0);  // a group without common items weighs 0
  for (size_t k = 0; k < sums.size(); ++k) weight[sums.group[k]] = sums.weight[k];
  // The group of items without a row (group_row kNone) stays last: the other groups are
  // the items table's and the same in every comparison with it, so that runs compared
  // by one truth can take one order (comparisons differ only in whether that group is).
  const size_t rows = g.n_groups - (!g.group_row.empty() && g.group_row.back() == kNone);
  std::vector<uint32_t> order(g.n_groups);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.begin() + ptrdiff_t(rows),
                   [&](uint32_t a, uint32_t b) { return weight[a] > weight[b]; });
  if (std::is_sorted(order.begin(), order.end())) return g;
  return keep_groups(g, order);
}

ItemGrouping keep_groups(const ItemGrouping& g, const std::vector<uint32_t>& keep) {
  std::vector<uint32_t> to(g.n_groups, kNone);
  ItemGrouping out;
  for (uint32_t k : keep) {
    if (k >= g.n_groups || to[k] != kNone)
      throw std::invalid_argument("clusterscore: groups to keep must be distinct groups");
    to[k] = uint32_t(out.group_row.size());
    out.group_row.push_back(g.group_row[k]);
  }
  out.n_groups = out.group_row.size();
  out.item_group = BigVector<uint32_t>(g.item_group.size());
  for (size_t i = 0; i < g.item_group.size(); ++i) {
    const uint32_t x = g.item_group[i];
    out.item_group[i] = x == kNone ? kNone : to[x];
  }
  return out;
}

Coverage Comparison::coverage() const {
  const JoinedClusterings& j = joined_;
  Coverage c;
  // The common items' weight is the cells' total (a compensated sum of the same weights,
  // cell by cell, and the one every metric divides by); only items on one side are added
  // here, rather than five compensated sums for every item. Items are A's
  // rows, then the items only in B (JoinedClusterings): an A row is only in A if it has
  // no B cluster, so A's cluster indices need not be read.
  detail::KahanSum ao, bo;
  // The common items are A's rows with a B cluster: when they are all of A's rows, there
  // is nothing to look for.
  if (j.units() || cells_.total_count < j.a_rows)
    for (size_t i = 0; i < j.a_rows; ++i)
      if (j.b_cluster[i] == kNone) ao.add(j.weight[i]), c.a_only_items += j.count_of(i);
  for (size_t i = j.a_rows; i < j.n_items(); ++i)
    bo.add(j.weight[i]), c.b_only_items += j.count_of(i);
  detail::KahanSum a{cells_.total_weight, 0.0}, b{cells_.total_weight, 0.0};
  a.add(ao);
  b.add(bo);
  // A unit is several items: the sides' items are counted, not their rows.
  c.a_items = j.units() ? cells_.total_count + c.a_only_items : j.a_rows;
  c.b_items = j.units() ? cells_.total_count + c.b_only_items : j.b_rows;
  c.common_items = cells_.total_count;
  c.a_weight = a.value();
  c.b_weight = b.value();
  c.common_weight = cells_.total_weight;
  c.a_only_weight = ao.value();
  c.b_only_weight = bo.value();
  c.a_clusters = j.n_a_clusters();
  c.b_clusters = j.n_b_clusters();
  for (uint64_t n : cells_.row_count) c.a_clusters_common += n > 0;
  for (uint64_t n : cells_.col_count) c.b_clusters_common += n > 0;
  c.items_table_rows = j.items_table_rows;
  c.items_table_unmatched = j.items_table_unmatched;
  return c;
}

ImpactSummary Comparison::impact() const {
  if (family_ != MetricFamily::kImpact)
    throw std::logic_error("clusterscore: impact() on a pointwise comparison");
  return impact_summary(cells_, metrics_);
}

std::vector<uint32_t> Comparison::items_rows(std::span<const uint32_t> items) const {
  std::vector<uint32_t> rows(items.size(), kNone);
  for (size_t n = 0; n < items.size(); ++n) {
    if (items[n] >= joined_.n_items()) throw std::out_of_range("clusterscore: item index");
    if (!joined_.items_row.empty()) rows[n] = joined_.items_row[items[n]];
  }
  return rows;
}

ClusterFlows Comparison::flows() const {
  if (family_ != MetricFamily::kImpact)
    throw std::logic_error("clusterscore: flows() on a pointwise comparison");
  ClusterFlows f{changed_flows(cells_), {}, {}};
  f.a_cluster_row.resize(f.flows.row.size());
  f.b_cluster_row.resize(f.flows.col.size());
  for (size_t n = 0; n < f.flows.row.size(); ++n) {
    f.a_cluster_row[n] = joined_.a_cluster_first_row[f.flows.row[n]];
    f.b_cluster_row[n] = joined_.b_cluster_first_row[f.flows.col[n]];
  }
  return f;
}

BigVector<uint32_t> Comparison::common_items() const {
  BigVector<uint32_t> out;
  // A unit stands for several items: there are at most as many as joined rows.
  out.reserve(std::min<size_t>(cells_.total_count, joined_.n_items()));
  for (size_t i = 0; i < joined_.n_items(); ++i)
    if (cell_of_item_[i] != kNone) out.push_back(uint32_t(i));
  return out;
}

}  // namespace clusterscore
