// Bindings of the levels' sums made where the units are (metrics/unit_levels.h): the Spark
// engine calls them on each partition, and on the sums it makes of their rows.
#include "convert.h"
#include "metrics/pointwise.h"
#include "metrics/unit_levels.h"

namespace clusterscore::bindings {
namespace {

template <class T>
std::span<const T> span_of(const Array<T>& a) {
  return {a.data(), a.shape(0)};
}

GroupTable unit_sums(const Array<uint64_t>& count, const Array<double>& weight,
                     const Array<double>& weight_sq, const Array<double>& cell_weight,
                     const Array<double>& truth_weight, const Array<double>& actual_weight,
                     const std::optional<Array<uint64_t>>& truth_size, double total, double scale,
                     bool per_entity) {
  CellUnits u{span_of(count),
              span_of(weight),
              span_of(weight_sq),
              span_of(cell_weight),
              span_of(truth_weight),
              span_of(actual_weight),
              truth_size ? span_of(*truth_size) : std::span<const uint64_t>{},
              total,
              scale,
              per_entity};
  return without_gil([&] { return unit_level_sums(u); });
}

// Summed rows as the core's group table: group g is row g.
GroupTable sums_of(const Array<uint64_t>& items, const Array<double>& weight,
                   const std::vector<std::string>& names,
                   const std::vector<Array<double>>& columns) {
  const size_t n = items.shape(0);
  if (weight.shape(0) != n || columns.size() != names.size())
    throw std::invalid_argument("clusterscore: summed rows' columns differ in length");
  GroupTable sums;
  sums.group.resize(n);
  for (size_t g = 0; g < n; ++g) sums.group[g] = uint32_t(g);
  sums.items.assign(items.data(), items.data() + n);
  sums.weight.assign(weight.data(), weight.data() + n);
  sums.names = names;
  for (const auto& c : columns) sums.columns.emplace_back(c.data(), c.data() + c.shape(0));
  return sums;
}

GroupTable finish(const Array<uint64_t>& items, const Array<double>& weight,
                  const std::vector<std::string>& names,
                  const std::vector<Array<double>>& columns) {
  return finish_level_sums(sums_of(items, weight, names, columns));
}

// `Fn` of a diff's units, as impact_unit_sums() takes them.
template <GroupTable (*Fn)(const ImpactUnits&)>
GroupTable on_impact_units(const Array<uint64_t>& count, const Array<double>& weight,
                           const Array<double>& cell_weight, const Array<double>& base_weight,
                           const Array<double>& exp_weight, const Array<uint64_t>& cell_count,
                           const Array<uint64_t>& base_count, const Array<uint64_t>& exp_count) {
  const ImpactUnits u{span_of(count),       span_of(weight),     span_of(cell_weight),
                      span_of(base_weight), span_of(exp_weight), span_of(cell_count),
                      span_of(base_count),  span_of(exp_count)};
  return without_gil([&] { return Fn(u); });
}

GroupTable item_values(const Array<uint64_t>& count, const Array<double>& weight,
                       const Array<double>& cell_weight, const Array<double>& truth_weight,
                       const Array<double>& actual_weight, double total) {
  // Σw² is not read: the per-item values are the cell's, not its pairs'.
  CellUnits u{span_of(count),
              span_of(weight),
              span_of(weight),
              span_of(cell_weight),
              span_of(truth_weight),
              span_of(actual_weight),
              {},
              total};
  return without_gil([&] { return unit_item_values(u); });
}

GroupTable finish_impact(const Array<uint64_t>& items, const Array<double>& weight,
                         const std::vector<std::string>& names,
                         const std::vector<Array<double>>& columns) {
  return finish_impact_sums(sums_of(items, weight, names, columns));
}

ImpactSummary summary(const Array<uint64_t>& items, const Array<double>& weight,
                      const std::vector<std::string>& names,
                      const std::vector<Array<double>>& columns, uint64_t base_clusters_split,
                      uint64_t exp_clusters_merged) {
  return impact_summary_of_sums(sums_of(items, weight, names, columns), 0, base_clusters_split,
                                exp_clusters_merged);
}

// Defines `name` as `fn` (an on_impact_units()) with its arguments' names.
template <class Fn>
void def_on_impact_units(nb::module_& m, const char* name, Fn fn, const char* doc) {
  m.def(name, fn, nb::arg("count"), nb::arg("weight"), nb::arg("cell_weight"),
        nb::arg("base_weight"), nb::arg("exp_weight"), nb::arg("cell_count"), nb::arg("base_count"),
        nb::arg("exp_count"), doc);
}

}  // namespace

void bind_levels(nb::module_& m) {
  m.def("unit_level_sums", &unit_sums, nb::arg("count"), nb::arg("weight"), nb::arg("weight_sq"),
        nb::arg("cell_weight"), nb::arg("truth_weight"), nb::arg("actual_weight"),
        nb::arg("truth_size").none(), nb::arg("total"), nb::arg("scale"), nb::arg("per_entity"),
        "Per unit of one cell's items (count, Σw, Σw²) with its cell's weight, its truth "
        "cluster's and its actual cluster's as the scope reads them: what it adds to every "
        "level's sums (design_weight, each metric's design-weighted sum, the pair sums). "
        "`truth_size`: per unit, its truth cluster's items in the truth (inverse_size "
        "design), None for design weights of 1; `total`: w(T), or w(S') in the entities "
        "scope; `scale`: pair_scale() of T, the same for every part.");
  m.def("finish_level_sums", &finish, nb::arg("items"), nb::arg("weight"), nb::arg("names"),
        nb::arg("columns"),
        "Each group's values from its sums of unit_level_sums()' rows (the same names and "
        "order): the means, f1_of_means and the pair metrics (NaN where undefined).");
  def_on_impact_units(
      m, "impact_unit_sums", &on_impact_units<impact_unit_sums>,
      "Per unit of one cell of a diff (count, Σw) with its cell's, its Base cluster's and "
      "its Exp cluster's weights and item counts over T: what it adds to every level's "
      "sums (each impact metric's weighted sum, the summary's parts, the flow shares), and "
      "whether its Base cluster is split and its Exp cluster merged.");
  def_on_impact_units(
      m, "impact_unit_item_values", &on_impact_units<impact_unit_item_values>,
      "Per unit of one cell of a diff (as impact_unit_sums() takes them): the values the "
      "per-item table gives each of its items (B, E, X, U, then the impact metrics).");
  m.def("unit_item_values", &item_values, nb::arg("count"), nb::arg("weight"),
        nb::arg("cell_weight"), nb::arg("truth_weight"), nb::arg("actual_weight"), nb::arg("total"),
        "Per unit of one cell's items (as unit_level_sums() takes them): the values the "
        "per-item table gives each of its items (tp, fp, fn, tn, then the pointwise "
        "metrics).");
  m.def("finish_impact_sums", &finish_impact, nb::arg("items"), nb::arg("weight"), nb::arg("names"),
        nb::arg("columns"),
        "Each group's impact means from its sums of impact_unit_sums()' rows (the same names "
        "and order), and affected_weight.");
  m.def("impact_summary_of_sums", &summary, nb::arg("items"), nb::arg("weight"), nb::arg("names"),
        nb::arg("columns"), nb::arg("base_clusters_split"), nb::arg("exp_clusters_merged"),
        "The impact summary of one row: impact_unit_sums()' rows summed over T, with the "
        "counts of Base clusters split and Exp clusters merged.");
  m.def("pair_scale", nb::overload_cast<double, uint64_t>(&pair_scale), nb::arg("total_weight"),
        nb::arg("total_count"),
        "The pair sums' power of two near 1 / the mean weight of an item of T.");
}

}  // namespace clusterscore::bindings
