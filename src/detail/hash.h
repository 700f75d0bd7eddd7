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

// Hashes for the join and interning of string ids, which never leave the process (unlike
// hash_bytes, behind the fingerprints written into sample manifests). Built as wyhash is
// (public domain): no variable-length copy, whose memcpy call cost more than the rest,
// but loads that may overlap, folded by 128-bit multiplication: about twice as fast as
// hash_bytes on ids of ~20 bytes.
namespace wy {
inline uint64_t mum(uint64_t a, uint64_t b) {
  const unsigned __int128 r = (unsigned __int128)a * b;
  return uint64_t(r) ^ uint64_t(r >> 64);
}
inline uint64_t read8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t read4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline constexpr uint64_t kP0 = 0xa0761d6478bd642full, kP1 = 0xe7037ed1a0b428dbull,
                          kP2 = 0x8ebc6af09c88c6e3ull;
}  // namespace wy

// `seed` picks one of a family of hashes (the join starts again with another when two ids
// share one); kP0 is the one interning uses.
inline uint64_t hash_id_bytes(std::string_view s, uint64_t seed = wy::kP0) {
  using namespace wy;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t a = 0, b = 0;
  if (n <= 16) {
    if (n >= 4) {  // first and last 4 bytes, and 4 more from each half when n >= 8
      const size_t mid = (n >> 3) << 2;
      a = (read4(p) << 32) | read4(p + mid);
      b = (read4(p + n - 4) << 32) | read4(p + n - 4 - mid);
    } else if (n > 0) {
      a = (uint64_t(uint8_t(p[0])) << 16) | (uint64_t(uint8_t(p[n >> 1])) << 8) | uint8_t(p[n - 1]);
    }
  } else {
    size_t left = n;
    for (; left > 16; left -= 16, p += 16) seed = mum(read8(p) ^ kP1, read8(p + 8) ^ seed);
    a = read8(p + left - 16);
    b = read8(p + left - 8);
  }
  return mum(kP1 ^ n, mum(a ^ kP1, b ^ seed ^ kP2));
}

// A 64-bit hash of a string id. Tests pass weak ones to the hashed paths (the join and
// interning of strings) to make different ids collide, which those paths must detect.
using StringHashFn = uint64_t (*)(std::string_view);

// `weak`, or hash_id_bytes (inlined) if null.
inline uint64_t hash_string(StringHashFn weak, std::string_view s) {
  return weak ? weak(s) : hash_id_bytes(s);
}

}  // namespace clusterscore::detail
