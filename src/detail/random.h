// A fully specified random generator (xoshiro256**, seeded by SplitMix64), so that a
// seed gives the same sample on every platform, compiler and thread count. The standard
// library's distributions are implementation-defined and are not used.
#pragma once

#include <cstdint>

namespace clusterscore::detail {

class Random {
 public:
  explicit Random(uint64_t seed) {
    for (uint64_t& s : s_) s = splitmix(&seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // The generator of stream `k` of `seed`: one per task (a resample, a block of draws)
  // that any thread may run, so that what a task draws depends on its number only.
  static Random stream(uint64_t seed, uint64_t k) {
    uint64_t x = seed;
    const uint64_t base = splitmix(&x);
    uint64_t y = k;
    return Random(base ^ splitmix(&y));
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

 private:
  friend class RandomLanes;  // steps four generators' states at once
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t* x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

}  // namespace clusterscore::detail
