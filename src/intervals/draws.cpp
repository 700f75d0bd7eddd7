#include "intervals/draws.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "detail/random_lanes.h"
#include "detail/simd.h"

// Four-lane vectors (detail/lanes.h) pass between inlined functions only: no ABI is
// crossed, whatever -Wpsabi says of the baseline clone.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::intervals_detail {
namespace {

// Counts one more draw of the place counted at `c`.
[[gnu::always_inline]] inline void count(uint8_t* c) {
  if (++*c == 0)
    throw std::overflow_error("clusterscore: a resample drew one truth cluster over 255 times");
}

}  // namespace

void draw(detail::Random& rng, size_t clusters, uint8_t* counts, size_t stride,
          DrawBlocks* blocks) {
  // A copy whose state the compiler keeps in registers (the caller's may alias the
  // counts), given back at the end.
  detail::Random local = rng;
  const auto next = [&] {
    return size_t((static_cast<unsigned __int128>(local.next()) * clusters) >> 64);
  };
  const size_t n_blocks = (clusters >> kBlockBits) + 1;
  if (n_blocks == 1 || clusters * stride <= kDirectBytes) {
    for (size_t p = 0; p < clusters; ++p) counts[p * stride] = 0;
    for (size_t d = 0; d < clusters; ++d) count(counts + next() * stride);
    rng = local;
    return;
  }
  blocks->low.resize(n_blocks * blocks->slot);
  blocks->spill.clear();
  std::vector<uint16_t*> at(n_blocks), end(n_blocks);
  for (size_t b = 0; b < n_blocks; ++b)
    at[b] = blocks->low.data() + b * blocks->slot, end[b] = at[b] + blocks->slot;
  for (size_t d = 0; d < clusters; ++d) {
    const size_t p = next(), b = p >> kBlockBits;
    if (at[b] != end[b])
      *at[b]++ = uint16_t(p);
    else
      blocks->spill.push_back(uint32_t(p));
  }
  for (size_t b = 0; b < n_blocks; ++b) {
    uint8_t* base = counts + (b << kBlockBits) * stride;
    const size_t places = std::min(size_t(1) << kBlockBits, clusters - (b << kBlockBits));
    for (size_t p = 0; p < places; ++p) base[p * stride] = 0;
    for (const uint16_t* x = blocks->low.data() + b * blocks->slot; x != at[b]; ++x)
      count(base + size_t(*x) * stride);
  }
  for (uint32_t p : blocks->spill) count(counts + size_t(p) * stride);
  rng = local;
}

CLUSTERSCORE_SIMD_CLONES
void draw_lanes(detail::Random* rng, size_t clusters, uint8_t* counts, DrawBlocks* blocks) {
  constexpr size_t kLanes = 4, kLaneBits = kBlockBits - 2;
  if (clusters > UINT32_MAX / kLanes) {  // offsets past 32 bits: one lane after another
    for (size_t l = 0; l < kLanes; ++l) draw(rng[l], clusters, counts + l, kLanes, blocks);
    return;
  }
  detail::RandomLanes lanes(rng);
  // Each lane's next place, ⌊x·clusters / 2^64⌋ of its next number x: the numbers made
  // side by side, the products one by one (a vector of 64-bit products costs three of
  // 32 bits each, and took longer than four scalar ones).
  uint64_t place[kLanes];
  const auto next = [&] {
    const detail::Words4 x = lanes.next();
    std::memcpy(place, &x, sizeof place);
    for (uint64_t& p : place) p = uint64_t((static_cast<unsigned __int128>(p) * clusters) >> 64);
  };
  const size_t n_blocks = (clusters >> kLaneBits) + 1;
  if (n_blocks == 1 || clusters * kLanes <= kLaneDirectBytes) {
    std::memset(counts, 0, clusters * kLanes);
    for (size_t d = 0; d < clusters; ++d) {
      next();
      for (size_t l = 0; l < kLanes; ++l) count(counts + place[l] * kLanes + l);
    }
    lanes.put_back(rng);
    return;
  }
  blocks->low.resize(n_blocks * blocks->slot);
  blocks->spill.clear();
  std::vector<uint16_t*> at(n_blocks), end(n_blocks);
  for (size_t b = 0; b < n_blocks; ++b)
    at[b] = blocks->low.data() + b * blocks->slot, end[b] = at[b] + blocks->slot;
  for (size_t d = 0; d < clusters; ++d) {
    next();
    for (size_t l = 0; l < kLanes; ++l) {
      const size_t offset = place[l] * kLanes + l, b = place[l] >> kLaneBits;
      if (at[b] != end[b])
        *at[b]++ = uint16_t(offset);
      else
        blocks->spill.push_back(uint32_t(offset));
    }
  }
  for (size_t b = 0; b < n_blocks; ++b) {
    uint8_t* base = counts + (b << kBlockBits);
    std::memset(base, 0, std::min(size_t(1) << kBlockBits, clusters * kLanes - (b << kBlockBits)));
    for (const uint16_t* x = blocks->low.data() + b * blocks->slot; x != at[b]; ++x)
      count(base + *x);
  }
  for (uint32_t offset : blocks->spill) count(counts + offset);
  lanes.put_back(rng);
}

}  // namespace clusterscore::intervals_detail
