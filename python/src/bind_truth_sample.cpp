// Bindings of drawing the truth sample: seed records (uniform, or each at its chance),
// their candidates, and the probability with which a labelled entity was drawn.

#include "clusterscore/truth_sample.h"
#include "convert.h"

namespace clusterscore::bindings {

void bind_truth_sample(nb::module_& m) {
  m.attr("NO_GROUP") = kNoGroup;
  m.def(
      "draw_records",
      [](uint64_t records, uint64_t n, uint64_t seed) {
        return to_numpy(draw_records(records, n, seed));
      },
      nb::arg("records"), nb::arg("n"), nb::arg("seed"));
  m.def(
      "inclusion_probabilities",
      [](uint64_t records, uint64_t n, const Array<uint64_t>& sizes) {
        std::vector<double> out(sizes.shape(0));
        for (size_t k = 0; k < out.size(); ++k) {
          out[k] = inclusion_probability(records, n, sizes.data()[k]);
        }
        return to_numpy(std::move(out));
      },
      nb::arg("records"), nb::arg("n"), nb::arg("sizes"));
  m.def(
      "seed_chances",
      [](const Array<double>& weights, uint64_t n) {
        return to_numpy(seed_chances({weights.data(), weights.shape(0)}, n));
      },
      nb::arg("weights"), nb::arg("n"));
  m.def(
      "draw_records_in_proportion",
      [](const Array<double>& chances, uint64_t seed) {
        return to_numpy(draw_records_in_proportion({chances.data(), chances.shape(0)}, seed));
      },
      nb::arg("chances"), nb::arg("seed"));
  m.def(
      "entity_inclusion_probabilities",
      [](const Array<double>& chances, const Array<uint64_t>& record, const Array<uint32_t>& entity,
         size_t entities) {
        return to_numpy(entity_inclusion_probabilities({chances.data(), chances.shape(0)},
                                                       {record.data(), record.shape(0)},
                                                       {entity.data(), entity.shape(0)}, entities));
      },
      nb::arg("chances"), nb::arg("record"), nb::arg("entity"), nb::arg("entities"));
  m.def(
      "gather_candidates",
      [](const std::vector<Array<uint32_t>>& groups, const Array<uint64_t>& seeds,
         uint64_t most_per_group) {
        std::vector<std::span<const uint32_t>> spans;
        for (const auto& g : groups) spans.emplace_back(g.data(), g.shape(0));
        Candidates c = without_gil([&] {
          return gather_candidates(spans, {seeds.data(), seeds.shape(0)}, most_per_group);
        });
        std::vector<uint32_t> seed(c.pairs.size());
        std::vector<uint64_t> record(c.pairs.size());
        for (size_t k = 0; k < c.pairs.size(); ++k) std::tie(seed[k], record[k]) = c.pairs[k];
        return nb::make_tuple(to_numpy(std::move(seed)), to_numpy(std::move(record)),
                              c.groups_too_large);
      },
      nb::arg("groups"), nb::arg("seeds"), nb::arg("most_per_group"));
}

}  // namespace clusterscore::bindings
