// Four generators (random.h) stepped together, their states side by side in four-lane
// vectors: one generator's steps wait on one another, four generators' do not, so the
// four sequences cost little more than one. Lane l gives generator l's numbers, the same
// bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "detail/lanes.h"
#include "detail/random.h"

// Every function here is inlined, so passing vectors by value changes no ABI.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::detail {

class RandomLanes {
 public:
  explicit RandomLanes(const Random* g) {
    for (size_t w = 0; w < 4; ++w)
      for (size_t l = 0; l < 4; ++l) s_[w][l] = g[l].s_[w];
  }
  // Each lane's Random::next(), as its operations.
  [[gnu::always_inline]] Words4 next() {
    const Words4 x = rotl(s_[1] + (s_[1] << 2), 7);  // s1·5, rotated
    const Words4 result = x + (x << 3);              // ·9
    const Words4 t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Generator l as far as the lanes have stepped it.
  void put_back(Random* g) const {
    for (size_t w = 0; w < 4; ++w)
      for (size_t l = 0; l < 4; ++l) g[l].s_[w] = s_[w][l];
  }

 private:
  [[gnu::always_inline]] static Words4 rotl(Words4 x, int k) { return (x << k) | (x >> (64 - k)); }
  Words4 s_[4];
};

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
