#include "clusterscore/truth_sample.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "detail/random.h"

namespace clusterscore {

namespace {

// Uniform in [0, bound) without bias (Lemire's multiply-and-reject).
uint64_t below(detail::Random& rng, uint64_t bound) {
  unsigned __int128 m = (unsigned __int128)rng.next() * bound;
  auto low = uint64_t(m);
  if (low < bound) {
    const uint64_t floor = (0 - bound) % bound;
    while (low < floor) {
      m = (unsigned __int128)rng.next() * bound;
      low = uint64_t(m);
    }
  }
  return uint64_t(m >> 64);
}

}  // namespace

std::vector<uint64_t> draw_records(uint64_t records, uint64_t n, uint64_t seed) {
  if (n > records) {
    throw std::invalid_argument("cannot draw " + std::to_string(n) + " records of " +
                                std::to_string(records));
  }
  // The shuffled positions that differ from the identity, only: O(n) for any `records`.
  std::unordered_map<uint64_t, uint64_t> moved;
  moved.reserve(2 * n);
  auto at = [&](uint64_t k) {
    auto it = moved.find(k);
    return it == moved.end() ? k : it->second;
  };
  detail::Random rng(seed);
  std::vector<uint64_t> out;
  out.reserve(n);
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t j = k + below(rng, records - k);
    const uint64_t picked = at(j);
    moved[j] = at(k);
    out.push_back(picked);
  }
  return out;
}

double inclusion_probability(uint64_t records, uint64_t n, uint64_t size) {
  if (size == 0 || size > records || n > records) {
    throw std::invalid_argument("inclusion_probability: size " + std::to_string(size) +
                                " or draws " + std::to_string(n) + " out of range for " +
                                std::to_string(records) + " records");
  }
  if (n + size > records) return 1.0;  // every draw meets the entity
  // C(N − s, n) / C(N, n) = Π_{k<s} (N − n − k) / (N − k): the chance all s records missed.
  double log_miss = 0.0;
  for (uint64_t k = 0; k < size; ++k) {
    log_miss += std::log1p(-double(n) / double(records - k));
  }
  return -std::expm1(log_miss);
}

Candidates gather_candidates(std::span<const std::span<const uint32_t>> groups,
                             std::span<const uint64_t> seeds, uint64_t most_per_group) {
  Candidates out;
  for (const auto& code : groups) {
    // The seeds of each group met, then one pass over the records of those groups.
    std::unordered_map<uint32_t, std::vector<uint32_t>> wanted;
    for (uint32_t s = 0; s < seeds.size(); ++s) {
      if (seeds[s] >= code.size()) throw std::invalid_argument("a seed record is out of range");
      out.pairs.emplace_back(s, seeds[s]);
      if (code[seeds[s]] != kNoGroup) wanted[code[seeds[s]]].push_back(s);
    }
    std::unordered_map<uint32_t, uint64_t> size;
    for (uint32_t c : code) {
      if (c != kNoGroup && wanted.count(c)) ++size[c];
    }
    for (const auto& [c, n] : size) out.groups_too_large += n > most_per_group;
    for (uint64_t r = 0; r < code.size(); ++r) {
      auto it = code[r] == kNoGroup ? wanted.end() : wanted.find(code[r]);
      if (it == wanted.end() || size[code[r]] > most_per_group) continue;
      for (uint32_t s : it->second) out.pairs.emplace_back(s, r);
    }
  }
  std::sort(out.pairs.begin(), out.pairs.end());
  out.pairs.erase(std::unique(out.pairs.begin(), out.pairs.end()), out.pairs.end());
  return out;
}

}  // namespace clusterscore
