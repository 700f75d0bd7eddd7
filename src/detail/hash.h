// Fast, deterministic 64-bit hashing of integers and byte strings.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace clusterscore::detail {

// splitmix64's finaliser: a bijection, so distinct integers never collide.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

inline uint64_t hash_bytes(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t(n) * 0xFF51AFD7ED558CCDull);
  while (n >= 8) {
    uint64_t k;
    std::memcpy(&k, p, 8);
    h = (h ^ mix64(k)) * 0x9FB21C651E98DF25ull;
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return mix64(h ^ tail ^ (uint64_t(n) << 56));
}

// A 64-bit hash of a string id. Tests pass weak ones to the hashed paths (the join and
// interning of strings) to make different ids collide, which those paths must detect.
using StringHashFn = uint64_t (*)(std::string_view);

// `weak`, or hash_bytes (inlined) if null.
inline uint64_t hash_string(StringHashFn weak, std::string_view s) {
  return weak ? weak(s) : hash_bytes(s);
}

}  // namespace clusterscore::detail
