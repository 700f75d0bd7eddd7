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

// Draws of `places` places (under 2^32) put block by block, 2^kBlockBits places a block
// (each draw's low bits in its block's slot of `blocks`, the slot's overflow whole in its
// spill), then counted a block at a time while the block's counts are in cache.
class BlockCounts {
 public:
  BlockCounts(DrawBlocks* blocks, size_t places)
      : blocks_(blocks), places_(places), at_((places >> kBlockBits) + 1), end_(at_.size()) {
    blocks->low.resize(at_.size() * blocks->slot);
    blocks->spill.clear();
    for (size_t b = 0; b < at_.size(); ++b)
      at_[b] = blocks->low.data() + b * blocks->slot, end_[b] = at_[b] + blocks->slot;
  }
  [[gnu::always_inline]] void put(size_t p) {
    const size_t b = p >> kBlockBits;
    if (at_[b] != end_[b])
      *at_[b]++ = uint16_t(p);
    else
      blocks_->spill.push_back(uint32_t(p));
  }
  // Place p's count at counts[p·stride], zero before the draws; the bytes between left.
  void count_into(uint8_t* counts, size_t stride) const {
    for (size_t b = 0; b < at_.size(); ++b) {
      uint8_t* base = counts + (b << kBlockBits) * stride;
      const size_t places = std::min(size_t(1) << kBlockBits, places_ - (b << kBlockBits));
      for (size_t p = 0; p < places; ++p) base[p * stride] = 0;
      for (const uint16_t* x = blocks_->low.data() + b * blocks_->slot; x != at_[b]; ++x)
        count(base + size_t(*x) * stride);
    }
    for (uint32_t p : blocks_->spill) count(counts + size_t(p) * stride);
  }

 private:
  DrawBlocks* blocks_;
  size_t places_;
  std::vector<uint16_t*> at_, end_;
};

}  // namespace

void draw(detail::Random& rng, size_t clusters, uint8_t* counts, size_t stride,
          DrawBlocks* blocks) {
  // A copy whose state the compiler keeps in registers (the caller's may alias the
  // counts), given back at the end.
  detail::Random local = rng;
  const auto next = [&] {
    return size_t((static_cast<unsigned __int128>(local.next()) * clusters) >> 64);
  };
  if ((clusters >> kBlockBits) == 0 || clusters * stride <= kDirectBytes) {
    for (size_t p = 0; p < clusters; ++p) counts[p * stride] = 0;
    for (size_t d = 0; d < clusters; ++d) count(counts + next() * stride);
  } else {
    BlockCounts by_block(blocks, clusters);
    for (size_t d = 0; d < clusters; ++d) by_block.put(next());
    by_block.count_into(counts, stride);
  }
  rng = local;
}

CLUSTERSCORE_SIMD_CLONES
void draw_lanes(detail::Random* rng, size_t clusters, uint8_t* counts, DrawBlocks* blocks) {
  constexpr size_t kLanes = 4;
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
  // Lane l's count of place p is byte p·kLanes + l: the bytes are the places counted.
  const size_t bytes = clusters * kLanes;
  if ((bytes >> kBlockBits) == 0 || bytes <= kLaneDirectBytes) {
    std::memset(counts, 0, bytes);
    for (size_t d = 0; d < clusters; ++d) {
      next();
      for (size_t l = 0; l < kLanes; ++l) count(counts + place[l] * kLanes + l);
    }
  } else {
    BlockCounts by_block(blocks, bytes);
    for (size_t d = 0; d < clusters; ++d) {
      next();
      for (size_t l = 0; l < kLanes; ++l) by_block.put(place[l] * kLanes + l);
    }
    by_block.count_into(counts, 1);
  }
  lanes.put_back(rng);
}

}  // namespace clusterscore::intervals_detail
