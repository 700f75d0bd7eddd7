// Python bindings: declarations and array conversions only. Names, pandas and Arrow
// live in the Python package.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <deque>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "clusterscore/bootstrap.h"
#include "clusterscore/classic.h"
#include "clusterscore/comparison.h"
#include "clusterscore/error.h"
#include "clusterscore/estimate.h"
#include "clusterscore/interrupt.h"
#include "clusterscore/metric_info.h"
#include "clusterscore/plan.h"
#include "clusterscore/sampling.h"

namespace nb = nanobind;
using namespace clusterscore;

namespace {

template <class T>
using Array = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// Moves (or copies) a std::vector / BigVector into a numpy array that owns it.
template <class V>
nb::object to_numpy(V&& v) {
  using Vec = std::decay_t<V>;
  using T = typename Vec::value_type;
  auto* heap = new Vec(std::forward<V>(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<Vec*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(heap->data(), {heap->size()}, owner));
}

// An id column arrives as (kind, values) for integers or (kind, chars, offsets) for
// strings, with an optional validity byte array last; see clusterscore/_arrays.py.
IdColumn id_column(const nb::tuple& t) {
  const std::string kind = nb::cast<std::string>(t[0]);
  IdColumn c;
  if (kind == "int64") {
    auto v = nb::cast<Array<int64_t>>(t[1]);
    c = IdColumn::of_ints(v.data(), v.shape(0));
  } else if (kind == "string") {
    auto chars = nb::cast<Array<uint8_t>>(t[1]);
    auto off = nb::cast<Array<int32_t>>(t[2]);
    c = IdColumn::of_strings(reinterpret_cast<const char*>(chars.data()), off.data(),
                             off.shape(0) - 1);
  } else if (kind == "large_string") {
    auto chars = nb::cast<Array<uint8_t>>(t[1]);
    auto off = nb::cast<Array<int64_t>>(t[2]);
    c = IdColumn::of_strings(reinterpret_cast<const char*>(chars.data()), off.data(),
                             off.shape(0) - 1);
  } else {
    throw std::invalid_argument("clusterscore: unknown id column kind " + kind);
  }
  if (t.size() == 4 && !t[3].is_none()) {
    auto valid = nb::cast<Array<uint8_t>>(t[3]);
    if (valid.shape(0) != c.size) throw std::invalid_argument("clusterscore: validity length");
    c.valid = valid.data();
  }
  return c;
}

// The columns of one call. A column arrives as one tuple, or as a list of tuples when
// Arrow holds it in chunks (Parquet row groups, say): the chunks are concatenated here,
// into big vectors that come from the block cache and live as long as the call.
class Columns {
 public:
  IdColumn operator()(nb::handle h) {
    if (nb::isinstance<nb::tuple>(h)) return id_column(nb::borrow<nb::tuple>(h));
    std::vector<IdColumn> chunks;
    for (nb::handle t : nb::cast<nb::list>(h)) chunks.push_back(id_column(nb::cast<nb::tuple>(t)));
    joined_.push_back(concatenate(chunks));
    return joined_.back().column;
  }

 private:
  std::deque<ConcatenatedIds> joined_;  // a deque: elements never move
};

void put_spread(nb::dict& d, const std::vector<Spread>& s) {
  std::vector<double> std_error, ci_low, ci_high;
  std::vector<uint32_t> resamples;
  for (const Spread& x : s) {
    std_error.push_back(x.std_error);
    ci_low.push_back(x.ci_low);
    ci_high.push_back(x.ci_high);
    resamples.push_back(x.resamples);
  }
  d["std_error"] = to_numpy(std::move(std_error));
  d["ci_low"] = to_numpy(std::move(ci_low));
  d["ci_high"] = to_numpy(std::move(ci_high));
  d["resamples"] = to_numpy(std::move(resamples));
}

// The bootstrap's rows as columns (run and group indices, metric names): {"values": each
// run's estimates, "deltas": each pair's}.
nb::dict bootstrap_dict(const nb::list& sums, uint32_t resamples, uint64_t seed,
                        double confidence) {
  const BootstrapOptions o{resamples, seed, confidence};
  BootstrapResult r;
  if (sums.size() > 0 && nb::isinstance<CellSums>(sums[0])) {
    std::vector<CellSums> runs;
    for (nb::handle h : sums) runs.push_back(nb::cast<const CellSums&>(h));
    nb::gil_scoped_release release;
    r = paired_bootstrap(runs, o);
  } else {
    std::vector<ClusterSums> runs;
    for (nb::handle h : sums) runs.push_back(nb::cast<const ClusterSums&>(h));
    nb::gil_scoped_release release;
    r = paired_bootstrap(runs, o);
  }
  std::vector<uint32_t> run, vgroup, run_a, run_b, group;
  std::vector<double> estimate, value_a, value_b, delta;
  std::vector<Spread> vspread, spread;
  nb::list vmetric, metric;
  for (const ValueRow& x : r.values) {
    run.push_back(x.run);
    vgroup.push_back(x.group);
    vmetric.append(r.metrics[x.metric]);
    estimate.push_back(x.estimate);
    vspread.push_back(x.spread);
  }
  for (const DeltaRow& x : r.rows) {
    run_a.push_back(x.run_a);
    run_b.push_back(x.run_b);
    group.push_back(x.group);
    metric.append(r.metrics[x.metric]);
    value_a.push_back(x.value_a);
    value_b.push_back(x.value_b);
    delta.push_back(x.delta);
    spread.push_back(x.spread);
  }
  nb::dict v, d;
  v["run"] = to_numpy(std::move(run));
  v["group"] = to_numpy(std::move(vgroup));
  v["metric"] = vmetric;
  v["estimate"] = to_numpy(std::move(estimate));
  put_spread(v, vspread);
  d["run_a"] = to_numpy(std::move(run_a));
  d["run_b"] = to_numpy(std::move(run_b));
  d["group"] = to_numpy(std::move(group));
  d["metric"] = metric;
  d["value_a"] = to_numpy(std::move(value_a));
  d["value_b"] = to_numpy(std::move(value_b));
  d["delta"] = to_numpy(std::move(delta));
  put_spread(d, spread);
  nb::dict out;
  out["values"] = v;
  out["deltas"] = d;
  out["clusters"] = r.clusters;
  return out;
}

nb::dict group_dict(GroupTable&& g) {
  nb::dict d;
  d["group"] = to_numpy(std::move(g.group));
  d["items"] = to_numpy(std::move(g.items));
  d["weight"] = to_numpy(std::move(g.weight));
  for (size_t k = 0; k < g.names.size(); ++k)
    d[g.names[k].c_str()] = to_numpy(std::move(g.columns[k]));
  return d;
}

// Per given common item (joined item indices, as common_items() gives them; any other
// index is an IndexError): its B cluster's first row, weight, and its cell's weights (tp,
// fp, fn, tn or B, E, X, U: rows of `counts`, the comparison's cell_counts()) and metrics,
// in that order. Callers pass a slice of the common items at a time to build a table too
// big to hold at once.
nb::dict per_item_dict(const Comparison& c, const Array<uint32_t>& item_index,
                       const MetricTable& counts) {
  const std::span<const uint32_t> items(item_index.data(), item_index.shape(0));
  const JoinedClusterings& j = c.joined();
  const MetricTable& means = c.cell_metrics();
  if (counts.n_rows != c.cells().size())
    throw std::invalid_argument("clusterscore: per_item: counts do not have a row per cell");
  BigVector<uint64_t> b_row(items.size());
  BigVector<double> weight(items.size());
  std::vector<BigVector<double>> cols;  // each written in full below (never copied unwritten)
  for (size_t k = 0; k < counts.width() + means.width(); ++k) cols.emplace_back(items.size());
  {
    // Without the GIL: the CLI builds the next batch while pyarrow writes the last one.
    nb::gil_scoped_release release;
    // Cells and B clusters are met at random: fetched ahead.
    constexpr size_t kAhead = 16;
    for (size_t n = 0; n < items.size(); ++n) {  // each item's cell rows are read once
      const uint32_t i = items[n];
      if (i >= j.n_items() || c.cell_of_item()[i] == kNone)
        throw std::out_of_range("clusterscore: per_item: " + std::to_string(i) +
                                " is not the index of a common item");
      if (n + kAhead < items.size() && items[n + kAhead] < j.n_items()) {
        const uint32_t ahead = items[n + kAhead], cell = c.cell_of_item()[ahead];
        if (cell != kNone) {
          __builtin_prefetch(means.row(cell));
          __builtin_prefetch(counts.row(cell));
        }
        __builtin_prefetch(&j.b_cluster_first_row[j.b_cluster[ahead]]);
      }
      const uint32_t cell = c.cell_of_item()[i];
      b_row[n] = j.b_cluster_first_row[j.b_cluster[i]];
      weight[n] = j.weight[i];
      for (size_t k = 0; k < counts.width(); ++k) cols[k][n] = counts.at(cell, k);
      for (size_t k = 0; k < means.width(); ++k) cols[counts.width() + k][n] = means.at(cell, k);
    }
  }
  nb::dict d;
  d["b_cluster_row"] = to_numpy(std::move(b_row));
  d["weight"] = to_numpy(std::move(weight));
  for (size_t k = 0; k < counts.width(); ++k)
    d[counts.names[k].c_str()] = to_numpy(std::move(cols[k]));
  for (size_t k = 0; k < means.width(); ++k)
    d[means.names[k].c_str()] = to_numpy(std::move(cols[counts.width() + k]));
  return d;
}

// Changed (Base cluster, Exp cluster) flows, largest first.
nb::dict flows_dict(const Comparison& c) {
  FlowTable f = changed_flows(c.cells());
  const JoinedClusterings& j = c.joined();
  BigVector<uint64_t> a_row(f.row.size()), b_row(f.col.size());
  for (size_t n = 0; n < f.row.size(); ++n) {
    a_row[n] = j.a_cluster_first_row[f.row[n]];
    b_row[n] = j.b_cluster_first_row[f.col[n]];
  }
  nb::dict d;
  d["a_cluster_row"] = to_numpy(std::move(a_row));
  d["b_cluster_row"] = to_numpy(std::move(b_row));
  d["items"] = to_numpy(std::move(f.items));
  d["weight"] = to_numpy(std::move(f.weight));
  d["share_of_base"] = to_numpy(std::move(f.share_of_base));
  d["share_of_exp"] = to_numpy(std::move(f.share_of_exp));
  return d;
}

std::unique_ptr<Comparison> make_comparison(const std::string& role_a, nb::handle a_items,
                                            nb::handle a_clusters, const std::string& role_b,
                                            nb::handle b_items, nb::handle b_clusters,
                                            nb::object items, nb::object weights,
                                            MetricFamily family, TruthScope scope) {
  Columns column;
  ClusteringInput a{role_a, column(a_items), column(a_clusters)};
  ClusteringInput b{role_b, column(b_items), column(b_clusters)};
  ItemsInput t;
  if (!items.is_none()) {
    t.items = column(items);
    if (!weights.is_none()) {
      auto w = nb::cast<Array<double>>(weights);
      if (w.shape(0) != t.items.size) throw std::invalid_argument("clusterscore: weights length");
      t.weights = w.data();
    }
  }
  nb::gil_scoped_release release;
  return std::make_unique<Comparison>(a, b, items.is_none() ? nullptr : &t, family, scope);
}

nb::object u128_int(unsigned __int128 x) {
  nb::object hi = nb::int_(uint64_t(x >> 64)), lo = nb::int_(uint64_t(x));
  return (hi << nb::int_(64)) | lo;
}

nb::object opt(const std::optional<double>& v) {
  if (v) return nb::float_(*v);
  return nb::none();
}

nb::dict scores_dict(const ClassicScores& s, bool weighted) {
  nb::dict d;
  if (weighted) {
    const WeightedPairConfusion& p = s.weighted_pairs;
    d["pair_confusion_matrix"] = nb::make_tuple(p.tn, p.fp, p.fn, p.tp);
  } else {
    const PairConfusion& p = s.pairs;
    d["pair_confusion_matrix"] =
        nb::make_tuple(u128_int(p.tn), u128_int(p.fp), u128_int(p.fn), u128_int(p.tp));
  }
  const std::pair<const char*, double> plain[] = {
      {"rand_score", s.rand_score},
      {"fowlkes_mallows_score", s.fowlkes_mallows_score},
      {"mutual_info_score", s.mutual_info_score},
      {"normalized_mutual_info_score", s.normalized_mutual_info_score},
      {"homogeneity_score", s.homogeneity_score},
      {"completeness_score", s.completeness_score},
      {"v_measure_score", s.v_measure_score},
  };
  const std::pair<const char*, std::optional<double>> maybe[] = {
      {"adjusted_rand_score", s.adjusted_rand_score},
      {"pair_precision_score", s.pair_precision_score},
      {"pair_recall_score", s.pair_recall_score},
      {"pair_jaccard_score", s.pair_jaccard_score},
      {"adjusted_mutual_info_score", s.adjusted_mutual_info_score},
      {"f_measure_score", s.f_measure_score},
      {"purity_score", s.purity_score},
      {"inverse_purity_score", s.inverse_purity_score},
      {"clustering_error", s.clustering_error},
      {"clustering_ratio", s.clustering_ratio},
      {"bcubed_precision_score", s.bcubed_precision_score},
      {"bcubed_recall_score", s.bcubed_recall_score},
      {"bcubed_f_score", s.bcubed_f_score},
  };
  for (const auto& [name, value] : plain) d[name] = value;
  for (const auto& [name, value] : maybe) d[name] = opt(value);
  if (weighted) d["adjusted_rand_score"] = nb::none();
  return d;
}

ClassicOptions classic_options(bool weighted, Average average, double beta, bool ami,
                               bool matching) {
  ClassicOptions o;
  o.weighted = weighted;
  o.average = average;
  o.beta = beta;
  o.adjusted_mutual_info = ami;
  o.matching = matching;
  return o;
}

nb::dict classic_from_labels(nb::handle a, nb::handle b, nb::object weights, Average average,
                             double beta, bool ami, bool matching) {
  Columns column;
  const IdColumn ca = column(a), cb = column(b);
  const double* w = nullptr;
  Array<double> wa;
  if (!weights.is_none()) {
    wa = nb::cast<Array<double>>(weights);
    if (wa.shape(0) != ca.size) throw std::invalid_argument("sample_weight has the wrong length");
    w = wa.data();
  }
  ClassicScores s;
  {
    nb::gil_scoped_release release;
    LabelCells lc = cells_from_labels(ca, cb, w);
    s = classic_scores(lc.cells, classic_options(w != nullptr, average, beta, ami, matching));
  }
  return scores_dict(s, w != nullptr);
}

nb::dict classic_from_cells(size_t n_rows, size_t n_cols, std::vector<uint32_t> rows,
                            std::vector<uint32_t> cols, std::vector<uint64_t> counts,
                            std::vector<double> weights, std::vector<double> weights_sq,
                            bool weighted, Average average, double beta, bool ami, bool matching) {
  CellTable t = cells_from_lists(n_rows, n_cols, rows, cols, counts, weights, weights_sq);
  return scores_dict(classic_scores(t, classic_options(weighted, average, beta, ami, matching)),
                     weighted);
}

// Cells of two labelings with the first position of each label, for contingency_matrix.
nb::dict label_cells(nb::handle a, nb::handle b, nb::object weights) {
  Columns column;
  const IdColumn ca = column(a), cb = column(b);
  const double* w = nullptr;
  Array<double> wa;
  if (!weights.is_none()) {
    wa = nb::cast<Array<double>>(weights);
    w = wa.data();
  }
  LabelCells lc = cells_from_labels(ca, cb, w);
  nb::dict d;
  d["row"] = to_numpy(std::move(lc.cells.row));
  d["col"] = to_numpy(std::move(lc.cells.col));
  d["count"] = to_numpy(std::move(lc.cells.count));
  d["weight"] = to_numpy(std::move(lc.cells.weight));
  d["a_first"] = to_numpy(std::move(lc.a_first));
  d["b_first"] = to_numpy(std::move(lc.b_first));
  return d;
}

nb::dict totals_dict(const SampleTotals& t) {
  nb::dict d;
  d["split_distance"] = t.split_distance;
  d["merge_distance"] = t.merge_distance;
  d["jaccard_distance"] = t.jaccard_distance;
  d["affected_jaccard_index"] = t.affected_jaccard_index;
  d["total_weight"] = t.total_weight;
  d["diff_mass"] = t.diff_mass;
  d["stable_mass"] = t.stable_mass;
  d["self_mass"] = t.self_mass;
  d["self_delta"] = t.self_delta;
  return d;
}

SampleTotals totals_of(const nb::dict& d) {
  SampleTotals t;
  t.split_distance = nb::cast<double>(d["split_distance"]);
  t.merge_distance = nb::cast<double>(d["merge_distance"]);
  t.jaccard_distance = nb::cast<double>(d["jaccard_distance"]);
  t.affected_jaccard_index = nb::cast<double>(d["affected_jaccard_index"]);
  t.total_weight = nb::cast<double>(d["total_weight"]);
  t.diff_mass = nb::cast<double>(d["diff_mass"]);
  t.stable_mass = nb::cast<double>(d["stable_mass"]);
  t.self_mass = nb::cast<double>(d["self_mass"]);
  t.self_delta = nb::cast<double>(d["self_delta"]);
  return t;
}

nb::dict sample_dict(const Comparison& c, uint64_t pairs, uint64_t stable_pairs, bool stratified,
                     bool distance_only, uint64_t seed) {
  SampleOptions o{pairs, stable_pairs, stratified, distance_only, seed};
  PairSampleTable t;
  {
    nb::gil_scoped_release release;
    t = sample_pairs(c, o);
  }
  std::vector<uint8_t> kind(t.kind.size());
  for (size_t p = 0; p < kind.size(); ++p) kind[p] = uint8_t(t.kind[p]);
  nb::dict d;
  d["item_i"] = to_numpy(std::move(t.item_i));
  d["item_j"] = to_numpy(std::move(t.item_j));
  d["kind"] = to_numpy(std::move(kind));
  d["stratum"] = to_numpy(std::move(t.stratum));
  d["draws"] = to_numpy(std::move(t.draws));
  d["U_i"] = to_numpy(std::move(t.U));
  d["B_i"] = to_numpy(std::move(t.B));
  d["E_i"] = to_numpy(std::move(t.E));
  return d;
}

// The judged sample from numpy columns; the arrays must outlive the returned view.
JudgedSample judged_of(const Array<uint8_t>& kind, const Array<uint8_t>& stratum,
                       const Array<uint64_t>& draws, const Array<double>& U, const Array<double>& B,
                       const Array<double>& E, const Array<uint8_t>& verdict,
                       const nb::dict& totals, bool stratified, bool distance_only) {
  JudgedSample s;
  s.kind = {reinterpret_cast<const PairKind*>(kind.data()), kind.shape(0)};
  s.stratum = {stratum.data(), stratum.shape(0)};
  s.draws = {draws.data(), draws.shape(0)};
  s.U = {U.data(), U.shape(0)};
  s.B = {B.data(), B.shape(0)};
  s.E = {E.data(), E.shape(0)};
  s.verdict = {reinterpret_cast<const Verdict*>(verdict.data()), verdict.shape(0)};
  for (uint8_t k : s.stratum)
    if (k > 1) throw std::invalid_argument("clusterscore: stratum must be 0 or 1");
  for (size_t p = 0; p < kind.shape(0); ++p)
    if (kind.data()[p] > 3 || verdict.data()[p] > 3)
      throw std::invalid_argument("clusterscore: bad pair kind or verdict code");
  s.totals = totals_of(totals);
  s.stratified = stratified;
  s.distance_only = distance_only;
  return s;
}

nb::list estimate_list(const Array<uint8_t>& kind, const Array<uint8_t>& stratum,
                       const Array<uint64_t>& draws, const Array<double>& U, const Array<double>& B,
                       const Array<double>& E, const Array<uint8_t>& verdict,
                       const nb::dict& totals, bool stratified, bool distance_only) {
  const JudgedSample s =
      judged_of(kind, stratum, draws, U, B, E, verdict, totals, stratified, distance_only);
  nb::list out;
  for (const Estimate& e : estimate(s)) {
    nb::dict d;
    d["name"] = e.name;
    d["estimate"] = opt(e.estimate);
    d["std_error"] = opt(e.std_error);
    d["ci_low"] = opt(e.ci_low);
    d["ci_high"] = opt(e.ci_high);
    d["pairs"] = e.pairs;
    d["exact"] = e.exact;
    out.append(d);
  }
  return out;
}

nb::dict shares_dict(const Array<uint8_t>& kind, const Array<uint8_t>& stratum,
                     const Array<uint64_t>& draws, const Array<double>& U, const Array<double>& B,
                     const Array<double>& E, const Array<uint8_t>& verdict, const nb::dict& totals,
                     bool stratified, bool distance_only) {
  const JudgedShares x = judged_shares(
      judged_of(kind, stratum, draws, U, B, E, verdict, totals, stratified, distance_only));
  nb::dict d;
  d["split"] = opt(x.split);
  d["merge"] = opt(x.merge);
  d["stable"] = opt(x.stable);
  return d;
}

nb::dict contributions_dict(nb::handle values, const Array<uint8_t>& kind,
                            const Array<uint8_t>& stratum, const Array<uint64_t>& draws,
                            const Array<double>& U, const Array<double>& B, const Array<double>& E,
                            const Array<uint8_t>& verdict, const nb::dict& totals, bool stratified,
                            bool distance_only) {
  const JudgedSample s =
      judged_of(kind, stratum, draws, U, B, E, verdict, totals, stratified, distance_only);
  Columns column;
  Contributions c = contributions(column(values), s);
  nb::dict d;
  d["first_pair"] = to_numpy(std::move(c.first_pair));
  d["draws"] = to_numpy(std::move(c.draws));
  d["jaccard_distance"] = to_numpy(std::move(c.jaccard_distance));
  d["split_distance"] = to_numpy(std::move(c.split_distance));
  d["merge_distance"] = to_numpy(std::move(c.merge_distance));
  return d;
}

// A signal's exception (KeyboardInterrupt for Ctrl-C), raised by its Python handler when
// the core polled, held until the Interrupted it became is translated back.
PyObject *signal_type = nullptr, *signal_value = nullptr, *signal_traceback = nullptr;

// The core's InterruptCheck: runs pending signal handlers (the calls release the GIL).
bool python_signal_raised() noexcept {
  nb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() == 0) return false;
  PyErr_Fetch(&signal_type, &signal_value, &signal_traceback);
  return true;
}

}  // namespace

