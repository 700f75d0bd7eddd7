// A sample of item pairs to judge, and the exact totals of its diff that the estimates
// multiply by (docs/metrics.md, judging).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace clusterscore {

// The most draws one sample holds: each distinct pair is a row for raters, and a sample
// that size already takes hours to draw and write. Planning answers above it are refused.
inline constexpr uint64_t kMostDraws = 100'000'000;

enum class PairKind : uint8_t {
  kSplit,   // j ∈ Base(i) \ Exp(i)
  kMerge,   // j ∈ Exp(i) \ Base(i)
  kStable,  // j ∈ Base(i) ∩ Exp(i), j ≠ i
  kSelf,    // j = i
};

// `codes` (as a file or another language stores them) as pair kinds, without a copy.
// Throws std::invalid_argument if one is not a PairKind.
std::span<const PairKind> pair_kinds(std::span<const uint8_t> codes);

// How a sample is drawn.
enum class SampleMode : uint8_t {
  kPlain,         // one stratum: split and merge pairs, stable and self pairs of affected items
  kStratified,    // two strata: `pairs` diff pairs and `stable_pairs` stable pairs
  kDistanceOnly,  // diff pairs only (exploring the Jaccard distance)
};

struct SampleOptions {
  uint64_t pairs = 0;         // draws of the one stratum (plain), or of diff pairs (the others)
  uint64_t stable_pairs = 0;  // stratified: draws of stable and self pairs of affected items
  SampleMode mode = SampleMode::kPlain;
  uint64_t seed = 0;
};

// Distinct sampled pairs with their draw counts, in order of first draw. i and j are
// joined-item indices; U, B, E are item i's union, Base and Exp weights (within T).
struct PairSampleTable {
  std::vector<uint32_t> item_i, item_j;
  std::vector<PairKind> kind;
  std::vector<uint8_t> stratum;  // 0: the plain or diff stratum, 1: the stable stratum
  std::vector<uint64_t> draws;
  std::vector<double> U, B, E;
};

// The exact totals the estimates multiply by (docs/metrics.md, diff on T).
struct SampleTotals {
  double split_distance = 0, merge_distance = 0, jaccard_distance = 0;
  double affected_jaccard_index = 0, total_weight = 0;
  double diff_mass = 0, stable_mass = 0;  // Σ w_ij over each population
  // The self pairs of affected items (within stable_mass): Σ w_ii, and their part of
  // delta_precision, Σ w_ii·l_ii = Σ_i w(i)²·(1/E_i − 1/B_i) / w(T). Known exactly.
  double self_mass = 0, self_delta = 0;

  // The self pairs' share of the stable population (0 without stable pairs).
  double self_share() const { return stable_mass > 0 ? self_mass / stable_mass : 0.0; }
};

// Per stratum of a sample, the judged draws that the tail of its labels needs for a normal
// interval (docs/metrics.md, judging: a tail the sample cannot see is said, not hidden):
// enough that the pairs of largest |label| carrying half of the stratum's Σ w_ij·|l_ij|
// are drawn 10 times on average, so that the interval sees them. Known from the diff
// before any verdict; 0 for an empty population.
struct DrawsNeeded {
  uint64_t delta_precision[2] = {0, 0};     // l_ij: the plain or diff stratum; stable stratum
  uint64_t split_rate = 0, merge_rate = 0;  // U/B over split pairs, U/E over merge pairs
};

}  // namespace clusterscore
