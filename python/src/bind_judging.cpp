// Bindings of judging a diff: the sample's totals and pairs, estimates from verdicts,
// the judgement planner, and what a judged sample is matched and fingerprinted with.

#include "clusterscore/estimate.h"
#include "clusterscore/plan.h"
#include "convert.h"

namespace clusterscore::bindings {

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

nb::dict needed_dict(const DrawsNeeded& n) {
  nb::dict d;
  d["delta_precision"] = nb::make_tuple(n.delta_precision[0], n.delta_precision[1]);
  d["split_rate"] = n.split_rate;
  d["merge_rate"] = n.merge_rate;
  return d;
}

PairSampleTable sample_table(const Comparison& c, uint64_t pairs, uint64_t stable_pairs,
                             SampleMode mode, uint64_t seed) {
  nb::gil_scoped_release release;
  return sample_pairs(c, SampleOptions{pairs, stable_pairs, mode, seed});
}

UnitPairDraws unit_draws(const Comparison& c, uint64_t pairs, uint64_t stable_pairs,
                         SampleMode mode, uint64_t seed) {
  nb::gil_scoped_release release;
  return sample_unit_pairs(c, SampleOptions{pairs, stable_pairs, mode, seed});
}

namespace {

// The columns both sample tables have: each row's kind (as its code, view_of()), stratum,
// and item i's U, B, E.
template <class T>
void bind_shared_columns(nb::class_<T>& c) {
  c.def_prop_ro("kind", &member_view<T, &T::kind>)
      .def_prop_ro("stratum", &member_view<T, &T::stratum>)
      .def_prop_ro("U_i", &member_view<T, &T::U>)
      .def_prop_ro("B_i", &member_view<T, &T::B>)
      .def_prop_ro("E_i", &member_view<T, &T::E>);
}

}  // namespace

namespace {

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

// DrawsNeeded from its dict (needed_dict's keys); none: nothing known, nothing marked.
DrawsNeeded needed_of(const std::optional<nb::dict>& d) {
  DrawsNeeded n;
  if (!d) return n;
  const nb::tuple dp = nb::cast<nb::tuple>((*d)["delta_precision"]);
  if (dp.size() != 2) throw std::invalid_argument("clusterscore: delta_precision needs 2 strata");
  n.delta_precision[0] = nb::cast<uint64_t>(dp[0]);
  n.delta_precision[1] = nb::cast<uint64_t>(dp[1]);
  n.split_rate = nb::cast<uint64_t>((*d)["split_rate"]);
  n.merge_rate = nb::cast<uint64_t>((*d)["merge_rate"]);
  return n;
}

// A judged sample as Python hands it over: its columns, kept alive here, and the core's
// view of them. Built once, then asked for estimates, shares or contributions.
struct BoundJudgedSample {
  Array<uint8_t> kind, stratum;
  Array<uint64_t> draws;
  Array<double> U, B, E;
  Array<uint32_t> same, votes;
  std::optional<Array<uint32_t>> unit;
  JudgedSample sample;

