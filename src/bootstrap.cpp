#include "clusterscore/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "clusterscore/pointwise.h"
#include "detail/interner.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/lanes.h"
#include "detail/random.h"
#include "detail/simd.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore {
namespace {

using detail::KahanSum;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check(const std::vector<ClusterSums>& runs, const BootstrapOptions& o) {
  if (runs.empty()) throw std::invalid_argument("clusterscore: the bootstrap needs a run");
  for (const ClusterSums& r : runs)
    if (r.n_clusters != runs[0].n_clusters || r.n_groups != runs[0].n_groups ||
        r.names != runs[0].names || r.pairs != runs[0].pairs || r.design != runs[0].design)
      throw std::invalid_argument(
          "clusterscore: runs to compare must share the truth, its design weights, the grouping"
          " and the metrics");
  if (o.resamples == 0) throw std::invalid_argument("clusterscore: resamples must be > 0");
  if (!(o.confidence > 0 && o.confidence < 1))
    throw std::invalid_argument("clusterscore: confidence must be in (0, 1)");
  if (!o.units.empty() && o.units.size() != runs[0].n_clusters)
    throw std::invalid_argument("clusterscore: one resampling unit per truth cluster is needed");
}

// Estimates of every run, group and metric (means, f1_of_means if precision and recall
// are among them, pair metrics if summed) with the truth clusters of unit u counted n[u]
// times (once each if `n` is null); NaN where a group has no weight or a pair metric no
// pairs.
class Means {
 public:
  Means(const std::vector<ClusterSums>& runs, const std::vector<uint32_t>& units)
      : runs_(runs), units_(units) {
    const ClusterSums& r = runs[0];
    const auto at = [&](const char* s) { return std::find(r.names.begin(), r.names.end(), s); };
    means_ = r.names.size();
    sums_ = r.width();
    if (at("precision") != r.names.end() && at("recall") != r.names.end()) {
      p_ = size_t(at("precision") - r.names.begin());
      r_ = size_t(at("recall") - r.names.begin());
      f1_ = true;
    }
    pairs_ = r.pairs;
    width_ = means_ + (f1_ ? 1 : 0) + (pairs_ ? 3 : 0);
    n_units_ = units.empty() ? r.n_clusters
                             : size_t(*std::max_element(units.begin(), units.end())) + 1;
  }
  size_t width() const { return width_; }
  size_t groups() const { return runs_[0].n_groups; }
  size_t units() const { return n_units_; }
  // How many units hold an entry of some run.
  size_t units_used() const {
    std::vector<bool> used(n_units_, false);
    for (const ClusterSums& r : runs_)
      for (uint32_t c : r.cluster) used[units_.empty() ? c : units_[c]] = true;
    return size_t(std::count(used.begin(), used.end(), true));
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out = runs_[0].names;
    if (f1_) out.push_back("f1_of_means");
    if (pairs_) out.insert(out.end(), {"pair_precision", "pair_recall", "pair_f1"});
    return out;
  }

  // out[(run * groups + g) * width + m]
  void compute(const uint32_t* n, std::vector<double>* out) const {
    const size_t g_count = groups();
    out->assign(runs_.size() * g_count * width_, kNaN);
    std::vector<KahanSum> w(g_count);
    std::vector<double> sum(g_count * sums_), comp(g_count * sums_);
    for (size_t run = 0; run < runs_.size(); ++run) {
      const ClusterSums& r = runs_[run];
      std::fill(w.begin(), w.end(), KahanSum{});
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(comp.begin(), comp.end(), 0.0);
      add_entries(r, n, w.data(), sum.data(), comp.data());
      for (size_t g = 0; g < g_count; ++g) {
        const double wg = w[g].value();
        if (!(wg > 0)) continue;
        double* row = out->data() + (run * g_count + g) * width_;
        const double* s = sum.data() + g * sums_;
        const double* c = comp.data() + g * sums_;
        for (size_t m = 0; m < means_; ++m) row[m] = (s[m] + c[m]) / wg;
        size_t m = means_;
        if (f1_) row[m++] = f1_of_means(row[p_], row[r_]);
        if (pairs_) {
          const size_t q = means_;
          const PairMetrics x = pair_metrics(s[q] + c[q], s[q + 1] + c[q + 1], s[q + 2] + c[q + 2]);
          row[m] = x.precision, row[m + 1] = x.recall, row[m + 2] = x.f1;
        }
      }
    }
  }

