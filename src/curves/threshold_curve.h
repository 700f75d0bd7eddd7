// A clustering's quality at every match threshold of scored pairs (docs/metrics.md,
// curves): the clustering at threshold t is the connected components of the pairs scored
// at or above t, which only merge as t falls, so one pass over the pairs in descending
// score with a union–find gives every threshold's overall metrics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "comparison/comparison.h"

namespace clusterscore {

// Scored pairs of actual items, each item named by its row in the actual clustering of
// singletons the comparison was built with (one item per cluster, so the rows are the
// items); three columns of one length.
struct ScoredPairs {
  std::span<const uint32_t> left, right;
  std::span<const double> score;
  size_t size() const { return score.size(); }
};

struct CurveOptions {
  // The thresholds to report (any order, repeats and ±inf allowed; NaN is an error); empty:
  // every distinct score.
  std::vector<double> thresholds;
  // With every distinct score: at most this many rows (>= 2), evenly spaced in merges; the
  // first and last thresholds and each best row (best_rows()) always kept.
  size_t max_points = 1000;
};

// One row per threshold reported, in descending order of threshold.
struct CurveTable {
  std::vector<double> threshold;
  std::vector<uint64_t> clusters;  // the components over the actual items
  // The overall metrics of `evaluate` (names and order of Comparison::overall()), one
  // group per row (its index).
  GroupTable metrics;
  // Per metric of kCurveBest, the row where it is highest (the highest threshold among
  // equals), or kNone where it is never defined.
  std::vector<uint32_t> best;
  uint64_t distinct_scores = 0;  // of the pairs, after repeats are dropped
  uint64_t pairs = 0;            // distinct pairs
};

// The metrics whose best threshold a curve always keeps.
inline constexpr const char* kCurveBest[3] = {"f1", "f1_of_means", "pair_f1"};

// The curve of `pairs` against `c`'s truth (side A): every row equals c's overall() for
// the components at that threshold, in c's scope and with its design weights. `c` must be
// a pointwise comparison whose actual side (B) holds one item per cluster (rows numbered
// as B's rows); items no pair names stay singletons. A pair named twice (in either order)
// counts once, with its highest score. Throws InputError (source "pairs", its row) for a
// NaN score or a pair naming one item twice, std::invalid_argument for a row outside B,
// bad options, or weights too extreme for the pair sums. Deterministic for any thread
// count. Time O(P log P + merges × the groups of the clusters merged), where a cluster's
// groups are its cells of distinct (truth weight, cell weight): few per cluster with unit
// weights, its cells with real-valued ones; memory O(P + items).
CurveTable threshold_curve(const Comparison& c, const ScoredPairs& pairs, const CurveOptions& o);

// The clustering at threshold t: per row of B, its component's smallest row. Checks the
// pairs as threshold_curve() does. O(P α(n) + n).
std::vector<uint32_t> components_at(size_t rows, const ScoredPairs& pairs, double t);

}  // namespace clusterscore
