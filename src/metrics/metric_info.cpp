#include "clusterscore/metric_info.h"

#include <array>
#include <limits>

namespace clusterscore {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using enum Better;
using enum Unit;
using G = MetricGroup;

// Named so that each row of the table reads as what it says.
constexpr bool kSymmetric = true, kOneSided = false;

constexpr MetricInfo metric(std::string_view name, G group, Better better, Unit unit, double low,
                            double high, bool symmetric) {
  return {name, group, better, unit, low, high, symmetric, true};
}
constexpr MetricInfo share(std::string_view name, G group, Better better, bool symmetric) {
  return metric(name, group, better, kShare, 0.0, 1.0, symmetric);
}
// A classic metric whose chance model needs counts: null with weights.
constexpr MetricInfo counts_only(MetricInfo m) {
  m.weightable = false;
  return m;
}

constexpr auto kRegistry = std::to_array<MetricInfo>({
    share("precision", G::kPointwise, kHigher, kOneSided),
    share("recall", G::kPointwise, kHigher, kOneSided),
    share("f1", G::kPointwise, kHigher, kSymmetric),
    share("accuracy", G::kPointwise, kHigher, kSymmetric),
    share("jaccard_index", G::kPointwise, kHigher, kSymmetric),
    share("jaccard_distance", G::kPointwise, kLower, kSymmetric),
    share("over_merge_rate", G::kPointwise, kLower, kOneSided),
    share("under_merge_rate", G::kPointwise, kLower, kOneSided),
    share("f1_of_means", G::kPointwise, kHigher, kSymmetric),
    share("pair_precision", G::kPointwise, kHigher, kOneSided),
    share("pair_recall", G::kPointwise, kHigher, kOneSided),
    share("pair_f1", G::kPointwise, kHigher, kSymmetric),

    share("split_distance", G::kImpact, kNeither, kOneSided),
    share("merge_distance", G::kImpact, kNeither, kOneSided),
    share("jaccard_distance", G::kImpact, kNeither, kSymmetric),
    share("jaccard_index", G::kImpact, kNeither, kSymmetric),
    share("split_rate", G::kImpact, kNeither, kOneSided),
    share("merge_rate", G::kImpact, kNeither, kOneSided),
    metric("affected_items", G::kImpact, kNeither, kCount, 0.0, kInf, kSymmetric),
    metric("affected_weight", G::kImpact, kNeither, kWeight, 0.0, kInf, kSymmetric),
    share("affected_jaccard_index", G::kImpact, kNeither, kSymmetric),
    share("unaffected_jaccard_index", G::kImpact, kNeither, kSymmetric),
    metric("base_clusters_split", G::kImpact, kNeither, kCount, 0.0, kInf, kOneSided),
    metric("exp_clusters_merged", G::kImpact, kNeither, kCount, 0.0, kInf, kOneSided),

    share("good_split_distance", G::kEstimate, kHigher, kOneSided),
    share("bad_split_distance", G::kEstimate, kLower, kOneSided),
    share("good_merge_distance", G::kEstimate, kHigher, kOneSided),
    share("bad_merge_distance", G::kEstimate, kLower, kOneSided),
    share("good_distance", G::kEstimate, kHigher, kOneSided),
    share("bad_distance", G::kEstimate, kLower, kOneSided),
    share("affected_good_index", G::kEstimate, kHigher, kOneSided),
    share("affected_bad_index", G::kEstimate, kLower, kOneSided),
    metric("delta_precision", G::kEstimate, kHigher, kShare, -1.0, 1.0, kOneSided),
    share("good_split_rate", G::kEstimate, kHigher, kOneSided),
    share("bad_split_rate", G::kEstimate, kLower, kOneSided),
    share("good_merge_rate", G::kEstimate, kHigher, kOneSided),
    share("bad_merge_rate", G::kEstimate, kLower, kOneSided),
    share("split_distance", G::kEstimate, kNeither, kOneSided),
    share("merge_distance", G::kEstimate, kNeither, kOneSided),
    share("jaccard_distance", G::kEstimate, kNeither, kOneSided),
    share("affected_jaccard_index", G::kEstimate, kNeither, kOneSided),

    share("rand_score", G::kClassic, kHigher, kSymmetric),
    share("fowlkes_mallows_score", G::kClassic, kHigher, kSymmetric),
    metric("mutual_info_score", G::kClassic, kHigher, kScore, 0.0, kInf, kSymmetric),
    share("normalized_mutual_info_score", G::kClassic, kHigher, kSymmetric),
    share("homogeneity_score", G::kClassic, kHigher, kOneSided),
    share("completeness_score", G::kClassic, kHigher, kOneSided),
    share("v_measure_score", G::kClassic, kHigher, kSymmetric),
    counts_only(metric("adjusted_rand_score", G::kClassic, kHigher, kScore, -0.5, 1.0, kSymmetric)),
    share("pair_precision_score", G::kClassic, kHigher, kOneSided),
    share("pair_recall_score", G::kClassic, kHigher, kOneSided),
    share("pair_jaccard_score", G::kClassic, kHigher, kSymmetric),
    counts_only(
        metric("adjusted_mutual_info_score", G::kClassic, kHigher, kScore, -kInf, 1.0, kSymmetric)),
    share("f_measure_score", G::kClassic, kHigher, kOneSided),
    share("purity_score", G::kClassic, kHigher, kOneSided),
    share("inverse_purity_score", G::kClassic, kHigher, kOneSided),
    share("clustering_error", G::kClassic, kLower, kSymmetric),
    metric("clustering_ratio", G::kClassic, kNeither, kScore, 0.0, kInf, kOneSided),
    share("bcubed_precision_score", G::kClassic, kHigher, kOneSided),
    share("bcubed_recall_score", G::kClassic, kHigher, kOneSided),
    share("bcubed_f_score", G::kClassic, kHigher, kSymmetric),
});

}  // namespace

std::span<const MetricInfo> metric_registry() noexcept { return kRegistry; }

}  // namespace clusterscore
