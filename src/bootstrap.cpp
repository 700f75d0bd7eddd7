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
  if (runs.size() < 2)
    throw std::invalid_argument("clusterscore: comparing runs needs at least two");
  for (const ClusterSums& r : runs)
    if (r.n_clusters != runs[0].n_clusters || r.n_groups != runs[0].n_groups ||
        r.names != runs[0].names)
      throw std::invalid_argument(
          "clusterscore: runs to compare must share the truth, the grouping and the metrics");
  if (o.resamples == 0) throw std::invalid_argument("clusterscore: resamples must be > 0");
  if (!(o.confidence > 0 && o.confidence < 1))
    throw std::invalid_argument("clusterscore: confidence must be in (0, 1)");
}

// Weighted means of every run, group and metric (f1_of_means last if present) with truth
// cluster c counted n[c] times (once each if `n` is null); NaN where a group has no weight.
class Means {
 public:
  Means(const std::vector<ClusterSums>& runs) : runs_(runs) {
    const auto& names = runs[0].names;
    const auto at = [&](const char* s) { return std::find(names.begin(), names.end(), s); };
    m_ = names.size();
    if (at("precision") != names.end() && at("recall") != names.end()) {
      p_ = size_t(at("precision") - names.begin());
      r_ = size_t(at("recall") - names.begin());
      f1_ = true;
    }
    width_ = m_ + (f1_ ? 1 : 0);
  }
  size_t width() const { return width_; }
  size_t groups() const { return runs_[0].n_groups; }

  // out[(run * groups + g) * width + m]
  void compute(const uint32_t* n, std::vector<double>* out) const {
    const size_t g_count = groups();
    out->assign(runs_.size() * g_count * width_, kNaN);
    std::vector<KahanSum> w(g_count);
    std::vector<double> sum(g_count * m_), comp(g_count * m_);
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
        for (size_t m = 0; m < m_; ++m) row[m] = (sum[g * m_ + m] + comp[g * m_ + m]) / wg;
        if (f1_) row[m_] = f1_of_means(row[p_], row[r_]);
      }
    }
  }

 private:
  // Adds each entry of r, counted n[cluster] times, to its group's weight w[g] and metric
  // sums (sum, comp)[g * m_ + m]: the metrics four at a time, each lane the scalar
  // neumaier_add() (the same bits), in clones for AVX2 and the baseline. With a KahanSum
  // per metric, one at a time, 1,000 resamples of 30,000 truth clusters and two runs took
  // 0.70-0.75 s; this way 0.53-0.55 s.
  CLUSTERSCORE_SIMD_CLONES
  void add_entries(const ClusterSums& r, const uint32_t* n, KahanSum* w, double* sum,
                   double* comp) const {
    for (size_t e = 0; e < r.size(); ++e) {
      const double k = n ? double(n[r.cluster[e]]) : 1.0;
      if (k == 0) continue;
      const size_t g = r.group[e];
      w[g].add(k * r.weight[e]);
      detail::neumaier_add_scaled(sum + g * m_, comp + g * m_, k, r.sums.data() + e * m_, m_);
    }
  }

  const std::vector<ClusterSums>& runs_;
  size_t m_ = 0, width_ = 0, p_ = 0, r_ = 0;
  bool f1_ = false;
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

// std_error, ci_low, ci_high and resamples of one row, from its resampled deltas.
void summarize(std::vector<double> deltas, double confidence, DeltaRow* row) {
  deltas.erase(std::remove_if(deltas.begin(), deltas.end(), [](double d) { return std::isnan(d); }),
               deltas.end());
  row->resamples = uint32_t(deltas.size());
  row->std_error = row->ci_low = row->ci_high = kNaN;
  if (deltas.empty()) return;
  KahanSum sum;
  for (double d : deltas) sum.add(d);
  const double mean = sum.value() / double(deltas.size());
  if (deltas.size() >= 2) {
    KahanSum sq;
    for (double d : deltas) sq.add((d - mean) * (d - mean));
    row->std_error = std::sqrt(sq.value() / double(deltas.size() - 1));
  }
  std::sort(deltas.begin(), deltas.end());
  row->ci_low = quantile(deltas, (1 - confidence) / 2);
  row->ci_high = quantile(deltas, 1 - (1 - confidence) / 2);
}

}  // namespace

ClusterSums truth_cluster_sums(const Comparison& c, const ItemGrouping* grouping) {
  const JoinedClusterings& j = c.joined();
  const MetricTable& m = c.cell_metrics();
  const BigVector<uint32_t>& cell = c.cell_of_item();
  if (grouping && grouping->item_group.size() != j.n_items())
    throw std::invalid_argument("clusterscore: item grouping of the wrong length");
  ClusterSums out;
  out.n_clusters = j.n_a_clusters();
  out.n_groups = grouping ? grouping->n_groups : 1;
  out.names = m.names;
  const size_t k = m.width();
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
      s.resize(s.size() + k);
    }
    const double wi = j.weight[i];
    w[e].add(wi);
    const double* v = m.row(cell[i]);
    for (size_t q = 0; q < k; ++q) s[size_t(e) * k + q].add(wi * v[q]);
  }
  for (const KahanSum& x : w) out.weight.push_back(x.value());
  for (const KahanSum& x : s) out.sums.push_back(x.value());
  return out;
}

BootstrapResult paired_bootstrap(const std::vector<ClusterSums>& runs, const BootstrapOptions& o) {
  check(runs, o);
  const Means means(runs);
  const size_t groups = means.groups(), width = means.width(), n_runs = runs.size();
  const size_t pairs = n_runs * (n_runs - 1) / 2, cells = groups * width;
  std::vector<double> full, now;
  means.compute(nullptr, &full);
  // deltas[(pair * cells + g * width + m) * resamples + b]
  std::vector<double> deltas(pairs * cells * size_t(o.resamples), kNaN);
  detail::Random rng(o.seed);
  std::vector<uint32_t> n;
  for (size_t b = 0; b < o.resamples; ++b) {
    detail::poll_interrupt();
    draw(rng, runs[0].n_clusters, &n);
    means.compute(n.data(), &now);
    for (size_t a = 0, pair = 0; a < n_runs; ++a)
      for (size_t z = a + 1; z < n_runs; ++z, ++pair)
        for (size_t x = 0; x < cells; ++x)
          deltas[(pair * cells + x) * o.resamples + b] = now[z * cells + x] - now[a * cells + x];
  }
  BootstrapResult out;
  out.metrics = runs[0].names;
  if (width > out.metrics.size()) out.metrics.push_back("f1_of_means");
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
        const double* d = deltas.data() + (pair * cells + x) * o.resamples;
        summarize(std::vector<double>(d, d + o.resamples), o.confidence, &row);
        out.rows.push_back(row);
      }
  return out;
}

}  // namespace clusterscore
