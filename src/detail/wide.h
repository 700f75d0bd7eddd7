// Just enough 256-bit unsigned arithmetic for exact products of 128-bit pair counts.
#pragma once

#include <cmath>
#include <cstdint>

namespace clusterscore::detail {

using u128 = unsigned __int128;

struct U256 {
  u128 hi = 0, lo = 0;
};

inline U256 mul(u128 a, u128 b) {
  const uint64_t a0 = uint64_t(a), a1 = uint64_t(a >> 64);
  const uint64_t b0 = uint64_t(b), b1 = uint64_t(b >> 64);
  const u128 p00 = u128(a0) * b0, p01 = u128(a0) * b1, p10 = u128(a1) * b0, p11 = u128(a1) * b1;
  const u128 mid = (p00 >> 64) + uint64_t(p01) + uint64_t(p10);
  U256 r;
  r.lo = (mid << 64) | uint64_t(p00);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

inline U256 add(U256 a, U256 b) {
  U256 r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo ? 1 : 0);
  return r;
}

inline bool less(U256 a, U256 b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }

// a − b for a ≥ b.
inline U256 sub(U256 a, U256 b) {
  U256 r;
  r.lo = a.lo - b.lo;
  r.hi = a.hi - b.hi - (a.lo < b.lo ? 1 : 0);
  return r;
}

inline double to_double(u128 x) {
  return std::ldexp(double(uint64_t(x >> 64)), 64) + double(uint64_t(x));
}

inline double to_double(U256 x) { return std::ldexp(to_double(x.hi), 128) + to_double(x.lo); }

}  // namespace clusterscore::detail
