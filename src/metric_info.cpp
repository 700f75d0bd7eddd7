#include "clusterscore/metric_info.h"

#include <array>
#include <limits>

namespace clusterscore {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using enum Better;
using enum Unit;
using G = MetricGroup;

constexpr MetricInfo share(std::string_view name, G group, Better better) {
  return {name, group, better, kShare, 0.0, 1.0};
}

constexpr auto kRegistry = std::to_array<MetricInfo>({
    share("precision", G::kPointwise, kHigher),
    share("recall", G::kPointwise, kHigher),
    share("f1", G::kPointwise, kHigher),
    share("accuracy", G::kPointwise, kHigher),
    share("jaccard_index", G::kPointwise, kHigher),
    share("jaccard_distance", G::kPointwise, kLower),
    share("over_merge_rate", G::kPointwise, kLower),
    share("under_merge_rate", G::kPointwise, kLower),
    share("f1_of_means", G::kPointwise, kHigher),
    share("pair_precision", G::kPointwise, kHigher),
    share("pair_recall", G::kPointwise, kHigher),
    share("pair_f1", G::kPointwise, kHigher),

    share("split_distance", G::kImpact, kNeither),
    share("merge_distance", G::kImpact, kNeither),
    share("jaccard_distance", G::kImpact, kNeither),
    share("jaccard_index", G::kImpact, kNeither),
    share("split_rate", G::kImpact, kNeither),
    share("merge_rate", G::kImpact, kNeither),
    {"affected_items", G::kImpact, kNeither, kCount, 0.0, kInf},
    {"affected_weight", G::kImpact, kNeither, kWeight, 0.0, kInf},
    share("affected_jaccard_index", G::kImpact, kNeither),
    share("unaffected_jaccard_index", G::kImpact, kNeither),
    {"base_clusters_split", G::kImpact, kNeither, kCount, 0.0, kInf},
    {"exp_clusters_merged", G::kImpact, kNeither, kCount, 0.0, kInf},

    share("good_split_distance", G::kEstimate, kHigher),
    share("bad_split_distance", G::kEstimate, kLower),
    share("good_merge_distance", G::kEstimate, kHigher),
    share("bad_merge_distance", G::kEstimate, kLower),
    share("good_distance", G::kEstimate, kHigher),
    share("bad_distance", G::kEstimate, kLower),
    share("affected_good_index", G::kEstimate, kHigher),
    share("affected_bad_index", G::kEstimate, kLower),
    {"delta_precision", G::kEstimate, kHigher, kShare, -1.0, 1.0},
    share("good_split_rate", G::kEstimate, kHigher),
    share("bad_split_rate", G::kEstimate, kLower),
    share("good_merge_rate", G::kEstimate, kHigher),
    share("bad_merge_rate", G::kEstimate, kLower),
    share("split_distance", G::kEstimate, kNeither),
    share("merge_distance", G::kEstimate, kNeither),
    share("jaccard_distance", G::kEstimate, kNeither),
    share("affected_jaccard_index", G::kEstimate, kNeither),

    share("rand_score", G::kClassic, kHigher),
    share("fowlkes_mallows_score", G::kClassic, kHigher),
    {"mutual_info_score", G::kClassic, kHigher, kScore, 0.0, kInf},
    share("normalized_mutual_info_score", G::kClassic, kHigher),
    share("homogeneity_score", G::kClassic, kHigher),
    share("completeness_score", G::kClassic, kHigher),
    share("v_measure_score", G::kClassic, kHigher),
    {"adjusted_rand_score", G::kClassic, kHigher, kScore, -0.5, 1.0},
    share("pair_precision_score", G::kClassic, kHigher),
    share("pair_recall_score", G::kClassic, kHigher),
    share("pair_jaccard_score", G::kClassic, kHigher),
    {"adjusted_mutual_info_score", G::kClassic, kHigher, kScore, -kInf, 1.0},
    share("f_measure_score", G::kClassic, kHigher),
    share("purity_score", G::kClassic, kHigher),
    share("inverse_purity_score", G::kClassic, kHigher),
    share("clustering_error", G::kClassic, kLower),
    {"clustering_ratio", G::kClassic, kNeither, kScore, 0.0, kInf},
    share("bcubed_precision_score", G::kClassic, kHigher),
    share("bcubed_recall_score", G::kClassic, kHigher),
    share("bcubed_f_score", G::kClassic, kHigher),
});

}  // namespace

std::span<const MetricInfo> metric_registry() noexcept { return kRegistry; }

const MetricInfo* find_metric(MetricGroup group, std::string_view name) noexcept {
  for (const MetricInfo& m : kRegistry)
    if (m.group == group && m.name == name) return &m;
  return nullptr;
}

}  // namespace clusterscore
