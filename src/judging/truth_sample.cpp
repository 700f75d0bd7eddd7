#include "clusterscore/truth_sample.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "detail/kahan.h"
#include "detail/random.h"
#include "detail/weight.h"

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

std::vector<double> seed_chances(std::span<const double> weights, uint64_t n) {
  if (n == 0 || n > weights.size()) {
    throw std::invalid_argument("cannot expect " + std::to_string(n) + " seeds of " +
                                std::to_string(weights.size()) + " records");
  }
  for (size_t r = 0; r < weights.size(); ++r) {
    if (!detail::is_weight(weights[r])) {
      throw std::invalid_argument("the draw weight of record " + std::to_string(r) +
                                  " is not a finite number > 0");
    }
  }
  // Records at or above 1/scale are certain; each round makes the records certain that
  // the last round's scale puts at 1 or more, which can only raise the scale of the rest,
  // so the certain set grows until no record crosses: at most one round per record.
  std::vector<bool> certain(weights.size(), false);
  double scale = 0.0;
  for (bool grew = true; grew;) {
    detail::KahanSum rest;
    uint64_t sure = 0;
    for (size_t r = 0; r < weights.size(); ++r) {
      if (certain[r]) {
        ++sure;
      } else {
        rest.add(weights[r]);
      }
    }
    scale = sure >= n ? 0.0 : double(n - sure) / rest.value();
    grew = false;
    for (size_t r = 0; r < weights.size(); ++r) {
      if (!certain[r] && scale * weights[r] >= 1.0) certain[r] = grew = true;
    }
  }
  std::vector<double> out(weights.size());
  for (size_t r = 0; r < weights.size(); ++r) {
    out[r] = certain[r] ? 1.0 : std::min(1.0, scale * weights[r]);
  }
  return out;
}

std::vector<uint64_t> draw_records_in_proportion(std::span<const double> chances, uint64_t seed) {
  detail::Random rng(seed);
  std::vector<std::pair<double, uint64_t>> drawn;
  for (uint64_t r = 0; r < chances.size(); ++r) {
    const double u = rng.uniform();
    if (u < chances[r]) drawn.emplace_back(u / chances[r], r);
  }
  std::sort(drawn.begin(), drawn.end());
  std::vector<uint64_t> out(drawn.size());
  for (size_t k = 0; k < drawn.size(); ++k) out[k] = drawn[k].second;
  return out;
}

std::vector<double> entity_inclusion_probabilities(std::span<const double> chances,
                                                   std::span<const uint64_t> record,
                                                   std::span<const uint32_t> entity,
                                                   size_t entities) {
  if (record.size() != entity.size()) {
    throw std::invalid_argument("record and entity differ in length");
  }
  std::vector<detail::KahanSum> log_miss(entities);
  std::vector<bool> sure(entities, false);
  for (size_t k = 0; k < record.size(); ++k) {
    if (record[k] >= chances.size() || entity[k] >= entities) {
      throw std::invalid_argument("a record or entity is out of range");
    }
    const double p = chances[record[k]];
    if (!(p >= 0.0 && p <= 1.0)) {
      throw std::invalid_argument("a record's chance " + std::to_string(p) + " is not in [0, 1]");
    }
    if (p == 1.0)
      sure[entity[k]] = true;  // log1p(−1) is −inf: π = 1 directly
    else
      log_miss[entity[k]].add(std::log1p(-p));
  }
  std::vector<double> out(entities);
  for (size_t e = 0; e < entities; ++e) {
    out[e] = sure[e] ? 1.0 : -std::expm1(log_miss[e].value());
  }
  return out;
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
