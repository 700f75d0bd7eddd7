#include "clusterscore/fingerprint.h"

#include <cstring>
#include <stdexcept>

#include "detail/hash.h"

namespace clusterscore {
namespace {

uint64_t hash_id(const IdColumn& c, size_t row) {
  return c.is_string() ? detail::hash_bytes(c.str(row)) : detail::mix64(uint64_t(c.ints[row]));
}

}  // namespace

// A fingerprint is its row count's hash plus a hash per row (mod 2^64): parts add up once
// each part's own count hash is taken out.
uint64_t combine_fingerprints(const std::vector<uint64_t>& parts, const std::vector<uint64_t>& rows,
                              bool items) {
  if (parts.size() != rows.size())
    throw std::invalid_argument("clusterscore: one row count per fingerprint is needed");
  uint64_t n = 0, h = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    n += rows[p];
    h += parts[p] - detail::mix64(rows[p] + items);
  }
  return h + detail::mix64(n + items);
}

uint64_t fingerprint(const ClusteringInput& c) {
  uint64_t h = detail::mix64(c.items.size);
  for (size_t r = 0; r < c.items.size; ++r)
    h += detail::mix64(hash_id(c.items, r) ^ (hash_id(c.clusters, r) * 0x9E3779B97F4A7C15ull));
  return h;
}

uint64_t fingerprint(const ItemsInput& t) {
  uint64_t h = detail::mix64(t.items.size + 1);
  for (size_t r = 0; r < t.items.size; ++r) {
    uint64_t w = 0;
    if (t.weights) std::memcpy(&w, &t.weights[r], sizeof w);
    h += detail::mix64(hash_id(t.items, r) ^ detail::mix64(w));
  }
  return h;
}

}  // namespace clusterscore