NB_MODULE(_core, m) {
  set_interrupt_check(&python_signal_raised);
  static nb::object input_error =
      nb::steal(PyErr_NewException("clusterscore._core.InputError", PyExc_ValueError, nullptr));
  m.attr("InputError") = input_error;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const InputError& e) {
      nb::object args = nb::make_tuple(e.what(), e.source(), e.row());
      PyErr_SetObject(input_error.ptr(), args.ptr());
    } catch (const Interrupted&) {
      if (signal_type == nullptr) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        return;
      }
      PyErr_Restore(signal_type, signal_value, signal_traceback);
      signal_type = signal_value = signal_traceback = nullptr;
    }
  });

  nb::enum_<MetricFamily>(m, "MetricFamily")
      .value("pointwise", MetricFamily::kPointwise)
      .value("impact", MetricFamily::kImpact);
  nb::enum_<TruthScope>(m, "TruthScope")
      .value("common", TruthScope::kCommon)
      .value("entities", TruthScope::kEntities);
  nb::enum_<Side>(m, "Side").value("a", Side::kA).value("b", Side::kB);
  nb::enum_<Average>(m, "Average")
      .value("arithmetic", Average::kArithmetic)
      .value("geometric", Average::kGeometric)
      .value("min", Average::kMin)
      .value("max", Average::kMax);
  nb::enum_<MetricGroup>(m, "MetricGroup")
      .value("pointwise", MetricGroup::kPointwise)
      .value("impact", MetricGroup::kImpact)
      .value("estimate", MetricGroup::kEstimate)
      .value("classic", MetricGroup::kClassic);
  nb::enum_<Better>(m, "Better")
      .value("higher", Better::kHigher)
      .value("lower", Better::kLower)
      .value("neither", Better::kNeither);
  nb::enum_<Unit>(m, "Unit")
      .value("share", Unit::kShare)
      .value("count", Unit::kCount)
      .value("weight", Unit::kWeight)
      .value("score", Unit::kScore);
  nb::class_<MetricInfo>(m, "MetricInfo")
      .def_prop_ro("name", [](const MetricInfo& i) { return std::string(i.name); })
      .def_ro("group", &MetricInfo::group)
      .def_ro("better", &MetricInfo::better)
      .def_ro("unit", &MetricInfo::unit)
      .def_ro("low", &MetricInfo::low)
      .def_ro("high", &MetricInfo::high);
  m.def("metric_registry", [] {
    const auto r = metric_registry();
    return std::vector<MetricInfo>(r.begin(), r.end());
  });
  m.def("classic_from_labels", &classic_from_labels, nb::arg("a"), nb::arg("b"),
        nb::arg("weights").none(), nb::arg("average"), nb::arg("beta"), nb::arg("ami"),
        nb::arg("matching"));
  m.def("classic_from_cells", &classic_from_cells);
  m.def("estimate", &estimate_list);
  m.def("judged_shares", &shares_dict);
  m.def("plan_pairs",
        [](const nb::dict& totals, double same_split, double same_merge, double same_stable,
           double half_width, double confidence, const std::vector<std::string>& metrics) {
          const Plan p = plan_pairs(PlanRequest{totals_of(totals), same_split, same_merge,
                                                same_stable, half_width, confidence, metrics});
          nb::dict d, h;
          d["pairs"] = p.pairs;
          d["stable_pairs"] = p.stable_pairs;
          d["judgements"] = p.judgements;
          for (const auto& [name, value] : p.predicted_half_width) h[name.c_str()] = value;
          d["predicted_half_width"] = h;
          return d;
        });
  m.def("match_pairs", [](nb::handle si, nb::handle sj, nb::handle vi, nb::handle vj) {
    Columns column;
    return to_numpy(match_pairs(column(si), column(sj), column(vi), column(vj)));
  });
  m.def("fingerprint", [](nb::handle items, nb::handle clusters) {
    Columns column;
    return fingerprint(ClusteringInput{"", column(items), column(clusters)});
  });
  m.def(
      "items_fingerprint",
      [](nb::handle items, nb::object weights) {
        Columns column;
        ItemsInput t{column(items), nullptr};
        Array<double> w;
        if (!weights.is_none()) {
          w = nb::cast<Array<double>>(weights);
          t.weights = w.data();
        }
        return fingerprint(t);
      },
      nb::arg("items"), nb::arg("weights").none());
  m.def("contributions", &contributions_dict);
  m.def("release_memory", [] {
    const uint64_t cached = detail::big_alloc_stats().cached_bytes;
    detail::big_release_cached();
    return cached;
  });
  m.def("label_cells", &label_cells, nb::arg("a"), nb::arg("b"), nb::arg("weights").none());

  nb::class_<Coverage>(m, "Coverage")
