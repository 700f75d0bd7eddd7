#include "curves/sorted_links.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "clusterscore/error.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "input/clustering.h"

namespace clusterscore::curves_detail {
namespace {

// Sorts `v` by `less` (a strict total order: the result does not depend on the split):
// parts sorted in parallel, then merged pairwise, level by level.
template <class V, class Less>
void parallel_sort(V* v, Less less) {
  const size_t n = v->size();
  const size_t parts = std::min<size_t>(detail::workers_for(n / (size_t(1) << 16) + 1), 64);
  std::vector<size_t> cut(parts + 1);
  for (size_t p = 0; p <= parts; ++p) cut[p] = n * p / parts;
  detail::parallel_for(parts, [&](size_t, size_t p) {
    std::sort(v->begin() + cut[p], v->begin() + cut[p + 1], less);
  });
  for (size_t width = 1; width < parts; width *= 2) {
    const size_t merges = (parts + 2 * width - 1) / (2 * width);
    detail::parallel_for(merges, [&](size_t, size_t m) {
      const size_t a = 2 * width * m, b = std::min(a + width, parts),
                   e = std::min(a + 2 * width, parts);
      if (b < e)
        std::inplace_merge(v->begin() + cut[a], v->begin() + cut[b], v->begin() + cut[e], less);
    });
    detail::poll_interrupt();
  }
}

}  // namespace

Components::Components(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }

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
  // Each pair's highest score first, then the pair's other rows dropped.
  parallel_sort(&links, [](const Link& x, const Link& y) {
    if (x.lo != y.lo) return x.lo < y.lo;
    if (x.hi != y.hi) return x.hi < y.hi;
    return x.score > y.score;
  });
  links.erase(
      std::unique(links.begin(), links.end(),
                  [](const Link& x, const Link& y) { return x.lo == y.lo && x.hi == y.hi; }),
      links.end());
  parallel_sort(&links, [](const Link& x, const Link& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.lo != y.lo) return x.lo < y.lo;
    return x.hi < y.hi;
  });
  return links;
}

}  // namespace clusterscore::curves_detail
