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
  // Lane l is generator g[l], l < 4.
  explicit RandomLanes(const Random* g) {
    for (size_t w = 0; w < 4; ++w)
      for (size_t l = 0; l < 4; ++l) s_[w][l] = g[l].s_[w];
  }
  // Each lane's Random::next(), as its operations.
  [[gnu::always_inline]] Words4 next() { return xoshiro_next(s_); }
  // g[l] (l < 4) set to lane l's generator, as far as the lanes have stepped it.
  void put_back(Random* g) const {
    for (size_t w = 0; w < 4; ++w)
      for (size_t l = 0; l < 4; ++l) g[l].s_[w] = s_[w][l];
  }

 private:
  Words4 s_[4];
};

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