 private:
  // Adds each entry of r, counted n[unit of its cluster] times its design weight, to its
  // group's weight w[g] and sums (sum, comp)[g * sums_ + m]: four at a time, each lane
  // the scalar neumaier_add() (the same bits), in clones for AVX2 and the baseline.
  CLUSTERSCORE_SIMD_CLONES
  void add_entries(const ClusterSums& r, const uint32_t* n, KahanSum* w, double* sum,
                   double* comp) const {
    for (size_t e = 0; e < r.size(); ++e) {
      const uint32_t c = r.cluster[e];
      double k = n ? double(n[units_.empty() ? c : units_[c]]) : 1.0;
      if (k == 0) continue;
      if (!r.design.empty()) k *= r.design[c];
      const size_t g = r.group[e];
      w[g].add(k * r.weight[e]);
      detail::neumaier_add_scaled(sum + g * sums_, comp + g * sums_, k,
                                  r.sums.data() + e * sums_, sums_);
    }
  }

  const std::vector<ClusterSums>& runs_;
  const std::vector<uint32_t>& units_;
  size_t means_ = 0, sums_ = 0, width_ = 0, p_ = 0, r_ = 0, n_units_ = 0;
  bool f1_ = false, pairs_ = false;
};

// Each of `clusters` drawn `clusters` times with replacement: how often each was drawn.
void draw(detail::Random& rng, size_t clusters, std::vector<uint32_t>* n) {
  n->assign(clusters, 0);
  for (size_t d = 0; d < clusters; ++d)
    ++(*n)[size_t((static_cast<unsigned __int128>(rng.next()) * clusters) >> 64)];
}

// The q-quantile of sorted values, interpolating linearly between order statistics.
double quantile(const std::vector<double>& sorted, double q) {
  const double h = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(h));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]);
}

// The spread of one statistic from its resampled values (NaN where undefined).
Spread spread_of(std::vector<double> values, double confidence) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double d) { return std::isnan(d); }),
               values.end());
  Spread out;
  out.resamples = uint32_t(values.size());
  out.std_error = out.ci_low = out.ci_high = kNaN;
  if (values.empty()) return out;
  KahanSum sum;
  for (double d : values) sum.add(d);
  const double mean = sum.value() / double(values.size());
  if (values.size() >= 2) {
    KahanSum sq;
    for (double d : values) sq.add((d - mean) * (d - mean));
    out.std_error = std::sqrt(sq.value() / double(values.size() - 1));
  }
  std::sort(values.begin(), values.end());
  out.ci_low = quantile(values, (1 - confidence) / 2);
  out.ci_high = quantile(values, 1 - (1 - confidence) / 2);
  return out;
}

// Union-find over truth clusters, with path halving.
struct Links {
  std::vector<uint32_t> parent;
  explicit Links(size_t n) : parent(n) {
    for (size_t i = 0; i < n; ++i) parent[i] = uint32_t(i);
  }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the smallest is the root
  }
};

}  // namespace

ClusterSums truth_cluster_sums(const Comparison& c, const ItemGrouping* grouping) {
  const JoinedClusterings& j = c.joined();
  const MetricTable& m = c.cell_metrics();
  const CellTable& cells = c.cells();
  const BigVector<uint32_t>& cell = c.cell_of_item();
  if (grouping && grouping->item_group.size() != j.n_items())
    throw std::invalid_argument("clusterscore: item grouping of the wrong length");
  ClusterSums out;
  out.n_clusters = j.n_a_clusters();
  out.n_groups = grouping ? grouping->n_groups : 1;
  out.names = m.names;
  out.pairs = c.family() == MetricFamily::kPointwise;
  out.design = c.design();
  const ActualMarginals actual = out.pairs ? c.marginals() : ActualMarginals{};
  const double scale = pair_scale(cells);  // as pair_sums() scales items' weights
  const size_t k = m.width(), width = out.width();
  detail::Interner entries(false, 1024);
  std::vector<KahanSum> w, s;
  for (size_t i = 0; i < j.n_items(); ++i) {
    detail::poll_every(i);
    const uint32_t g = grouping ? grouping->item_group[i] : 0;
    if (cell[i] == kNone || g == kNone) continue;
    const uint32_t a = j.a_cluster[i];
    const auto [e, inserted] = entries.insert_key((uint64_t(a) << 32) | g);
    if (inserted) {
      out.cluster.push_back(a);
      out.group.push_back(g);
      w.emplace_back();
      s.resize(s.size() + width);
    }
    const double wi = j.weight[i];
    w[e].add(wi);
    KahanSum* to = s.data() + size_t(e) * width;
    const double* v = m.row(cell[i]);
    for (size_t q = 0; q < k; ++q) to[q].add(wi * v[q]);
    if (out.pairs) {  // as pair_sums() does, item by item
      const uint32_t x = cell[i];
      const double ws = wi * scale;
      to[k].add(ws * ((cells.weight[x] - wi) * scale));
      to[k + 1].add(ws * ((actual.col_weight[cells.col[x]] - wi) * scale));
      to[k + 2].add(ws * ((cells.row_weight[cells.row[x]] - wi) * scale));
    }
  }
  for (const KahanSum& x : w) out.weight.push_back(x.value());
  for (const KahanSum& x : s) out.sums.push_back(x.value());
  return out;
}