  BoundJudgedSample(Array<uint8_t> kind_, Array<uint8_t> stratum_, Array<uint64_t> draws_,
                    Array<double> U_, Array<double> B_, Array<double> E_, Array<uint32_t> same_,
                    Array<uint32_t> votes_, const nb::dict& totals, SampleMode mode,
                    std::optional<Array<uint32_t>> unit_, const std::optional<nb::dict>& needed)
      : kind(std::move(kind_)),
        stratum(std::move(stratum_)),
        draws(std::move(draws_)),
        U(std::move(U_)),
        B(std::move(B_)),
        E(std::move(E_)),
        same(std::move(same_)),
        votes(std::move(votes_)),
        unit(std::move(unit_)) {
    sample.kind = pair_kinds({kind.data(), size_t(kind.shape(0))});
    sample.stratum = {stratum.data(), size_t(stratum.shape(0))};
    sample.draws = {draws.data(), size_t(draws.shape(0))};
    sample.U = {U.data(), size_t(U.shape(0))};
    sample.B = {B.data(), size_t(B.shape(0))};
    sample.E = {E.data(), size_t(E.shape(0))};
    sample.same = {same.data(), size_t(same.shape(0))};
    sample.votes = {votes.data(), size_t(votes.shape(0))};
    if (unit) sample.unit = {unit->data(), size_t(unit->shape(0))};
    sample.totals = totals_of(totals);
    sample.mode = mode;
    sample.needed = needed_of(needed);
  }
};

nb::list estimate_list(const BoundJudgedSample& s) {
  nb::list out;
  for (const Estimate& e : estimate(s.sample)) {
    nb::dict d;
    d["name"] = e.name;
    d["estimate"] = opt(e.estimate);
    d["std_error"] = opt(e.std_error);
    d["ci_low"] = opt(e.ci_low);
    d["ci_high"] = opt(e.ci_high);
    d["pairs"] = e.pairs;
    d["exact"] = e.exact;
    d["draws_needed"] = e.draws_needed;
    d["needed_of"] = e.needed_of;
    out.append(d);
  }
  return out;
}

nb::dict raters_dict(const BoundJudgedSample& s) {
  const RaterAgreement r = rater_agreement(s.sample);
  nb::dict d, classes;
  d["measured"] = r.measured;
  d["noise"] = r.noise;
  const char* names[3] = {"split", "merge", "stable"};
  for (size_t c = 0; c < 3; ++c) {
    nb::dict one;
    one["replicated_pairs"] = r.replicated[c];
    one["disagreement"] = opt(r.disagreement[c]);
    classes[names[c]] = one;
  }
  d["classes"] = classes;
  return d;
}

nb::dict shares_dict(const BoundJudgedSample& s) {
  const JudgedShares x = judged_shares(s.sample);
  nb::dict d;
  d["split"] = opt(x.split);
  d["merge"] = opt(x.merge);
  d["stable"] = opt(x.stable);
  return d;
}

nb::dict contributions_dict(const BoundJudgedSample& s, nb::handle values) {
  Columns column;
  Contributions c = contributions(column(values), s.sample);
  nb::dict d;
  d["first_pair"] = to_numpy(std::move(c.first_pair));
  d["draws"] = to_numpy(std::move(c.draws));
  d["jaccard_distance"] = to_numpy(std::move(c.jaccard_distance));
  d["split_distance"] = to_numpy(std::move(c.split_distance));
  d["merge_distance"] = to_numpy(std::move(c.merge_distance));
  return d;
}

}  // namespace

void bind_judging(nb::module_& m) {
  nb::enum_<PairKind>(m, "PairKind")
      .value("split", PairKind::kSplit)
      .value("merge", PairKind::kMerge)
      .value("stable", PairKind::kStable)
      .value("self", PairKind::kSelf);
  nb::class_<PairSampleTable> table(m, "PairSampleTable",
                                    "A sample's distinct pairs of items with their draws "
                                    "(read-only views of the core's arrays).");
  table.def_prop_ro("item_i", &member_view<PairSampleTable, &PairSampleTable::item_i>)
      .def_prop_ro("item_j", &member_view<PairSampleTable, &PairSampleTable::item_j>)
      .def_prop_ro("draws", &member_view<PairSampleTable, &PairSampleTable::draws>);
  bind_shared_columns(table);
  nb::class_<UnitPairDraws> units(m, "UnitPairDraws",
                                  "A sample's draws as units and positions in them, for the "
                                  "engine that holds the units' items (read-only views).");
  units.def_prop_ro("unit_i", &member_view<UnitPairDraws, &UnitPairDraws::unit_i>)
      .def_prop_ro("unit_j", &member_view<UnitPairDraws, &UnitPairDraws::unit_j>)
      .def_prop_ro("at_i", &member_view<UnitPairDraws, &UnitPairDraws::at_i>)
      .def_prop_ro("at_j", &member_view<UnitPairDraws, &UnitPairDraws::at_j>);
  bind_shared_columns(units);
  nb::enum_<SampleMode>(m, "SampleMode")
      .value("plain", SampleMode::kPlain)
      .value("stratified", SampleMode::kStratified)
      .value("distance_only", SampleMode::kDistanceOnly);
  nb::class_<BoundJudgedSample>(m, "JudgedSample")
      .def(nb::init<Array<uint8_t>, Array<uint8_t>, Array<uint64_t>, Array<double>, Array<double>,
                    Array<double>, Array<uint32_t>, Array<uint32_t>, const nb::dict&, SampleMode,
                    std::optional<Array<uint32_t>>, const std::optional<nb::dict>&>(),
           nb::arg("kind"), nb::arg("stratum"), nb::arg("draws"), nb::arg("U"), nb::arg("B"),
           nb::arg("E"), nb::arg("same"), nb::arg("votes"), nb::arg("totals"), nb::arg("mode"),
           nb::arg("unit").none() = nb::none(), nb::arg("needed").none() = nb::none())
      .def("estimate", &estimate_list)
      .def("raters", &raters_dict)
      .def("shares", &shares_dict)
      .def("contributions", &contributions_dict, nb::arg("values"));
  m.def(
      "replicated_pairs",
      [](Array<uint8_t> kind, Array<uint64_t> draws, Array<uint32_t> unit, uint64_t count) {
        return to_numpy(replicated_pairs(pair_kinds({kind.data(), size_t(kind.shape(0))}),
                                         {draws.data(), size_t(draws.shape(0))},
                                         {unit.data(), size_t(unit.shape(0))}, count));
      },
      nb::arg("kind"), nb::arg("draws"), nb::arg("unit"), nb::arg("count"));
  m.def(
      "plan_pairs",
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
      },
      nb::arg("totals"), nb::arg("same_split"), nb::arg("same_merge"), nb::arg("same_stable"),
      nb::arg("half_width"), nb::arg("confidence"), nb::arg("metrics"));
  m.def(
      "match_pairs",
      [](nb::handle si, nb::handle sj, nb::handle vi, nb::handle vj) {
        Columns column;
        return to_numpy(match_pairs(column(si), column(sj), column(vi), column(vj)));
      },
      nb::arg("sample_i"), nb::arg("sample_j"), nb::arg("verdict_i"), nb::arg("verdict_j"));
  m.def(
      "fingerprint",
      [](nb::handle items, nb::handle clusters) {
        Columns column;
        return fingerprint(ClusteringInput{"", column(items), column(clusters)});
      },
      nb::arg("items"), nb::arg("clusters"));
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
  m.def(
      "pick_by_weight",
      [](const Array<uint32_t>& member_group, const Array<double>& weight,
         const Array<uint32_t>& draw_group, const Array<double>& at) {
        return to_numpy(pick_by_weight(
            {member_group.data(), member_group.shape(0)}, {weight.data(), weight.shape(0)},
            {draw_group.data(), draw_group.shape(0)}, {at.data(), at.shape(0)}));
      },
      nb::arg("member_group"), nb::arg("weight"), nb::arg("draw_group"), nb::arg("at"));
  m.def("combine_fingerprints", &combine_fingerprints, nb::arg("parts"), nb::arg("rows"),
        nb::arg("items"));
}

}  // namespace clusterscore::bindings
