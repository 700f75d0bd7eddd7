// Bindings of the curve over match thresholds: the curve's rows as columns, and the
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

// threshold_curve() as {"threshold", "clusters", every metric: arrays; "best":
// {metric: row or None}; "pairs", "distinct_scores": counts}.
nb::dict curve_dict(const Comparison& c, const Array<uint32_t>& left, const Array<uint32_t>& right,
                    const Array<double>& score, std::vector<double> thresholds, size_t max_points) {
  CurveTable t = without_gil([&] {
    return threshold_curve(c, scored_pairs(left, right, score),
                           CurveOptions{std::move(thresholds), max_points});
  });
  nb::dict d, best;
  d["threshold"] = to_numpy(std::move(t.threshold));
  d["clusters"] = to_numpy(std::move(t.clusters));
  for (size_t k = 0; k < t.metrics.names.size(); ++k)
    d[t.metrics.names[k].c_str()] = to_numpy(std::move(t.metrics.columns[k]));
  for (size_t b = 0; b < t.best.size(); ++b)
    best[kCurveBest[b]] = t.best[b] == kNone ? nb::none() : nb::cast(t.best[b]);
  d["best"] = best;
  d["pairs"] = t.pairs;
  d["distinct_scores"] = t.distinct_scores;
  return d;
}

}  // namespace

void bind_curves(nb::module_& m) {
  m.def("threshold_curve", &curve_dict, nb::arg("comparison"), nb::arg("left"), nb::arg("right"),
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
