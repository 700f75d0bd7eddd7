// The scored pairs as the curve walks them: checked, each distinct pair once with its
// highest score, in descending order of score (threshold_curve.cpp, components_at()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "curves/threshold_curve.h"
#include "detail/big_vector.h"
#include "detail/prefetch.h"

namespace clusterscore::curves_detail {

// A pair of nodes (the items' clusters in B), lo < hi.
struct Link {
  double score;
  uint32_t lo, hi;
};

// Per row of B, its node (B's cluster index); throws std::invalid_argument unless B holds
// one item per cluster.
std::vector<uint32_t> node_of_rows(const JoinedClusterings& j);

// Throws InputError (source "pairs") for the first row with a NaN score or naming one item
// twice, std::invalid_argument for columns of different lengths or a row outside
// [0, rows).
void check_pairs(size_t rows, const ScoredPairs& p);

// The checked pairs' nodes (node_of_row: row → node; empty: the rows themselves), each
// distinct pair once with its highest score, by descending score, then lo, then hi: the
// same order on any number of threads. O(P) radix passes and sorts of parts of a few
// thousand links, in parallel.
BigVector<Link> sorted_links(const ScoredPairs& p, const std::vector<uint32_t>& node_of_row);

// Union–find over nodes with path halving; join_under() says which root stays.
class Components {
 public:
  explicit Components(size_t n);
  uint32_t find(uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  // Fetches x's parent ahead of a find(x): the links come at random over the nodes.
  void prefetch(uint32_t x) const { detail::prefetch(&parent_[x]); }
  // Joins the components of roots a and b (a != b) under `into` (a or b).
  void join_under(uint32_t into, uint32_t other) { parent_[other] = into; }

 private:
  BigVector<uint32_t> parent_;
};

// A link that joins two components: the roots of both, and which link (its place in the
// sorted links) joined them.
struct Merge {
  uint64_t link;
  uint32_t root;   // the joined component's root (the root of the link's first node)
  uint32_t other;  // the other root, joined under `root`
};

// The merges of `links` (sorted_links()) over `nodes` nodes, in order: the union–find
// alone, so that the pass that moves cells (curve_pass.h) reads each merge's two
// roots instead of finding them, fetching what a merge reads a few merges ahead, and
// skips the links within a component. O(links · log nodes) at worst (path halving alone).
BigVector<Merge> merges_of(size_t nodes, const BigVector<Link>& links);

}  // namespace clusterscore::curves_detail
