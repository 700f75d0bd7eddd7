// A resample's draws of truth clusters (bootstrap.cpp), counted per cluster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "detail/random.h"

namespace clusterscore::intervals_detail {

// Places counted a block at a time: a block's counters fit in a core's cache, where
// counting draws at random over millions of places missed it on nearly every draw.
inline constexpr size_t kBlockBits = 16;
// Counts spanning at most this many bytes (with their stride) are counted as the draws
// come: they fit in a core's L2 cache, and sorting the draws into blocks first cost more
// (at 1.5e5 clusters, four lanes: 612 KB, a bootstrap 9% faster; at 1.5e6, 6 MB, slower).
inline constexpr size_t kDirectBytes = size_t(1) << 20;
// The same for four lanes drawn together (draw_lanes()): counted as they come up to 8 MiB
// (on an AMD EPYC with 1 MiB of L2 and 32 MiB of L3, 1.5e6 clusters' counts, 6 MB, took
// 1.08 ns a draw so, against 1.9 ns one lane at a time by blocks; at 6e6 clusters, by
// blocks of the four lanes, 1.7 ns against 2.1 ns).
inline constexpr size_t kLaneDirectBytes = size_t(8) << 20;

// Scratch space of draw(): each block's draws (their low bits) in a slot of `low` of `slot`
// entries, and the draws that overflowed their slot. A block expects 2^16 draws (binomial,
// SD 256): a slot of 2^16 + 4096 overflows about never (tests make it small).
struct DrawBlocks {
  size_t slot = (size_t(1) << kBlockBits) + 4096;  // > 0
  std::vector<uint16_t> low;
  std::vector<uint32_t> spill;
};

// How many times a resample draws each truth cluster (counts[p·stride] for the cluster at
// place p, a byte each: the bootstrap computes resamples side by side, Draws):
// `clusters` (> 0) draws with replacement from `rng`, the d-th the place
// ⌊rng.next()·clusters / 2^64⌋ of a cluster in the order of drawing
// (BootstrapOptions::cluster_rank). Past kDirectBytes of counts, the draws go to their
// place's block, then each block's counters are cleared and counted while in cache: the
// same counts as counting them as they come. Throws std::overflow_error for a count over 255, which
// needs a cluster drawn 256 times where one time is expected (odds under 1e-500 whatever the
// clusters). O(clusters).
void draw(detail::Random& rng, size_t clusters, uint8_t* counts, size_t stride, DrawBlocks* blocks);

// Four resamples' draws side by side: lane l's counts (counts[p·4 + l]) from rng[l], the
// same counts as draw(rng[l], clusters, counts + l, 4, blocks), each rng[l] advanced as
// far. The four generators step together (detail::RandomLanes), and past kLaneDirectBytes
// of counts a block holds the four lanes of 2^(kBlockBits − 2) places: its draws' offsets
// from its first count fit in 16 bits, lane included. Throws as draw(). O(clusters).
void draw_lanes(detail::Random* rng, size_t clusters, uint8_t* counts, DrawBlocks* blocks);

}  // namespace clusterscore::intervals_detail
