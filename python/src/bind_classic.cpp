// Bindings of the classic metrics: from labels, from a cell table elsewhere, and the
// cells of two labelings for contingency_matrix.

#include "clusterscore/metric_info.h"
#include "convert.h"

namespace clusterscore::bindings {

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
  // With weights, a metric whose chance model needs counts is null (the registry says which).
  if (weighted)
    for (const MetricInfo& m : metric_registry())
      if (m.group == MetricGroup::kClassic && !m.weightable)
        d[nb::str(m.name.data(), m.name.size())] = nb::none();
  return d;
}

namespace {

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

// A labeling's optional weights: none, or one per label (the array must outlive the call).
const double* label_weights(const nb::object& weights, size_t labels, Array<double>* held) {
  if (weights.is_none()) return nullptr;
  *held = nb::cast<Array<double>>(weights);
  if (held->shape(0) != labels) throw std::invalid_argument("sample_weight has the wrong length");
  return held->data();
}

nb::dict classic_from_labels(nb::handle a, nb::handle b, nb::object weights, Average average,
                             double beta, bool ami, bool matching) {
  Columns column;
  const IdColumn ca = column(a), cb = column(b);
  Array<double> held;
  const double* w = label_weights(weights, ca.size, &held);
  const ClassicOptions o = classic_options(w != nullptr, average, beta, ami, matching);
  return scores_dict(without_gil([&] { return classic_scores(ca, cb, w, o); }), w != nullptr);
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
LabelCells label_cells(nb::handle a, nb::handle b, nb::object weights) {
  Columns column;
  const IdColumn ca = column(a), cb = column(b);
  Array<double> held;
  const double* w = label_weights(weights, ca.size, &held);
  return without_gil([&] { return cells_from_labels(ca, cb, w); });
}

}  // namespace

void bind_classic(nb::module_& m) {
  nb::enum_<Average>(m, "Average")
      .value("arithmetic", Average::kArithmetic)
      .value("geometric", Average::kGeometric)
      .value("min", Average::kMin)
      .value("max", Average::kMax);
  m.def("classic_from_labels", &classic_from_labels, nb::arg("a"), nb::arg("b"),
        nb::arg("weights").none(), nb::arg("average"), nb::arg("beta"), nb::arg("ami"),
        nb::arg("matching"));
  m.def("classic_from_cells", &classic_from_cells, nb::arg("n_rows"), nb::arg("n_cols"),
        nb::arg("rows"), nb::arg("cols"), nb::arg("counts"), nb::arg("weights"),
        nb::arg("weights_sq"), nb::arg("weighted"), nb::arg("average"), nb::arg("beta"),
        nb::arg("ami"), nb::arg("matching"));
  nb::class_<LabelCells>(m, "LabelCells",
                         "The cells of two labelings (row, col, count, weight) and each label's "
                         "first position (read-only views of the core's arrays).")
      .def_prop_ro("row", &nested_view<LabelCells, &LabelCells::cells, &CellTable::row>)
      .def_prop_ro("col", &nested_view<LabelCells, &LabelCells::cells, &CellTable::col>)
      .def_prop_ro("count", &nested_view<LabelCells, &LabelCells::cells, &CellTable::count>)
      .def_prop_ro("weight", &nested_view<LabelCells, &LabelCells::cells, &CellTable::weight>)
      .def_prop_ro("a_first", &member_view<LabelCells, &LabelCells::a_first>)
      .def_prop_ro("b_first", &member_view<LabelCells, &LabelCells::b_first>);
  m.def("label_cells", &label_cells, nb::arg("a"), nb::arg("b"), nb::arg("weights").none());
}

}  // namespace clusterscore::bindings
