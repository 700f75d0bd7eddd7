// Bindings of the curve over match thresholds: the curve's rows (CurveTable), and the
// clustering at one threshold.
#include "convert.h"
#include "curves/threshold_curve.h"

namespace clusterscore::bindings {
namespace {

ScoredPairs scored_pairs(const Array<uint32_t>& left, const Array<uint32_t>& right,
                         const Array<double>& score) {
  return {
      {left.data(), left.shape(0)}, {right.data(), right.shape(0)}, {score.data(), score.shape(0)}};
}

CurveTable curve(const Comparison& c, const Array<uint32_t>& left, const Array<uint32_t>& right,
                 const Array<double>& score, std::vector<double> thresholds, size_t max_points) {
  nb::gil_scoped_release release;
  return threshold_curve(c, scored_pairs(left, right, score),
                         CurveOptions{std::move(thresholds), max_points});
}

}  // namespace

void bind_curves(nb::module_& m) {
  nb::class_<CurveTable>(m, "CurveTable",
                         "A curve's rows: each threshold, its clusters and overall metrics "
                         "(read-only views of the core's arrays), the best row of each of "
                         "f1, f1_of_means and pair_f1, and the pairs counted.")
      .def_prop_ro("threshold", &member_view<CurveTable, &CurveTable::threshold>)
      .def_prop_ro("clusters", &member_view<CurveTable, &CurveTable::clusters>)
      .def_prop_ro("names", [](const CurveTable& t) { return t.metrics.names; })
      .def(
          "column",
          [](nb::handle_t<CurveTable> self, size_t k) {
            return column_view(nb::cast<const CurveTable&>(self).metrics.columns, k, self);
          },
          nb::arg("k"))
      .def_prop_ro("best",
                   [](const CurveTable& t) {
                     nb::dict best;  // metric → its best row, or None
                     for (size_t b = 0; b < t.best.size(); ++b)
                       best[kCurveBest[b]] = t.best[b] == kNone ? nb::none() : nb::cast(t.best[b]);
                     return best;
                   })
      .def_ro("pairs", &CurveTable::pairs)
      .def_ro("distinct_scores", &CurveTable::distinct_scores);
  m.def("threshold_curve", &curve, nb::arg("comparison"), nb::arg("left"), nb::arg("right"),
        nb::arg("score"), nb::arg("thresholds"), nb::arg("max_points"));
  m.def(
      "components_at",
      [](size_t rows, const Array<uint32_t>& left, const Array<uint32_t>& right,
         const Array<double>& score, double threshold) {
        return to_numpy(without_gil(
            [&] { return components_at(rows, scored_pairs(left, right, score), threshold); }));
      },
      nb::arg("rows"), nb::arg("left"), nb::arg("right"), nb::arg("score"), nb::arg("threshold"));
}

}  // namespace clusterscore::bindings
