// Drawing the truth sample to label (docs/metrics.md, "drawing the truth sample"): seed
// records drawn uniformly without replacement, the candidates a labeller is shown for each
// seed, and the probability with which a labelled entity entered the sample.
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
