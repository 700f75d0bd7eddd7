// Bindings of a comparison of two clusterings: its construction, coverage, every level
// of aggregation, per-item rows, flows, and the bootstrap over truth clusters.
#include <climits>
#include <cstddef>
#include <memory>
#include <span>

#include "convert.h"
#include "input/batch_coder.h"
#include "intervals/bootstrap.h"
#include "intervals/multiple.h"

namespace clusterscore::bindings {
namespace {

// The bootstrap of the runs' sums (stacked_sums()): all of one kind, with the GIL released.
BootstrapResult bootstrap_of(
    const nb::list& sums, uint32_t resamples, uint64_t seed, double confidence,
    nb::ndarray<const uint32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> rank) {
  const BootstrapOptions o{resamples, seed, confidence, {rank.data(), rank.data() + rank.shape(0)}};
  if (sums.size() > 0 && nb::isinstance<CellSums>(sums[0])) {
    std::vector<CellSums> runs;
    for (nb::handle h : sums) runs.push_back(nb::cast<const CellSums&>(h));
    nb::gil_scoped_release release;
    return paired_bootstrap(runs, o);
  }
  std::vector<ClusterSums> runs;
  for (nb::handle h : sums) runs.push_back(nb::cast<const ClusterSums&>(h));
  nb::gil_scoped_release release;
  return paired_bootstrap(runs, o);
}

// A column of a bootstrap's rows (value or delta rows, arrays of structs): where its
// field sits in a row, and of which type.
enum class FieldType { kU32, kF64, kU8 };
struct Field {
  const char* name;
  size_t offset;
  FieldType type;
};
template <class Row>
constexpr Field kSpreadFields[] = {
    {"std_error", offsetof(Row, spread) + offsetof(Spread, std_error), FieldType::kF64},
    {"ci_low", offsetof(Row, spread) + offsetof(Spread, ci_low), FieldType::kF64},
    {"ci_high", offsetof(Row, spread) + offsetof(Spread, ci_high), FieldType::kF64},
    {"resamples", offsetof(Row, spread) + offsetof(Spread, resamples), FieldType::kU32},
    {"units", offsetof(Row, spread) + offsetof(Spread, units), FieldType::kU32},
    {"no_interval", offsetof(Row, spread) + offsetof(Spread, none), FieldType::kU8},
    {"group", offsetof(Row, group), FieldType::kU32},
    {"metric", offsetof(Row, metric), FieldType::kU32},
};
constexpr Field kValueFields[] = {{"run", offsetof(ValueRow, run), FieldType::kU32},
                                  {"estimate", offsetof(ValueRow, estimate), FieldType::kF64}};
constexpr Field kDeltaFields[] = {{"run_a", offsetof(DeltaRow, run_a), FieldType::kU32},
                                  {"run_b", offsetof(DeltaRow, run_b), FieldType::kU32},
                                  {"value_a", offsetof(DeltaRow, value_a), FieldType::kF64},
                                  {"value_b", offsetof(DeltaRow, value_b), FieldType::kF64},
                                  {"delta", offsetof(DeltaRow, delta), FieldType::kF64}};

// A read-only view of the field at `offset` of every row of `rows`, strided over the
// rows: no copy, and the view keeps `owner` (the result holding `rows`) alive.
template <class T, class Row>
View<T> field_view(const std::vector<Row>& rows, size_t offset, nb::handle owner) {
  static_assert(sizeof(Row) % sizeof(double) == 0 && alignof(Row) >= alignof(double));
  static const Row kNoRow{};
  const char* first = reinterpret_cast<const char*>(rows.empty() ? &kNoRow : rows.data());
  const size_t shape[1] = {rows.size()};
  const int64_t strides[1] = {int64_t(sizeof(Row) / sizeof(T))};
  return View<T>(reinterpret_cast<const T*>(first + offset), 1, shape, owner, strides);
}

// The column `name` of `rows` (its fields: kSpreadFields' and `own`), as a field_view().
template <class Row, size_t N>
nb::object rows_column(const std::vector<Row>& rows, const Field (&own)[N], const std::string& name,
                       nb::handle owner) {
  const auto view = [&](const Field& f) -> nb::object {
    switch (f.type) {
      case FieldType::kU32:
        return nb::cast(field_view<uint32_t>(rows, f.offset, owner));
      case FieldType::kF64:
        return nb::cast(field_view<double>(rows, f.offset, owner));
      default:
        return nb::cast(field_view<uint8_t>(rows, f.offset, owner));
    }
  };
  for (const Field& f : kSpreadFields<Row>)
    if (name == f.name) return view(f);
  for (const Field& f : own)
    if (name == f.name) return view(f);
  throw nb::key_error(("no column " + name).c_str());
}

// Comparison::per_item() for the given items, with the GIL released.
PerItemRows per_item_rows(const Comparison& c, const Array<uint32_t>& item_index,
                          const MetricTable& counts) {
  return without_gil([&] { return c.per_item({item_index.data(), item_index.shape(0)}, counts); });
}

// Column `k` of a result with metric columns (GroupTable, PerItemRows).
template <class T>
View<double> columns_view(nb::handle_t<T> self, size_t k) {
  return column_view(nb::cast<const T&>(self).columns, k, self);
}

// Offsets from 0 to each value's end, as Arrow lays out a string column.
template <class Offset>
nb::object value_offsets(const BigVector<uint64_t>& ends) {
  BigVector<Offset> out(ends.size() + 1);
  out[0] = 0;
  for (size_t i = 0; i < ends.size(); ++i) out[i + 1] = Offset(ends[i]);
  return to_numpy(std::move(out));
}

// A clustering whose clusters arrive as ids, or as ("codes", uint32 array): codes in order
// of first appearance (see ClusteringInput), which Python keeps in place of text ids.
ClusteringInput clustering_input(const std::string& role, IdColumn items, nb::handle clusters,
                                 Columns& column) {
  if (nb::isinstance<nb::tuple>(clusters)) {
    const nb::tuple t = nb::borrow<nb::tuple>(clusters);
    if (nb::cast<std::string>(t[0]) == "codes") {
      const auto codes = nb::cast<Array<uint32_t>>(t[1]);
      IdColumn rows;
      rows.size = codes.shape(0);
      return ClusteringInput{role, items, rows, codes.data()};
    }
  }
  return ClusteringInput{role, items, column(clusters)};
}

std::unique_ptr<Comparison> make_comparison(const std::string& role_a, nb::handle a_items,
                                            nb::handle a_clusters, const std::string& role_b,
                                            nb::handle b_items, nb::handle b_clusters,
                                            nb::object items, nb::object weights,
                                            MetricFamily family, TruthScope scope,
                                            nb::object counts, nb::object weights_sq) {
  Columns column;
  ClusteringInput a = clustering_input(role_a, column(a_items), a_clusters, column);
  ClusteringInput b = clustering_input(role_b, column(b_items), b_clusters, column);
  ItemsInput t;
  if (!items.is_none()) {
    t.items = column(items);
    if (!weights.is_none()) {
      auto w = nb::cast<Array<double>>(weights);
      if (w.shape(0) != t.items.size) throw std::invalid_argument("clusterscore: weights length");
      t.weights = w.data();
    }
    if (!counts.is_none()) {
      auto n = nb::cast<Array<uint64_t>>(counts);
      auto q = nb::cast<Array<double>>(weights_sq);
      if (n.shape(0) != t.items.size || q.shape(0) != t.items.size)
        throw std::invalid_argument("clusterscore: counts or weights_sq length");
      t.counts = n.data();
      t.weights_sq = q.data();
    }
  }
  nb::gil_scoped_release release;
  return std::make_unique<Comparison>(a, b, items.is_none() ? nullptr : &t, family, scope);
}

}  // namespace

void bind_comparison(nb::module_& m) {
  nb::enum_<MetricFamily>(m, "MetricFamily")
      .value("pointwise", MetricFamily::kPointwise)
      .value("impact", MetricFamily::kImpact);
  nb::enum_<TruthScope>(m, "TruthScope")
      .value("common", TruthScope::kCommon)
      .value("entities", TruthScope::kEntities);
  nb::enum_<Side>(m, "Side").value("a", Side::kA).value("b", Side::kB);
  nb::enum_<DesignKind>(m, "DesignKind")
      .value("uniform", DesignKind::kUniform)
      .value("inverse_size", DesignKind::kInverseSize)
      .value("given", DesignKind::kGiven);
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
      [](const Comparison& c, const ItemGrouping* g) {
        return without_gil([&] { return run_sums(c, g); });
      },
      nb::arg("comparison"), nb::arg("grouping").none());
  // The same of several groupings, their groups one after another: one bootstrap for all.
  m.def(
      "stacked_sums",
      [](const Comparison& c, const std::vector<const ItemGrouping*>& groupings) {
        return without_gil([&] { return run_sums(c, groupings); });
      },
      nb::arg("comparison"), nb::arg("groupings"),
      nb::sig("def stacked_sums(comparison: Comparison, groupings: collections.abc.Sequence["
              "ItemGrouping | None]) -> ClusterSums | CellSums"));
  // A cluster column as codes and first rows (ColumnCodes), for Python to keep the codes
  // and the first rows' values in place of the strings.
  m.def(
      "column_codes",
      [](nb::handle ids) {
        Columns column;
        const IdColumn c = column(ids);
        ColumnCodes codes = without_gil([&] { return column_codes(c); });
        return nb::make_tuple(to_numpy(std::move(codes.code)),
                              to_numpy(std::move(codes.first_row)));
      },
      nb::arg("ids"));
  // A cluster column coded as Parquet batches arrive (BatchCoder), for Python to keep the
  // codes and the values in place of the strings. values() hands the values over (bytes,
  // and offsets of 32 bits if they fit, else 64) and leaves the coder empty.
  nb::class_<BatchCoder>(m, "BatchCoder")
      .def(nb::init<size_t>(), nb::arg("expected_rows"))
      .def(
          "add",
          [](BatchCoder& coder, nb::handle ids,
             nb::ndarray<uint32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> out) {
            const IdColumn c = id_column(nb::cast<nb::tuple>(ids));
            if (out.shape(0) != c.size)
              throw std::invalid_argument("clusterscore: BatchCoder.add: out has another length");
            without_gil([&] { coder.add(c, out.data()); });
          },
          nb::arg("ids"), nb::arg("out"))
      .def("__len__", &BatchCoder::size)
      .def("values", [](BatchCoder& coder) {
        BatchCoder::Values v = coder.take_values();
        nb::object offsets = v.bytes.size() <= size_t(INT32_MAX) ? value_offsets<int32_t>(v.ends)
                                                                 : value_offsets<int64_t>(v.ends);
        return nb::make_tuple(to_numpy(std::move(v.bytes)), offsets);
      });
  nb::class_<BootstrapResult>(m, "BootstrapResult",
                              "A paired bootstrap's value rows (per run, group, metric) and delta "
                              "rows (per pair of runs, group, metric); their columns are read-only "
                              "views of the rows.")
      .def_ro("metrics", &BootstrapResult::metrics)
      .def_ro("clusters", &BootstrapResult::clusters)
      .def(
          "value_column",
          [](nb::handle_t<BootstrapResult> self, const std::string& name) {
            return rows_column(nb::cast<const BootstrapResult&>(self).values, kValueFields, name,
                               self);
          },
          nb::arg("name"))
      .def(
          "delta_column",
          [](nb::handle_t<BootstrapResult> self, const std::string& name) {
            return rows_column(nb::cast<const BootstrapResult&>(self).rows, kDeltaFields, name,
                               self);
          },
          nb::arg("name"));
  m.def("paired_bootstrap", &bootstrap_of, nb::arg("sums"), nb::arg("resamples"), nb::arg("seed"),
        nb::arg("confidence"), nb::arg("cluster_rank"));

