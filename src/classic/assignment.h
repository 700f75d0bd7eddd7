// Maximum-weight matching of a sparse bipartite graph (not necessarily perfect): the
// optimal one-to-one mapping of clustering_error, on what remains after the cells that
// some optimal matching must contain are fixed (classic/matching.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace clusterscore::detail {

// Row r's edges are [start[r], start[r + 1]) of `col` (in [0, n_cols)) and `profit`
// (finite, > 0; a column at most once per row). Returns each row's matched column, or
// UINT32_MAX for a row left unmatched, such that the matched profits' sum is maximal:
// exactly when every profit is an integer (counts), and otherwise within
// (rows + cols) · 2^-36 of the largest profit.
//
// Bertsekas' auction with ε-scaling on the doubled graph (rows and mirrored columns
// bid for columns and mirrored rows; a row may take its own mirror at profit 0), whose
// best perfect matching is twice the best matching and always exists. Shortest
// augmenting paths (Jonker–Volgenant) were tried first: on two unrelated labelings the
// ties of equal counts made every search sweep the whole graph (n = 1e6, 1e5 clusters:
// minutes); the auction's bids stay local. O(edges · bids per edge · phases) in practice,
// with about log₅(rows · largest profit) phases for counts.
std::vector<uint32_t> max_weight_matching(size_t n_rows, size_t n_cols,
                                          std::span<const uint64_t> start,
                                          std::span<const uint32_t> col,
                                          std::span<const double> profit);

}  // namespace clusterscore::detail
