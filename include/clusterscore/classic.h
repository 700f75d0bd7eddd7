// Classic external metrics (docs/metrics.md, classic metrics), all from one cell table: pair
// counting, information theory, set matching, B-cubed. Unweighted results agree with scikit-learn's
// functions of the same name; weighted ones replace counts by weights.
#pragma once

#include <cstdint>
#include <optional>

#include "clusterscore/ids.h"

namespace clusterscore {

// Ordered-pair counts as scikit-learn's pair_confusion_matrix returns them (each
// unordered pair counted twice): exact for n up to ~1.8e19 items.
struct PairConfusion {
  unsigned __int128 tn = 0, fp = 0, fn = 0, tp = 0;
};
// The same, weighted: a pair (i, j), i ≠ j, counts w(i)·w(j). Compensated sums.
struct WeightedPairConfusion {
  double tn = 0, fp = 0, fn = 0, tp = 0;
};

enum class Average { kArithmetic, kGeometric, kMin, kMax };

struct ClassicOptions {
  bool weighted = false;                   // use cell weights instead of counts
  Average average = Average::kArithmetic;  // NMI / AMI normaliser
  double beta = 1.0;                       // V-measure's weight of completeness
  bool adjusted_mutual_info = true;        // compute AMI (costs the expected MI)
  bool matching = true;                    // compute clustering_error (costs a matching)
};

// Every scalar metric. Absent (nullopt) where a denominator is zero and scikit-learn
// defines no value, and for the adjusted metrics when weighted.
struct ClassicScores {
  PairConfusion pairs;
  WeightedPairConfusion weighted_pairs;
  double rand_score = 0, fowlkes_mallows_score = 0;
  std::optional<double> adjusted_rand_score, adjusted_mutual_info_score;
  std::optional<double> pair_precision_score, pair_recall_score, pair_jaccard_score;
  double mutual_info_score = 0, normalized_mutual_info_score = 0;
  double homogeneity_score = 0, completeness_score = 0, v_measure_score = 0;
  std::optional<double> f_measure_score, purity_score, inverse_purity_score;
  std::optional<double> clustering_error, clustering_ratio;
  std::optional<double> bcubed_precision_score, bcubed_recall_score, bcubed_f_score;
};

// Every classic metric of two labelings of the same n items given position by position (no
// join): item r has labels a[r], b[r] and weight weights[r] (1 if `weights` is null). Weights
// of any finite scale > 0: beyond 2^±200 they are scaled by a power of two first, and the
// weighted pair counts scaled back. Throws std::invalid_argument if the lengths differ. O(n)
// expected, plus what `options` asks for.
ClassicScores classic_scores(const IdColumn& a, const IdColumn& b, const double* weights,
                             const ClassicOptions& options);

}  // namespace clusterscore
