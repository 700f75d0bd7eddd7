// A fully specified random generator (xoshiro256**, seeded by SplitMix64), so that a
// seed gives the same sample on every platform, compiler and thread count. The standard
// library's distributions are implementation-defined and are not used.
#pragma once

#include <cstdint>

namespace clusterscore::detail {

// Inlined wherever it is used, so a vector Word passed by value changes no ABI.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// One step of xoshiro256** on the state s[0..4): the number it gives. `Word` is uint64_t,
// or a vector of them whose lanes are generators of their own (random_lanes.h): the same
// operations in each lane (·5 and ·9 as shifts and adds, which vectors have).
template <class Word>
[[gnu::always_inline]] inline Word xoshiro_next(Word* s) {
  const auto rotl = [](Word x, int k) { return (x << k) | (x >> (64 - k)); };
  const Word x = rotl(s[1] + (s[1] << 2), 7);
  const Word result = x + (x << 3);
  const Word t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

#pragma GCC diagnostic pop

class Random {
 public:
  explicit Random(uint64_t seed) {
    for (uint64_t& s : s_) s = splitmix(&seed);
  }
  uint64_t next() { return xoshiro_next(s_); }
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
  static uint64_t splitmix(uint64_t* x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

}  // namespace clusterscore::detail