  nb::class_<ItemGrouping>(m, "ItemGrouping")
      .def_prop_ro("group_row", [](const ItemGrouping& g) { return to_numpy(g.group_row); })
      .def_ro("n_groups", &ItemGrouping::n_groups)
      .def(
          "keep",
          [](const ItemGrouping& g, const std::vector<uint32_t>& keep) {
            return without_gil([&] { return keep_groups(g, keep); });
          },
          nb::arg("groups"), "This grouping with only `groups`, renumbered in their order.");

  // Opaque: per-cell counts (Comparison.cell_counts), computed once per per-item table and
  // handed back to each per_item call, not counted again for each batch of items.
  nb::class_<MetricTable>(m, "MetricTable");
  nb::class_<GroupTable>(m, "GroupTable",
                         "One row per non-empty group: its code, items, weight, and a column per "
                         "name (read-only views of the core's arrays).")
      .def_prop_ro("group", &member_view<GroupTable, &GroupTable::group>)
      .def_prop_ro("items", &member_view<GroupTable, &GroupTable::items>)
      .def_prop_ro("weight", &member_view<GroupTable, &GroupTable::weight>)
      .def_ro("names", &GroupTable::names)
      .def("column", &columns_view<GroupTable>, nb::arg("k"));
  nb::class_<PerItemRows>(m, "PerItemRows",
                          "Per item: the first row of its B cluster, its weight, and a column "
                          "per name (read-only views of the core's arrays).")
      .def_prop_ro("b_cluster_row", &member_view<PerItemRows, &PerItemRows::b_cluster_first_row>)
      .def_prop_ro("weight", &member_view<PerItemRows, &PerItemRows::weight>)
      .def_ro("names", &PerItemRows::names)
      .def("column", &columns_view<PerItemRows>, nb::arg("k"));
  nb::class_<ClusterFlows>(m, "ClusterFlows",
                           "Changed (Base cluster, Exp cluster) flows, largest first: the first "
                           "rows naming each flow's clusters, its items, weight and shares.")
      .def_prop_ro("a_cluster_row", &member_view<ClusterFlows, &ClusterFlows::a_cluster_row>)
      .def_prop_ro("b_cluster_row", &member_view<ClusterFlows, &ClusterFlows::b_cluster_row>)
      .def_prop_ro("items", &nested_view<ClusterFlows, &ClusterFlows::flows, &FlowTable::items>)
      .def_prop_ro("weight", &nested_view<ClusterFlows, &ClusterFlows::flows, &FlowTable::weight>)
      .def_prop_ro("share_of_base",
                   &nested_view<ClusterFlows, &ClusterFlows::flows, &FlowTable::share_of_base>)
      .def_prop_ro("share_of_exp",
                   &nested_view<ClusterFlows, &ClusterFlows::flows, &FlowTable::share_of_exp>);

