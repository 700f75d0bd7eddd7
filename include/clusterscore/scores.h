// The library's C++ API: score a clustering against a truth, measure the difference
// between two clusterings, draw pairs to judge it, and the classic metrics (classic.h).
// Inputs are views of the caller's columns (inputs.h); results are the values of types.h.
// (Python reaches the same core without copies.)
#pragma once

#include "clusterscore/classic.h"
#include "clusterscore/inputs.h"
#include "clusterscore/pair_sample.h"
#include "clusterscore/types.h"

namespace clusterscore {

// `actual` scored against `truth` (types.h, Evaluation). Throws InputError (error.h) for an
// item listed twice, clusterings with no common item
// and the like; std::invalid_argument for cluster weights that are not one finite number
// > 0 per truth cluster. O(items) expected.
Evaluation evaluate(const ClusteringInput& truth, const ClusteringInput& actual,
                    const ItemsInput* items = nullptr, const EvaluateOptions& options = {});

// How `exp` differs from `base` (types.h, DiffResult). Throws as evaluate() does. O(items)
// expected.
DiffResult diff(const ClusteringInput& base, const ClusteringInput& exp,
                const ItemsInput* items = nullptr);

// Pairs drawn in proportion to their weight to judge the difference (docs/metrics.md,
// judging). Item indices are of the items joined: index r < base rows is the item of base
// row r; the items found only in Exp follow, in Exp's order. Throws as diff() does, and
// std::invalid_argument when a stratum with draws has no pair to draw.
PairSampleTable sample_pairs(const ClusteringInput& base, const ClusteringInput& exp,
                             const ItemsInput* items, const SampleOptions& options);

}  // namespace clusterscore
