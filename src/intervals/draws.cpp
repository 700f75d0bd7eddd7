#include "intervals/draws.h"

#include <algorithm>

namespace clusterscore::intervals_detail {

void draw(detail::Random& rng, size_t clusters, std::vector<uint32_t>* drawn, DrawBlocks* blocks) {
  const auto next = [&] {
    return size_t((static_cast<unsigned __int128>(rng.next()) * clusters) >> 64);
  };
  const size_t n_blocks = (clusters >> kBlockBits) + 1;
  if (n_blocks == 1) {
    drawn->assign(clusters, 0);
    for (size_t d = 0; d < clusters; ++d) ++(*drawn)[next()];
    return;
  }
  drawn->resize(clusters);
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
    uint32_t* base = drawn->data() + (b << kBlockBits);
    std::fill(base, base + std::min(size_t(1) << kBlockBits, clusters - (b << kBlockBits)), 0u);
    for (const uint16_t* x = blocks->low.data() + b * blocks->slot; x != at[b]; ++x) ++base[*x];
  }
  for (uint32_t p : blocks->spill) ++(*drawn)[p];
}

}  // namespace clusterscore::intervals_detail
