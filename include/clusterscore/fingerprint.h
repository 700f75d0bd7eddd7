// Fingerprints of inputs, written into sample files so that an estimate can tell that its
// verdicts were drawn from the same inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "clusterscore/inputs.h"

namespace clusterscore {

// An order-independent 64-bit fingerprint of a clustering's (item, cluster) rows, or
// of an items table's (item, weight) rows: equal inputs give equal fingerprints whatever
// their row order. O(rows).
uint64_t fingerprint(const ClusteringInput& c);
uint64_t fingerprint(const ItemsInput& t);

// The fingerprint of an input cut into parts (a distributed table's partitions or
// batches), from each part's fingerprint and rows: equal to fingerprint() of all the rows
// at once. `items`: the parts are of an items table, else of a clustering. O(parts).
uint64_t combine_fingerprints(const std::vector<uint64_t>& parts, const std::vector<uint64_t>& rows,
                              bool items);

}  // namespace clusterscore
