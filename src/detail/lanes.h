// Four doubles operated on as one value, for compensated sums of several metrics at once.
// GCC lowers each operation to one AVX2 instruction or two SSE2 ones, lane by lane, so a
// lane's result is the same bits as the scalar code's (no contraction: -ffp-contract=off).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "detail/kahan.h"

// Every function here is inlined, so passing vectors by value changes no ABI.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace clusterscore::detail {

typedef double Lanes4 __attribute__((vector_size(32)));
typedef int64_t LaneMask4 __attribute__((vector_size(32)));
typedef uint64_t Words4 __attribute__((vector_size(32)));

// Four doubles from p, and to p (any alignment).
[[gnu::always_inline]] inline Lanes4 load4(const double* p) {
  Lanes4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store4(double* p, Lanes4 v) { std::memcpy(p, &v, sizeof v); }
// neumaier_add() (kahan.h) in each lane: the same operations.
[[gnu::always_inline]] inline void neumaier_add4(Lanes4& sum, Lanes4& comp, Lanes4 x) {
  const Lanes4 t = sum + x;
  const Lanes4 x_part = t - sum;
  comp += (sum - (t - x_part)) + (x - x_part);
  sum = t;
}

// Four compensated sums held in memory, sum[0..4) with comp[0..4) (any alignment): each
// += x's lane, as neumaier_add4() does.
[[gnu::always_inline]] inline void neumaier_add4_at(double* sum, double* comp, Lanes4 x) {
  Lanes4 s = load4(sum), c = load4(comp);
  neumaier_add4(s, c, x);
  store4(sum, s);
  store4(comp, c);
}

// A compensated sum in four lanes: value i of a stream goes to lane i % 4, and the lanes
// are added in order at the end. Its bits depend on the stream alone (not on threads),
// and the four lanes' additions do not wait on one another as one sum's do.
struct LaneSum {
  Lanes4 sum = {0, 0, 0, 0}, comp = {0, 0, 0, 0};
  [[gnu::always_inline]] void add(Lanes4 x) { neumaier_add4(sum, comp, x); }
  KahanSum value() const {
    double s[4], c[4];
    store4(s, sum);
    store4(c, comp);
    KahanSum out;
    for (int l = 0; l < 4; ++l) out.add(KahanSum{s[l], c[l]});
    return out;
  }
};

// sum[i], comp[i] += k * x[i] for i < n, each a compensated sum: four at a time, the rest
// one by one, every element with neumaier_add()'s operations (so the same bits).
[[gnu::always_inline]] inline void neumaier_add_scaled(double* sum, double* comp, double k,
                                                       const double* x, size_t n) {
  const Lanes4 kv = {k, k, k, k};
  const size_t lanes = n - n % 4;
  for (size_t i = 0; i < lanes; i += 4) neumaier_add4_at(sum + i, comp + i, kv * load4(x + i));
  for (size_t i = lanes; i < n; ++i) neumaier_add(sum[i], comp[i], k * x[i]);
}

}  // namespace clusterscore::detail

#pragma GCC diagnostic pop