std::vector<uint32_t> linked_units(const std::vector<const Comparison*>& runs) {
  if (runs.empty()) return {};
  Links links(runs[0]->joined().n_a_clusters());
  for (const Comparison* c : runs) {
    const CellTable& cells = c->cells();
    if (cells.n_rows != links.parent.size())
      throw std::invalid_argument("clusterscore: runs to compare must share the truth");
    std::vector<uint32_t> first(cells.n_cols, kNone);  // per actual cluster, a truth cluster
    for (size_t k = 0; k < cells.size(); ++k) {
      detail::poll_every(k);
      uint32_t& f = first[cells.col[k]];
      if (f == kNone)
        f = cells.row[k];
      else
        links.join(f, cells.row[k]);
    }
  }
  std::vector<uint32_t> unit(links.parent.size()), code(links.parent.size(), kNone);
  uint32_t next = 0;
  for (size_t r = 0; r < unit.size(); ++r) {
    const uint32_t root = links.find(uint32_t(r));
    if (code[root] == kNone) code[root] = next++;
    unit[r] = code[root];
  }
  return unit;
}

BootstrapResult paired_bootstrap(const std::vector<ClusterSums>& runs, const BootstrapOptions& o) {
  check(runs, o);
  const Means means(runs, o.units);
  const size_t groups = means.groups(), width = means.width(), n_runs = runs.size();
  const size_t pairs = n_runs * (n_runs - 1) / 2, cells = groups * width;
  const size_t units = means.units_used();
  // One unit drawn again and again is the full data every time: a spread of 0 that would
  // claim certainty, where nothing is known of the variation between units.
  const size_t b_count = units >= 2 ? o.resamples : 0;
  std::vector<double> full, now;
  means.compute(nullptr, &full);
  // values[(run * cells + x) * resamples + b], deltas[(pair * cells + x) * resamples + b]
  std::vector<double> values(n_runs * cells * b_count, kNaN);
  std::vector<double> deltas(pairs * cells * b_count, kNaN);
  detail::Random rng(o.seed);
  std::vector<uint32_t> n;
  for (size_t b = 0; b < b_count; ++b) {
    detail::poll_interrupt();
    draw(rng, means.units(), &n);
    means.compute(n.data(), &now);
    for (size_t x = 0; x < n_runs * cells; ++x) values[x * b_count + b] = now[x];
    for (size_t a = 0, pair = 0; a < n_runs; ++a)
      for (size_t z = a + 1; z < n_runs; ++z, ++pair)
        for (size_t x = 0; x < cells; ++x)
          deltas[(pair * cells + x) * b_count + b] = now[z * cells + x] - now[a * cells + x];
  }
  const auto resampled = [&](const std::vector<double>& v, size_t at) {
    return spread_of(std::vector<double>(v.begin() + long(at * b_count),
                                         v.begin() + long((at + 1) * b_count)),
                     o.confidence);
  };
  BootstrapResult out;
  out.units = units;
  out.metrics = means.names();
  for (size_t run = 0; run < n_runs; ++run)
    for (size_t x = 0; x < cells; ++x) {
      const size_t g = x / width;
      // A group without weight in the run has no estimate of any metric.
      if (std::isnan(full[run * cells + g * width])) continue;
      ValueRow row;
      row.run = uint32_t(run);
      row.group = uint32_t(g);
      row.metric = uint32_t(x % width);
      row.estimate = full[run * cells + x];
      row.spread = resampled(values, run * cells + x);
      out.values.push_back(row);
    }
  for (size_t a = 0, pair = 0; a < n_runs; ++a)
    for (size_t z = a + 1; z < n_runs; ++z, ++pair)
      for (size_t x = 0; x < cells; ++x) {
        DeltaRow row;
        row.run_a = uint32_t(a);
        row.run_b = uint32_t(z);
        row.group = uint32_t(x / width);
        row.metric = uint32_t(x % width);
        row.value_a = full[a * cells + x];
        row.value_b = full[z * cells + x];
        if (std::isnan(row.value_a) || std::isnan(row.value_b)) continue;
        row.delta = row.value_b - row.value_a;
        row.spread = resampled(deltas, pair * cells + x);
        out.rows.push_back(row);
      }
  return out;
}

}  // namespace clusterscore
