// Dense ids for the values of one column, in order of first appearance.
#pragma once

#include <cstdint>
#include <vector>

#include "clusterscore/big_vector.h"
#include "clusterscore/ids.h"

namespace clusterscore::detail {

// Returns each row's dense id and appends the first row of each id to `first_row`.
// Null rows (col.valid) share one id. Integer columns whose values span a range of at
// most 4 rows per row are indexed directly (no hashing: most label and cluster columns
// are such small integers); strings of at most 7 bytes are packed into exact integer
// keys; anything else goes through the hash interner. O(rows) expected.
BigVector<uint32_t> intern_column(const IdColumn& col, BigVector<uint64_t>* first_row);

}  // namespace clusterscore::detail
