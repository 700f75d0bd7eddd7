#include "intervals/draws.h"

#include <algorithm>
#include <stdexcept>

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

}  // namespace clusterscore::intervals_detail
