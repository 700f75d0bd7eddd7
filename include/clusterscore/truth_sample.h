// Drawing the truth sample to label (docs/metrics.md, "drawing the truth sample"): seed
// records drawn uniformly without replacement, or each record independently with a chance
// in proportion to a weight (Poisson sampling); the candidates a labeller is shown for each
// seed; and the probability with which a labelled entity entered the sample.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace clusterscore {

// `n` distinct records of `records` (numbered 0 … records − 1), uniformly without
// replacement, in the order drawn: a partial Fisher–Yates shuffle on the seeded generator
// of detail/random.h, so a seed gives the same draw on every platform, and the first k of
// a draw of n are the draw of k. Throws std::invalid_argument when n > records.
// O(n) time and memory.
std::vector<uint64_t> draw_records(uint64_t records, uint64_t n, uint64_t seed);

// π = 1 − C(records − size, n) / C(records, n): the probability that a uniform draw of `n`
// of `records` records without replacement meets an entity of `size` records. Exact to a
// few ulps (a product of `min(size, n)` ratios, summed in logarithms). Throws
// std::invalid_argument when size is 0 or exceeds records, or n exceeds records.
double inclusion_probability(uint64_t records, uint64_t n, uint64_t size);

// Each record's chance of being a seed when `n` seeds are expected in proportion to
// `weights` (one per record): min(1, c·w) with c such that the chances sum to `n`. A record
// whose share would exceed 1 is certain, and the others share the rest. The chances are
// what `entity_inclusion_probability` needs, and what draw_records_in_proportion draws
// from. Throws std::invalid_argument when a weight is not a finite number > 0, n is 0, or
// n exceeds the records. O(records × rounds of capping), a round or two in practice.
std::vector<double> seed_chances(std::span<const double> weights, uint64_t n);

// Poisson sampling: record r is a seed when its uniform u_r (the seeded generator of
// detail/random.h, one number per record in record order) falls below chances[r]. The
// seeds come ordered by u_r / chances[r], uniform and independent given that each was
// drawn: a random order, the same on every platform for a seed. O(records + seeds log seeds).
std::vector<uint64_t> draw_records_in_proportion(std::span<const double> chances, uint64_t seed);

// Per entity, π = 1 − Π (1 − chances[r]) over its records r: the probability that a
// Poisson draw meets it. `record[k]` belongs to entity `entity[k]` (< entities); an entity
// listed with no record gets π = 0. Throws std::invalid_argument when a record or entity
// is out of range or a chance is not in [0, 1]. O(records listed + entities).
std::vector<double> entity_inclusion_probabilities(std::span<const double> chances,
                                                   std::span<const uint64_t> record,
                                                   std::span<const uint32_t> entity,
                                                   size_t entities);

// The records that share a group with each seed: `groups` holds, per grouping (a
// clustering, a blocking column), one group code per record (`kNoGroup`: in no group);
// `seeds` are record numbers. Returns (seed position, record) pairs, each once, sorted by
// seed position then record; a seed's own record is among its candidates. A group of more
// than `most_per_group` records adds only the seed itself (a blocking value shared by half
// the file is no candidate list); the number of such groups met is returned alongside.
// O(records × groupings + output).
inline constexpr uint32_t kNoGroup = 0xFFFFFFFFu;
struct Candidates {
  std::vector<std::pair<uint32_t, uint64_t>> pairs;
  uint64_t groups_too_large = 0;
};
Candidates gather_candidates(std::span<const std::span<const uint32_t>> groups,
                             std::span<const uint64_t> seeds, uint64_t most_per_group);

}  // namespace clusterscore
