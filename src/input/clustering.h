// Two clusterings (and an optional items table) joined on item id.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clusterscore/fingerprint.h"
#include "clusterscore/ids.h"
#include "clusterscore/inputs.h"
#include "detail/big_vector.h"

namespace clusterscore {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

// The union of the items of clusterings A and B, densely numbered: the rows of A
// first, in A's order (so an item of A has the index of its row in A), then the
// items found only in B, in B's order.
struct JoinedClusterings {
  std::string role_a, role_b;
  size_t a_rows = 0, b_rows = 0;
  BigVector<uint32_t> a_cluster;            // per item: dense cluster index in A, or kNone
  BigVector<uint32_t> b_cluster;            // per item: dense cluster index in B, or kNone
  BigVector<double> weight;                 // per item; 1 unless the items table says otherwise
  BigVector<uint32_t> items_row;            // per item: its row in the items table, or kNone;
                                            // empty when there is no items table
  BigVector<uint64_t> a_cluster_first_row;  // per A cluster: first row of A naming it
  BigVector<uint64_t> b_cluster_first_row;  // per B cluster: first row of B naming it
  uint64_t items_table_rows = 0;
  uint64_t items_table_unmatched = 0;  // items-table rows naming an item in neither clustering
  // Units (ItemsInput::counts): per item, the items it stands for and their Σw². Empty for
  // single items: 1 each, and weight².
  BigVector<uint64_t> count;
  BigVector<double> weight_sq;

  size_t n_items() const { return a_cluster.size(); }
  bool units() const { return !count.empty(); }
  uint64_t count_of(size_t item) const { return count.empty() ? 1 : count[item]; }
  double weight_sq_of(size_t item) const {
    return weight_sq.empty() ? weight[item] * weight[item] : weight_sq[item];
  }
  size_t n_a_clusters() const { return a_cluster_first_row.size(); }
  size_t n_b_clusters() const { return b_cluster_first_row.size(); }
  bool in_both(size_t item) const { return a_cluster[item] != kNone && b_cluster[item] != kNone; }
};

// Joins A, B and the optional items table on item id. The item-id columns must all
// be integers or all strings (callers convert); cluster ids may be of either kind.
// Throws InputError (naming the role and row) for: an item twice in one clustering
// or in the items table, or a weight that is not finite and > 0; with units, an item
// without a row, a count of 0, or a Σw² that is not finite and ≥ 0.
// O(rows) expected time. The result takes about 20 bytes per distinct item; while it
// runs, integer ids also take 16 bytes per input row (the radix partitions), and 8 more
// per items-table row with weights.
JoinedClusterings join(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items);

}  // namespace clusterscore
