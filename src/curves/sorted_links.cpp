#include "curves/sorted_links.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "clusterscore/error.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "detail/radix_partition.h"
#include "input/clustering.h"

namespace clusterscore::curves_detail {
namespace {

// Records of `in` into `out` by part(record) in [0, parts), each part's in input order
// (detail/radix_partition.h); returns where each part starts, and the end. The stretches
// depend on the size alone, and so does the layout.
template <class Part>
std::vector<size_t> partition(const BigVector<Link>& in, BigVector<Link>* out, size_t parts,
                              Part part) {
  const size_t stretches = std::clamp<size_t>(in.size() >> 16, 1, 64);
  const auto cut = [&](size_t s) { return in.size() * s / stretches; };
  std::vector<std::vector<size_t>> count(stretches, std::vector<size_t>(parts, 0));
  detail::parallel_for(stretches, [&](size_t, size_t s) {
    for (size_t i = cut(s); i < cut(s + 1); ++i) ++count[s][part(in[i])];
  });
  const detail::Placement placed = detail::place(count, parts);
  out->resize(in.size());
  detail::scatter(out->data(), placed, [&](size_t s, auto put) {
    for (size_t i = cut(s); i < cut(s + 1); ++i) put(part(in[i]), in[i]);
  });
  return placed.start;
}

// Each pair once, with its highest score, in order of (lo, hi): the links partitioned by
// lo's top bits, each part (a few thousand links, in cache) sorted and its repeats dropped.
void drop_repeats(BigVector<Link>* links) {
  uint32_t top = 0;
  for (const Link& l : *links) top = std::max(top, l.lo);
  const int part_bits = std::min(int(std::bit_width(links->size() >> 13)), 11);
  const int shift = std::max(0, int(std::bit_width(top)) - part_bits);
  const size_t parts = (size_t(top) >> shift) + 1;
  BigVector<Link> by_lo;
  const std::vector<size_t> start =
      partition(*links, &by_lo, parts, [&](const Link& l) { return size_t(l.lo >> shift); });
  std::vector<size_t> kept(parts + 1, 0);
  detail::parallel_for(parts, [&](size_t, size_t q) {
    const auto begin = by_lo.begin() + start[q], end = by_lo.begin() + start[q + 1];
    std::sort(begin, end, [](const Link& x, const Link& y) {
      if (x.lo != y.lo) return x.lo < y.lo;
      if (x.hi != y.hi) return x.hi < y.hi;
      return x.score > y.score;
    });
    kept[q + 1] = size_t(
        std::unique(begin, end,
                    [](const Link& x, const Link& y) { return x.lo == y.lo && x.hi == y.hi; }) -
        begin);
  });
  std::partial_sum(kept.begin(), kept.end(), kept.begin());
  links->resize(kept[parts]);
  detail::parallel_for(parts, [&](size_t, size_t q) {
    std::copy(by_lo.begin() + start[q], by_lo.begin() + start[q] + (kept[q + 1] - kept[q]),
              links->begin() + kept[q]);
  });
}

// An unsigned key in descending order of score (-0 as +0, as they compare equal).
uint64_t descending(double score) {
  const uint64_t bits = std::bit_cast<uint64_t>(score == 0 ? 0.0 : score);
  return bits >> 63 ? bits : ~(bits | uint64_t(1) << 63);
}

// Links in order of (lo, hi) sorted by descending score, ties kept in that order: stable
// radix passes over the score's key, 11 bits at a time, skipping digits every link shares.
void by_score(BigVector<Link>* links) {
  uint64_t any = 0, all = ~uint64_t(0);
  for (const Link& l : *links) any |= descending(l.score), all &= descending(l.score);
  constexpr int kDigit = 11;
  BigVector<Link> other;
  for (int shift = 0; shift < 64; shift += kDigit) {
    const uint64_t mask = (uint64_t(1) << kDigit) - 1;
    if ((((any ^ all) >> shift) & mask) == 0) continue;
    partition(*links, &other, size_t(1) << kDigit,
              [&](const Link& l) { return size_t(descending(l.score) >> shift & mask); });
    links->swap(other);
    detail::poll_interrupt();
  }
}

}  // namespace

Components::Components(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }

BigVector<Merge> merges_of(size_t nodes, const BigVector<Link>& links) {
  Components uf(nodes);
  BigVector<Merge> out;
  for (size_t i = 0; i < links.size(); ++i) {
    detail::poll_every<16>(i);
    if (i + detail::kPrefetch < links.size()) {
      const Link& ahead = links[i + detail::kPrefetch];
      uf.prefetch(ahead.lo), uf.prefetch(ahead.hi);
    }
    const uint32_t a = uf.find(links[i].lo), b = uf.find(links[i].hi);
    if (a == b) continue;
    uf.join_under(a, b);
    out.push_back({i, a, b});
  }
  return out;
}

std::vector<uint32_t> node_of_rows(const JoinedClusterings& j) {
  if (j.n_b_clusters() != j.b_rows)
    throw std::invalid_argument(
        "clusterscore: a curve's actual clustering must hold one item per cluster");
  std::vector<uint32_t> node(j.b_rows);
  for (size_t c = 0; c < j.n_b_clusters(); ++c) node[j.b_cluster_first_row[c]] = uint32_t(c);
  return node;
}

void check_pairs(size_t rows, const ScoredPairs& p) {
  if (p.left.size() != p.size() || p.right.size() != p.size())
    throw std::invalid_argument("clusterscore: pair columns of different lengths");
  for (size_t r = 0; r < p.size(); ++r) {
    if (p.left[r] >= rows || p.right[r] >= rows)
      throw std::invalid_argument("clusterscore: a pair names a row outside the items");
    if (std::isnan(p.score[r])) throw InputError("pairs", int64_t(r), "the score is not a number");
    if (p.left[r] == p.right[r])
      throw InputError("pairs", int64_t(r), "the pair names one item twice");
  }
}

BigVector<Link> sorted_links(const ScoredPairs& p, const std::vector<uint32_t>& node_of_row) {
  BigVector<Link> links(p.size());
  detail::parallel_ranges(p.size(), [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      uint32_t a = p.left[r], b = p.right[r];
      if (!node_of_row.empty()) a = node_of_row[a], b = node_of_row[b];
      links[r] = {p.score[r], std::min(a, b), std::max(a, b)};
    }
  });
  drop_repeats(&links);
  by_score(&links);
  return links;
}

}  // namespace clusterscore::curves_detail