#define CS_RO(name) .def_ro(#name, &Coverage::name)
      CS_RO(a_items) CS_RO(b_items) CS_RO(common_items) CS_RO(a_only_items) CS_RO(b_only_items)
          CS_RO(a_weight) CS_RO(b_weight) CS_RO(common_weight) CS_RO(a_only_weight)
              CS_RO(b_only_weight) CS_RO(a_clusters) CS_RO(b_clusters) CS_RO(a_clusters_common)
                  CS_RO(b_clusters_common) CS_RO(items_table_rows) CS_RO(items_table_unmatched);
#undef CS_RO

  nb::class_<ImpactSummary>(m, "ImpactSummary")
      .def_ro("affected_items", &ImpactSummary::affected_items)
      .def_ro("affected_weight", &ImpactSummary::affected_weight)
      .def_ro("affected_jaccard_index", &ImpactSummary::affected_jaccard_index)
      .def_ro("unaffected_jaccard_index", &ImpactSummary::unaffected_jaccard_index)
      .def_ro("base_clusters_split", &ImpactSummary::base_clusters_split)
      .def_ro("exp_clusters_merged", &ImpactSummary::exp_clusters_merged);

  nb::class_<ClusterSums>(m, "ClusterSums");
  nb::class_<CellSums>(m, "CellSums");
  // What the bootstrap needs of one run: per cell in the common scope's pointwise scores
  // (recomputed from the clusters drawn), per truth cluster otherwise.
  m.def(
      "run_sums",
      [](const Comparison& c, const ItemGrouping* g) -> nb::object {
        const bool cells =
            c.family() == MetricFamily::kPointwise && c.scope() == TruthScope::kCommon;
        if (cells) {
          CellSums s;
          {
            nb::gil_scoped_release release;
            s = cell_sums(c, g);
          }
          return nb::cast(std::move(s));
        }
        ClusterSums s;
        {
          nb::gil_scoped_release release;
          s = truth_cluster_sums(c, g);
        }
        return nb::cast(std::move(s));
      },
      nb::arg("comparison"), nb::arg("grouping").none());
  m.def("paired_bootstrap", &bootstrap_dict, nb::arg("sums"), nb::arg("resamples"), nb::arg("seed"),
        nb::arg("confidence"));

  nb::class_<ItemGrouping>(m, "ItemGrouping")
      .def_prop_ro("group_row", [](const ItemGrouping& g) { return to_numpy(g.group_row); })
      .def_ro("n_groups", &ItemGrouping::n_groups);

  // Opaque: per-cell counts (Comparison.cell_counts), computed once per per-item table and
  // handed back to each per_item call, not counted again for each batch of items.
  nb::class_<MetricTable>(m, "MetricTable");

  nb::class_<Comparison>(m, "Comparison")
      .def(nb::new_(&make_comparison), nb::arg("role_a"), nb::arg("a_items"), nb::arg("a_clusters"),
           nb::arg("role_b"), nb::arg("b_items"), nb::arg("b_clusters"), nb::arg("items").none(),
           nb::arg("weights").none(), nb::arg("family"), nb::arg("scope"))
      .def("set_design", &Comparison::set_design)
      .def("inverse_size_design",
           [](const Comparison& c) { return to_numpy(inverse_size_design(c.joined())); })
      .def("coverage", &Comparison::coverage)
      .def("impact", &Comparison::impact)
      .def("overall", [](const Comparison& c) { return group_dict(c.overall()); })
      .def("by_cluster", [](const Comparison& c, Side s) { return group_dict(c.by_cluster(s)); })
      .def("by_items",
           [](const Comparison& c, const ItemGrouping& g) { return group_dict(c.by_items(g)); })
      .def("group_items",
           [](const Comparison& c, const nb::list& cols) {
             Columns column;
             std::vector<IdColumn> v;
             for (nb::handle h : cols) v.push_back(column(h));
             return c.group_items(v);
           })
      .def("common_items", [](const Comparison& c) { return to_numpy(c.common_items()); })
      .def("cell_counts",
           [](const Comparison& c) {
             nb::gil_scoped_release release;
             return c.cell_counts();
           })
      .def("per_item", &per_item_dict, nb::arg("items"), nb::arg("counts"))
      .def("sample_pairs", &sample_dict)
      .def("items_rows",
           [](const Comparison& c, const Array<uint32_t>& items) {
             // The items-table row of each given joined item (kNone without one).
             const JoinedClusterings& j = c.joined();
             std::vector<uint32_t> rows(items.shape(0), kNone);
             for (size_t n = 0; n < rows.size(); ++n) {
               const uint32_t i = items.data()[n];
               if (i >= j.n_items()) throw std::out_of_range("clusterscore: item index");
               if (!j.items_row.empty()) rows[n] = j.items_row[i];
             }
             return to_numpy(std::move(rows));
           })
      .def("sample_totals", [](const Comparison& c) { return totals_dict(sample_totals(c)); })
      .def("flows", &flows_dict)
      .def("classic",
           [](const Comparison& c) {
             ClassicScores s;
             {
               nb::gil_scoped_release release;
               s = classic_scores(c.cells(), ClassicOptions{});
             }
             return scores_dict(s, false);
           })
      .def(
          "cluster_first_rows",
          [](const Comparison& c, Side s) {
            // A read-only view that keeps the comparison alive: no copy of 1e6+ rows.
            const BigVector<uint64_t>& v =
                s == Side::kA ? c.joined().a_cluster_first_row : c.joined().b_cluster_first_row;
            return nb::ndarray<nb::numpy, const uint64_t, nb::ndim<1>>(v.data(), {v.size()},
                                                                       nb::handle());
          },
          nb::rv_policy::reference_internal);
}