  nb::class_<Comparison>(m, "Comparison")
      .def(nb::new_(&make_comparison), nb::arg("role_a"), nb::arg("a_items"), nb::arg("a_clusters"),
           nb::arg("role_b"), nb::arg("b_items"), nb::arg("b_clusters"), nb::arg("items").none(),
           nb::arg("weights").none(), nb::arg("family"), nb::arg("scope"),
           nb::arg("counts").none() = nb::none(), nb::arg("weights_sq").none() = nb::none())
      .def(
          "use_design",
          [](Comparison& c, DesignKind kind, std::vector<double> given, bool per_entity) {
            return c.use_design(Design{kind, std::move(given), per_entity});
          },
          nb::arg("kind"), nb::arg("given"), nb::arg("per_entity"),
          "Sets the design weights for the comparison's scope; returns the share of the "
          "population drawn.")
      .def("coverage", &Comparison::coverage)
      .def("impact", &Comparison::impact)
      .def("overall", &Comparison::overall, nb::call_guard<nb::gil_scoped_release>())
      .def("by_cluster", &Comparison::by_cluster, nb::arg("side"),
           nb::call_guard<nb::gil_scoped_release>())
      .def("by_items", &Comparison::by_items, nb::arg("grouping"),
           nb::call_guard<nb::gil_scoped_release>())
      .def(
          "group_items",
          [](const Comparison& c, const nb::list& cols) {
            Columns column;
            std::vector<IdColumn> v;
            for (nb::handle h : cols) v.push_back(column(h));
            return c.group_items(v);
          },
          nb::arg("columns"))
      .def("common_items", [](const Comparison& c) { return to_numpy(c.common_items()); })
      .def("cell_counts",
           [](const Comparison& c) { return without_gil([&] { return c.cell_counts(); }); })
      .def("per_item", &per_item_rows, nb::arg("items"), nb::arg("counts"))
      .def("sample_pairs", &sample_table, nb::arg("pairs"), nb::arg("stable_pairs"),
           nb::arg("mode"), nb::arg("seed"))
      .def("sample_unit_pairs", &unit_draws, nb::arg("pairs"), nb::arg("stable_pairs"),
           nb::arg("mode"), nb::arg("seed"))
      .def(
          "items_rows",
          [](const Comparison& c, const Array<uint32_t>& items) {
            return to_numpy(c.items_rows({items.data(), items.shape(0)}));
          },
          nb::arg("items"))
      .def("sample_totals", [](const Comparison& c) { return totals_dict(sample_totals(c)); })
      .def(
          "draws_needed",
          [](const Comparison& c, SampleMode mode) { return needed_dict(draws_needed(c, mode)); },
          nb::arg("mode"))
      .def("flows", &Comparison::flows, nb::call_guard<nb::gil_scoped_release>())
      .def("classic",
           [](const Comparison& c) {
             return scores_dict(
                 without_gil([&] { return classic_scores(c.cells(), ClassicOptions{}); }), false);
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
          nb::arg("side"), nb::rv_policy::reference_internal);
  m.def(
      "marked_deltas",
      [](const Array<double>& delta, const Array<double>& std_error, const Array<uint32_t>& units,
         double level) {
        if (delta.shape(0) != std_error.shape(0) || delta.shape(0) != units.shape(0)) {
          throw std::invalid_argument("marked_deltas: one standard error and count per delta");
        }
        std::vector<double> p(delta.shape(0));
        for (size_t k = 0; k < p.size(); ++k) {
          p[k] = student_p_value(delta.data()[k], std_error.data()[k], units.data()[k]);
        }
        auto kept = benjamini_hochberg(p, level);
        return nb::make_tuple(to_numpy(std::move(p)), to_numpy(std::move(kept)));
      },
      nb::arg("delta"), nb::arg("std_error"), nb::arg("units"), nb::arg("level"));
}

}  // namespace clusterscore::bindings
